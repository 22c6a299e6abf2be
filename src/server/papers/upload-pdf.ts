/**
 * `upload-pdf` steps 5–7 (CONTRACT §9.3) on a staged file: empty / magic checks, hash check, conditional write,
 * catalog write-through.
 */
import { HttpError } from '../../shared/errors.js';
import { paperKeys, type VersionedPreprintId } from '../../shared/ids.js';
import type { ObjectStore } from '../storage/object-store.js';
import { toHttpError, writeObject, type WriteOutcome } from '../storage/write.js';
import type { Catalog } from './catalog.js';
import type { StagedFile } from './staging.js';

export const PDF_UPLOAD_LIMIT = 104_857_600;

export interface UploadResult {
  readonly status: 200 | 201;
  readonly body: Record<string, unknown>;
  /** Send `X-Catalog-Sync: deferred`. */
  readonly catalogDeferred: boolean;
}

export interface UploadPdfInput {
  readonly id: VersionedPreprintId;
  /** Lower-case hex, already validated. */
  readonly expectedSha256: string | null;
  readonly overwrite: boolean;
  readonly uploadedBy: string | null;
  readonly staged: StagedFile;
}

export function conflictError(path: string, existingSha256: string | null, newSha256: string): HttpError {
  return new HttpError(409, {
    detail: `${path} already exists with different content`,
    existing_sha256: existingSha256,
    new_sha256: newSha256,
    existing_path: path,
    hint: 're-run with overwrite=true to replace it (the previous version is kept), or upload under a new version vN+1',
    ...(existingSha256 === null
      ? { note: 'existing object has no sha256 metadata; equality could not be checked' }
      : {}),
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
  if (staged.size === 0) throw new HttpError(400, rules.emptyDetail);
  if (!staged.head.subarray(0, rules.magic.length).equals(rules.magic))
    throw new HttpError(400, rules.wrongMagicDetail);
  if (expectedSha256 !== null && expectedSha256 !== staged.sha256) {
    throw new HttpError(400, {
      detail: 'sha256 mismatch',
      expected_sha256: expectedSha256,
      actual_sha256: staged.sha256,
    });
  }
}

const PDF_RULES: StagedRules = {
  emptyDetail: 'pdf upload was empty',
  magic: Buffer.from('%PDF-'),
  wrongMagicDetail: 'uploaded file does not look like a PDF (missing %PDF- header)',
};

/** Runs a store call, mapping store failures to 500 `object store error: …`. */
export async function storeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toHttpError(err);
  }
}

export async function uploadPdf(store: ObjectStore, catalog: Catalog, input: UploadPdfInput): Promise<UploadResult> {
  const { id, staged } = input;
  try {
    checkStaged(staged, PDF_RULES, input.expectedSha256);
    const key = paperKeys(id).pdf;
    const outcome: WriteOutcome = await storeCall(() =>
      writeObject(
        store,
        key,
        { path: staged.path, size: staged.size },
        {
          sha256: staged.sha256,
          contentType: 'application/pdf',
          overwrite: input.overwrite,
          metadata: input.uploadedBy !== null ? { 'uploaded-by': input.uploadedBy } : {},
        },
      ),
    );
    if (outcome.status === 'conflict') throw conflictError(key, outcome.existingSha256, staged.sha256);
    const unchanged = outcome.status === 'unchanged';
    const catalogDeferred = unchanged
      ? !catalog.index.available
      : await catalog.recordWrite(id, {
          has_pdf: true,
          pdf_size_bytes: staged.size,
          pdf_sha256: staged.sha256,
          pdf_etag: outcome.etag,
          pdf_uploaded_at: new Date(),
        });
    return {
      status: unchanged ? 200 : 201,
      catalogDeferred,
      body: {
        preprint_id: id.id,
        key: id.stem,
        pdf_path: key,
        pdf_bytes: staged.size,
        pdf_sha256: staged.sha256,
        pdf_unchanged: unchanged,
        overwritten: outcome.status === 'written' && outcome.overwritten,
        unchanged,
        ...(input.uploadedBy !== null ? { uploaded_by: input.uploadedBy } : {}),
      },
    };
  } finally {
    await staged.remove();
  }
}
