/**
 * The one PDF write path (CONTRACT §3.3, §9.3 steps 6–7): a staged PDF written to its app key (create-if-absent,
 * or overwrite with the identical-content shortcut) and, when something was written, the catalog write-through.
 * `upload-pdf` and paper access's preprint fetch (§11.5) both store through it; each answers a conflict its own way.
 */
import { paperKeys, type VersionedPreprintId } from '../../shared/ids.js';
import type { ObjectStore } from '../storage/object-store.js';
import { writeObject } from '../storage/write.js';
import type { Catalog } from './catalog.js';
import type { StagedFile } from './staging.js';

export interface PdfWrite {
  readonly id: VersionedPreprintId;
  readonly staged: Pick<StagedFile, 'path' | 'size' | 'sha256'>;
  readonly overwrite: boolean;
  /** Extra object metadata: `uploaded-by` for an upload, `source` for a fetch. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The index row's `pdf_uploaded_at`, read once the object is written. */
  readonly now: () => Date;
}

/** What the write did, at `key`; `catalogDeferred`: the index or graph could not be updated now. */
export type PdfWriteOutcome = { readonly key: string } & (
  | { readonly status: 'written'; readonly overwritten: boolean; readonly catalogDeferred: boolean }
  | { readonly status: 'unchanged'; readonly catalogDeferred: boolean }
  | { readonly status: 'conflict'; readonly existingSha256: string | null }
);

export async function writePdf(store: ObjectStore, catalog: Catalog, write: PdfWrite): Promise<PdfWriteOutcome> {
  const { id, staged } = write;
  const key = paperKeys(id).pdf;
  const outcome = await writeObject(
    store,
    key,
    { path: staged.path, size: staged.size },
    { sha256: staged.sha256, contentType: 'application/pdf', overwrite: write.overwrite, metadata: write.metadata },
  );
  if (outcome.status === 'conflict') return { key, ...outcome };
  // Nothing written: the row already describes these bytes; only its availability is news.
  if (outcome.status === 'unchanged') return { key, status: 'unchanged', catalogDeferred: !catalog.index.available };
  const catalogDeferred = await recordPdfWritten(catalog, write, outcome.etag);
  return { key, status: 'written', overwritten: outcome.overwritten, catalogDeferred };
}

/**
 * The catalog write-through of a PDF written at its key (here, or streamed by `PdfStream`); resolves to whether it
 * was deferred.
 */
export function recordPdfWritten(
  catalog: Catalog,
  write: Pick<PdfWrite, 'id' | 'staged' | 'now'>,
  etag: string | null,
): Promise<boolean> {
  return catalog.recordWrite(write.id, {
    has_pdf: true,
    pdf_size_bytes: write.staged.size,
    pdf_sha256: write.staged.sha256,
    pdf_etag: etag,
    pdf_uploaded_at: write.now(),
  });
}
