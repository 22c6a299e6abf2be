/**
 * `upload-parser` (CONTRACT §9.4) on a staged zip: hash, PDF presence and hash, zip validation (all before any
 * write), conflict pre-check, writes (images first, markdown last as the completion marker), claim release and
 * catalog write-through.
 */
import type { Logger } from 'pino';
import { InvalidInputError, NotFoundError } from '../../shared/domain-errors.js';
import { imageKey, paperKeys, type VersionedPreprintId } from '../../shared/ids.js';
import { contentTypeFor } from '../storage/keys.js';
import { collect, type ObjectInfo, type ObjectStore } from '../storage/object-store.js';
import { checkTarget, metadataValue, storedSha256, writeObject, type WriteOutcome } from '../storage/write.js';
import type { Catalog } from './catalog.js';
import type { ClaimStore } from './claims.js';
import type { StagedFile } from './staging.js';
import { checkStaged, conflictError, type StagedRules, type UploadResult } from './upload-pdf.js';
import { validateBundle, ZIP_LIMITS, type ZipLimits } from './zip-bundle.js';

export const PARSER_ZIP_LIMIT = 209_715_200;

export interface UploadParserDeps {
  readonly store: ObjectStore;
  readonly catalog: Catalog;
  readonly claims: ClaimStore;
  readonly logger: Logger;
  findPdf(id: VersionedPreprintId): Promise<ObjectInfo | null>;
  readonly zipLimits?: ZipLimits;
}

export interface UploadParserInput {
  readonly id: VersionedPreprintId;
  readonly expectedSha256: string | null;
  readonly pdfSha256: string | null;
  readonly overwrite: boolean;
  /** Free label, already truncated to 64 characters. */
  readonly source: string | null;
  readonly uploadedBy: string | null;
  readonly staged: StagedFile;
}

/** The `upload-parser` record (CONTRACT §9.4). */
export interface ParserUploadRecord {
  readonly preprint_id: string;
  readonly key: string;
  readonly markdown_path: string;
  readonly markdown_bytes: number;
  readonly markdown_sha256: string;
  readonly markdown_unchanged: boolean;
  readonly image_count: number;
  readonly images_path: string;
  readonly images_written: number;
  readonly images_unchanged: number;
  readonly zip_bytes: number;
  readonly zip_sha256: string;
  readonly source: string | null;
  readonly uploaded_by: string | null;
  readonly overwritten: boolean;
  readonly unchanged: boolean;
}

const ZIP_RULES: StagedRules = {
  emptyDetail: 'parser_zip upload was empty',
  magic: Buffer.from('PK'),
  wrongMagicDetail: 'payload is not a zip archive (missing PK signature)',
};

export async function uploadParser(
  deps: UploadParserDeps,
  input: UploadParserInput,
): Promise<UploadResult<ParserUploadRecord>> {
  const { store, catalog } = deps;
  const { id, staged } = input;
  try {
    checkStaged(staged, ZIP_RULES, input.expectedSha256);
    const pdf = await deps.findPdf(id);
    if (pdf === null) throw new NotFoundError(`${id.id} has no stored PDF; upload the PDF first (upload-pdf)`);
    const catalogPdfSha = storedSha256(pdf.metadata);
    if (input.pdfSha256 !== null && catalogPdfSha !== null && input.pdfSha256 !== catalogPdfSha) {
      throw new InvalidInputError('pdf_sha256 does not match the stored PDF', {
        fields: { claimed_pdf_sha256: input.pdfSha256, catalog_pdf_sha256: catalogPdfSha },
      });
    }

    const bundle = await validateBundle(staged.path, staged.size, deps.zipLimits ?? ZIP_LIMITS);
    try {
      const keys = paperKeys(id);
      const targets = [
        { key: keys.markdown, file: bundle.markdown },
        ...bundle.images.map((img) => ({ key: imageKey(id, img.file), file: img })),
      ];

      // Pre-check every target without writing: the first conflict answers 409 unless overwrite.
      if (!input.overwrite) {
        for (const t of targets) {
          const state = await checkTarget(store, t.key, t.file.sha256);
          if (state.state === 'different') throw conflictError(t.key, state.existingSha256, t.file.sha256);
        }
      }

      const metadata: Record<string, string> = {
        ...(input.uploadedBy !== null ? { 'uploaded-by': metadataValue(input.uploadedBy) } : {}),
        ...(input.source !== null ? { source: metadataValue(input.source) } : {}),
      };
      const write = async (key: string, file: typeof bundle.markdown): Promise<WriteOutcome> => {
        const bytes = await bundle.read(file);
        const outcome = await writeObject(store, key, bytes, {
          sha256: file.sha256,
          contentType: contentTypeFor(key),
          overwrite: input.overwrite,
          metadata,
        });
        if (outcome.status === 'conflict') throw conflictError(key, outcome.existingSha256, file.sha256);
        return outcome;
      };

      // Images first, then markdown last: the markdown is the completion marker.
      let imagesWritten = 0;
      let imagesUnchanged = 0;
      let overwritten = false;
      for (const img of bundle.images) {
        const outcome = await write(imageKey(id, img.file), img);
        if (outcome.status === 'written') {
          imagesWritten++;
          overwritten ||= outcome.overwritten;
        } else imagesUnchanged++;
      }
      if (input.overwrite) {
        const wanted = new Set(bundle.images.map((img) => imageKey(id, img.file)));
        const stored = await collect(store.list(keys.imagesPrefix));
        for (const obj of stored) {
          if (wanted.has(obj.key)) continue;
          await store.delete(obj.key);
          overwritten = true;
        }
      }
      const md = await write(keys.markdown, bundle.markdown);
      if (md.status === 'written') overwritten ||= md.overwritten;
      const markdownUnchanged = md.status === 'unchanged';
      const unchanged = markdownUnchanged && imagesWritten === 0 && !overwritten;

      // A successful upload releases the paper's claim whatever its id.
      await deps.claims
        .clear(id)
        .catch((err: unknown) =>
          deps.logger.warn(
            { err: (err as Error).message, preprint_id: id.id },
            'could not delete the claim after upload-parser',
          ),
        );

      let catalogDeferred = !catalog.index.available;
      if (!unchanged) {
        const images = await collect(store.list(keys.imagesPrefix));
        const now = new Date();
        catalogDeferred = await catalog.recordWrite(id, {
          has_md: true,
          md_size_bytes: bundle.markdown.size,
          md_sha256: bundle.markdown.sha256,
          ...(md.status === 'written' ? { md_etag: md.etag, md_uploaded_at: now } : {}),
          image_count: images.length,
          images_size_bytes: images.reduce((n, o) => n + o.size, 0),
          ...(imagesWritten > 0 || overwritten ? { images_uploaded_at: now } : {}),
        });
      }

      return {
        created: !unchanged,
        catalogDeferred,
        record: {
          preprint_id: id.id,
          key: id.stem,
          markdown_path: keys.markdown,
          markdown_bytes: bundle.markdown.size,
          markdown_sha256: bundle.markdown.sha256,
          markdown_unchanged: markdownUnchanged,
          image_count: bundle.images.length,
          images_path: keys.imagesPrefix,
          images_written: imagesWritten,
          images_unchanged: imagesUnchanged,
          zip_bytes: staged.size,
          zip_sha256: staged.sha256,
          source: input.source,
          uploaded_by: input.uploadedBy,
          overwritten,
          unchanged,
        },
      };
    } finally {
      bundle.close();
    }
  } finally {
    await staged.remove();
  }
}
