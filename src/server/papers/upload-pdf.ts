/**
 * `upload-pdf` steps 5–7 (CONTRACT §9.3) on a staged file: empty / magic checks, hash check, then the one PDF write
 * path (`write-pdf.ts`: conditional write, catalog write-through); a conflict is 409.
 */
import { ConflictError, InvalidInputError } from '../../shared/domain-errors.js';
import { paperKeys, type VersionedPreprintId } from '../../shared/ids.js';
import type { ObjectStore } from '../storage/object-store.js';
import { metadataValue } from '../storage/write.js';
import type { Catalog } from './catalog.js';
import type { PdfStream } from './pdf-stream.js';
import type { StagedFile } from './staging.js';
import { recordPdfWritten, writePdf, type PdfWrite, type PdfWriteOutcome } from './write-pdf.js';

export const PDF_UPLOAD_LIMIT = 104_857_600;

/** An upload's outcome: whether anything was written, the record the client gets, the catalog state. */
export interface UploadResult<R> {
  /** Something was written (201); `false`: the stored content was already identical (200). */
  readonly created: boolean;
  readonly record: R;
  /** The index or graph could not be updated now (`X-Catalog-Sync: deferred`). */
  readonly catalogDeferred: boolean;
}

/** The `upload-pdf` record (CONTRACT §9.3). */
export interface PdfUploadRecord {
  readonly preprint_id: string;
  readonly key: string;
  readonly pdf_path: string;
  readonly pdf_bytes: number;
  readonly pdf_sha256: string;
  readonly pdf_unchanged: boolean;
  readonly overwritten: boolean;
  readonly unchanged: boolean;
  /** Present only when `SVC_USER_HEADER` is configured and the request carries it. */
  readonly uploaded_by?: string;
}

export interface UploadPdfInput {
  readonly id: VersionedPreprintId;
  /** Lower-case hex, already validated. */
  readonly expectedSha256: string | null;
  readonly overwrite: boolean;
  readonly uploadedBy: string | null;
  readonly staged: StagedFile;
  /** The same bytes streamed into the store while staged (`PdfStream`), completed here once checked. */
  readonly stream?: PdfStream;
}

/** The object metadata of an upload besides `sha256` and `created-at`. */
export function uploadMetadata(uploadedBy: string | null): Record<string, string> {
  return uploadedBy !== null ? { 'uploaded-by': metadataValue(uploadedBy) } : {};
}

export function conflictError(path: string, existingSha256: string | null, newSha256: string): ConflictError {
  return new ConflictError(`${path} already exists with different content`, {
    fields: {
      existing_sha256: existingSha256,
      new_sha256: newSha256,
      existing_path: path,
      hint: 're-run with overwrite=true to replace it (the previous version is kept), or upload under a new version vN+1',
      ...(existingSha256 === null
        ? { note: 'existing object has no sha256 metadata; equality could not be checked' }
        : {}),
    },
  });
}

/** What an upload kind requires of its staged bytes before anything is written (CONTRACT §9.3–9.4). */
export interface StagedRules {
  readonly emptyDetail: string;
  readonly magic: Buffer;
  readonly wrongMagicDetail: string;
}

/** Checks a staged upload: not empty, the kind's magic bytes, and the client's `expected_sha256` if given. */
export function checkStaged(staged: StagedFile, rules: StagedRules, expectedSha256: string | null): void {
  if (staged.size === 0) throw new InvalidInputError(rules.emptyDetail);
  if (!staged.head.subarray(0, rules.magic.length).equals(rules.magic)) {
    throw new InvalidInputError(rules.wrongMagicDetail);
  }
  if (expectedSha256 !== null && expectedSha256 !== staged.sha256) {
    throw new InvalidInputError('sha256 mismatch', {
      fields: { expected_sha256: expectedSha256, actual_sha256: staged.sha256 },
    });
  }
}

const PDF_RULES: StagedRules = {
  emptyDetail: 'pdf upload was empty',
  magic: Buffer.from('%PDF-'),
  wrongMagicDetail: 'uploaded file does not look like a PDF (missing %PDF- header)',
};

/**
 * The upload's write: the streamed object when the store took it, else the staged file through `writePdf`. The
 * streamed copy is complete only if these very bytes were announced.
 */
async function writeUpload(
  store: ObjectStore,
  catalog: Catalog,
  write: PdfWrite,
  stream: PdfStream | undefined,
): Promise<PdfWriteOutcome> {
  if (stream === undefined) return writePdf(store, catalog, write);
  const streamed = await stream.finish(write.staged);
  if (streamed.status === 'none') return writePdf(store, catalog, write);
  const key = paperKeys(write.id).pdf;
  // The row's `pdf_uploaded_at` is the object's `created-at`: the instant the stream began (its metadata went out
  // with the request headers).
  const { createdAt } = stream;
  const streamedWrite = { ...write, now: () => createdAt };
  if (streamed.status === 'stored') {
    const catalogDeferred = await recordPdfWritten(catalog, streamedWrite, streamed.etag);
    return { key, status: 'written', overwritten: false, catalogDeferred };
  }
  // The store failed after the last byte: the object may be this request's. The staged write settles it, and its
  // "unchanged" (these bytes already there, where a HEAD found nothing as the stream began) is this request's write:
  // recorded, and answered as written. The etag stays unknown here (the next catalog sync reads it).
  const outcome = await writePdf(store, catalog, write);
  if (outcome.status !== 'unchanged') return outcome;
  const catalogDeferred = await recordPdfWritten(catalog, streamedWrite, null);
  return { key, status: 'written', overwritten: false, catalogDeferred };
}

export async function uploadPdf(
  store: ObjectStore,
  catalog: Catalog,
  input: UploadPdfInput,
): Promise<UploadResult<PdfUploadRecord>> {
  const { id, staged } = input;
  try {
    checkStaged(staged, PDF_RULES, input.expectedSha256);
    const write = {
      id,
      staged,
      overwrite: input.overwrite,
      metadata: uploadMetadata(input.uploadedBy),
      now: () => new Date(),
    };
    const outcome = await writeUpload(store, catalog, write, input.stream);
    if (outcome.status === 'conflict') throw conflictError(outcome.key, outcome.existingSha256, staged.sha256);
    const unchanged = outcome.status === 'unchanged';
    return {
      created: !unchanged,
      catalogDeferred: outcome.catalogDeferred,
      record: {
        preprint_id: id.id,
        key: id.stem,
        pdf_path: outcome.key,
        pdf_bytes: staged.size,
        pdf_sha256: staged.sha256,
        pdf_unchanged: unchanged,
        overwritten: outcome.status === 'written' && outcome.overwritten,
        unchanged,
        ...(input.uploadedBy !== null ? { uploaded_by: input.uploadedBy } : {}),
      },
    };
  } finally {
    await input.stream?.abort(); // a check failed first: the store must not complete the streamed object
    await staged.remove();
  }
}
