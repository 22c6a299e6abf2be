/**
 * The paper-asset service: what the papers routes, paper access and ingest call (uploads, fetched PDFs, reads,
 * claims, stats, needs-parser). It owns the object store, the stager, the catalog and the claims: every PDF write
 * goes through `write-pdf.ts`, every other write through an operation here.
 */
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { PaperStats } from '../../shared/api/parser-claims.js';
import { ConflictError, NotFoundError, UnavailableError } from '../../shared/domain-errors.js';
import {
  legacyPaperKeys,
  paperKeys,
  preprintPdfUrl,
  type PreprintId,
  type VersionedPreprintId,
} from '../../shared/ids.js';
import type { Config } from '../config/types.js';
import {
  collect,
  type ByteRange,
  type GotObject,
  type ListedObject,
  type ObjectInfo,
  type ObjectStore,
} from '../storage/object-store.js';
import { rfc3339, storedSha256 } from '../storage/write.js';
import type { Catalog, PaperIndex } from './catalog.js';
import type { Claim, ClaimStore } from './claims.js';
import type { DownloadStager, Stager, StagedFile, StagedKind, StageTee } from './staging.js';
import { PdfStream, type AnnouncedPdf } from './pdf-stream.js';
import {
  PDF_UPLOAD_LIMIT,
  uploadMetadata,
  uploadPdf,
  type PdfUploadRecord,
  type UploadPdfInput,
  type UploadResult,
} from './upload-pdf.js';
import { PARSER_ZIP_LIMIT, uploadParser, type ParserUploadRecord, type UploadParserInput } from './upload-parser.js';
import { writePdf } from './write-pdf.js';

export interface PaperServiceDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: ObjectStore;
  readonly stager: Stager;
  readonly catalog: Catalog;
  readonly claims: ClaimStore;
}

export type UploadKind = StagedKind;

/** A PDF paper access fetched and stored (§11.5). */
export interface FetchedPdf {
  readonly key: string;
  readonly sha256: string | null;
  readonly bytes: number;
  /** A different PDF was stored first: that one stays and is the paper's PDF. */
  readonly reused: boolean;
}

/** A granted lease (CONTRACT §5.2). */
export interface ClaimRecord {
  readonly claim_id: string;
  readonly preprint_id: string;
  readonly key: string;
  readonly requester: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly ttl_seconds: number;
  readonly pdf_url: string;
  /** The stored PDF's sha256, when its metadata has one. */
  readonly pdf_sha256?: string;
}

/** One paper of the needs-parser queue (CONTRACT §9.2). */
export interface NeedsParserPaper {
  readonly preprint_id: string;
  readonly key: string;
  readonly pdf_path: string;
  readonly pdf_uploaded_at: string | null;
  readonly claimed: boolean;
  readonly claim_expires_at: string | null;
  readonly claim_requester: string | null;
}

export interface NeedsParserPage {
  readonly papers: NeedsParserPaper[];
  readonly returned: number;
  readonly total_unclaimed: number;
  readonly total_claimed: number;
  readonly available: boolean;
}

/** `needs-parser` while the index cannot be read (§9.2). */
const unavailableNeedsParser = (): NeedsParserPage => ({
  papers: [],
  returned: 0,
  total_unclaimed: 0,
  total_claimed: 0,
  available: false,
});

export class PaperService implements DownloadStager {
  private readonly store: ObjectStore;
  private readonly stager: Stager;
  private readonly catalog: Catalog;
  private readonly claims: ClaimStore;
  private readonly config: Config;
  private readonly logger: Logger;
  private readonly closers: (() => Promise<void>)[] = [];
  private metadataFill: ((versionless: string) => void) | null = null;

  constructor(deps: PaperServiceDeps) {
    this.config = deps.config;
    this.logger = deps.logger;
    this.store = deps.store;
    this.stager = deps.stager;
    this.catalog = deps.catalog;
    this.claims = deps.claims;
  }

  onClose(fn: () => Promise<void>): void {
    this.closers.push(fn);
  }

  async close(): Promise<void> {
    for (const fn of this.closers.splice(0)) await fn();
  }

  /** The metadata index (§4.2), for readers and the metadata cache; asset writes go through this service. */
  get index(): PaperIndex {
    return this.catalog.index;
  }

  /** Streams an upload part to the staging directory (413 measured while streaming), and to `tee` if given. */
  stage(kind: UploadKind, source: Readable, tee?: StageTee): Promise<StagedFile> {
    return this.stager.stage(source, kind === 'pdf' ? PDF_UPLOAD_LIMIT : PARSER_ZIP_LIMIT, kind, tee);
  }

  /**
   * Starts streaming an announced PDF upload into the store while it is staged (`PdfStream`); `null` when the
   * upload is staged only (the local backend, an object already at the key, a store that cannot be asked).
   */
  streamPdf(id: VersionedPreprintId, announced: AnnouncedPdf, uploadedBy: string | null): Promise<PdfStream | null> {
    return PdfStream.start(this.store, { id, metadata: uploadMetadata(uploadedBy) }, announced);
  }

  /** Streams a download (a fetched PDF, a parser result zip) to the staging directory under its own `limit`. */
  stageDownload(source: Readable, limit: number, kind: StagedKind): Promise<StagedFile> {
    return this.stager.stage(source, limit, kind);
  }

  /** Wires the metadata cache's background fill (§18.1); the composition root does, once both exist. */
  useMetadataFill(fill: (versionless: string) => void): void {
    this.metadataFill = fill;
  }

  /** Fills the paper's metadata cache in the background (§18.1: uploads and paper-access jobs); never throws. */
  fillMetadata(id: PreprintId): void {
    this.metadataFill?.(id.versionless);
  }

  async uploadPdf(input: UploadPdfInput): Promise<UploadResult<PdfUploadRecord>> {
    const result = await uploadPdf(this.store, this.catalog, input);
    this.fillMetadata(input.id);
    return result;
  }

  /**
   * Stores a PDF paper access fetched (§11.5) through the `upload-pdf` write path, tagged `source: preprint-fetch`;
   * the caller removes the staged file. A different PDF stored first (without `overwrite`) wins, and is the
   * paper's PDF: its sha256 and size are answered, `reused`.
   */
  async storeFetchedPdf(
    id: VersionedPreprintId,
    staged: Pick<StagedFile, 'path' | 'size' | 'sha256'>,
    options: { readonly overwrite: boolean; readonly now: () => Date },
  ): Promise<FetchedPdf> {
    const outcome = await writePdf(this.store, this.catalog, {
      id,
      staged,
      overwrite: options.overwrite,
      metadata: { source: 'preprint-fetch' },
      now: options.now,
    });
    const { key } = outcome;
    if (outcome.status !== 'conflict') return { key, sha256: staged.sha256, bytes: staged.size, reused: false };
    // Another writer stored different bytes first: it won, and the paper has a PDF (§11.5).
    const info = await this.store.head(key);
    return { key, sha256: info ? storedSha256(info.metadata) : null, bytes: info?.size ?? staged.size, reused: true };
  }

  uploadParser(input: Omit<UploadParserInput, 'pdf'>): Promise<UploadResult<ParserUploadRecord>> {
    return uploadParser(
      {
        store: this.store,
        catalog: this.catalog,
        claims: this.claims,
        logger: this.logger,
        findPdf: (id) => this.findPdf(id),
      },
      input,
    );
  }

  /** HEAD with the legacy read fallback (§3.2): app key first, then the legacy key for old-style ids. */
  private async headAsset(appKey: string, legacyKey: string | null): Promise<ObjectInfo | null> {
    const info = await this.store.head(appKey);
    if (info !== null || legacyKey === null) return info;
    return this.store.head(legacyKey);
  }

  findPdf(id: VersionedPreprintId): Promise<ObjectInfo | null> {
    return this.headAsset(paperKeys(id).pdf, legacyPaperKeys(id)?.pdf ?? null);
  }

  /**
   * A time-limited GET URL of the stored PDF for an outside party (§3.4, §11.6): `null` when no PDF is stored,
   * `url: null` when the store cannot hand out such URLs.
   */
  async presignPdf(id: VersionedPreprintId, ttlSeconds: number): Promise<{ readonly url: string | null } | null> {
    const pdf = await this.findPdf(id);
    if (pdf === null) return null;
    return { url: await this.store.presignGet(pdf.key, ttlSeconds) };
  }

  /** One stored object's read stream (images, markdown), `null` when absent; store failures are the store's errors. */
  readObject(key: string, range?: ByteRange): Promise<GotObject | null> {
    return this.store.get(key, range);
  }

  findMarkdown(id: VersionedPreprintId): Promise<ObjectInfo | null> {
    return this.headAsset(paperKeys(id).markdown, legacyPaperKeys(id)?.markdown ?? null);
  }

  /**
   * The paper's image objects (§3.2): the app-key prefix, or, when it holds none and the id is old-style, the
   * legacy prefix. Listing errors are fatal to the caller.
   */
  async listImages(id: VersionedPreprintId): Promise<ListedObject[]> {
    const images = await collect(this.store.list(paperKeys(id).imagesPrefix));
    const legacy = legacyPaperKeys(id);
    if (images.length > 0 || legacy === null) return images;
    return collect(this.store.list(legacy.imagesPrefix));
  }

  /** `POST parser-claim` (§5.2) after id validation. */
  async claim(id: VersionedPreprintId, requester: string, ttlSeconds: number): Promise<ClaimRecord> {
    const pdf = await this.findPdf(id);
    if (pdf === null) {
      throw new NotFoundError(`${id.id} cannot be claimed: no PDF stored; upload the PDF first (upload-pdf)`);
    }
    if ((await this.findMarkdown(id)) !== null) {
      throw new NotFoundError(`${id.id} cannot be claimed: markdown already exists`);
    }
    const result = await this.claims.acquire(id, requester, ttlSeconds, new Date());
    if (!result.ok) {
      throw new ConflictError(`${id.id} is already claimed`, {
        fields: {
          claim_id: result.existing.claim_id,
          // The original clients read a claim's id as `lease_id` (CONTRACT §19: every claim body carries it).
          lease_id: result.existing.claim_id,
          claim_expires_at: rfc3339(result.existing.expires_at),
          claim_requester: result.existing.requester,
        },
      });
    }
    const c = result.claim;
    const sha = storedSha256(pdf.metadata);
    return {
      claim_id: c.claim_id,
      preprint_id: c.preprint_id,
      key: c.key,
      requester: c.requester,
      created_at: rfc3339(c.created_at),
      expires_at: rfc3339(c.expires_at),
      ttl_seconds: c.ttl_seconds,
      pdf_url: preprintPdfUrl(this.config.preprint.baseUrl, id),
      ...(sha !== null ? { pdf_sha256: sha } : {}),
    };
  }

  /** The unexpired parser claims by preprint id (§5.1); a claim-store failure is the claim store's 503. */
  activeClaims(now: Date): Promise<Map<string, Claim>> {
    return this.claims.active(now);
  }

  /** `DELETE parser-claim/{claim_id}` (§5.3). */
  async releaseClaim(id: VersionedPreprintId, claimId: string): Promise<void> {
    const result = await this.claims.release(id, claimId, new Date());
    if (result === 'mismatch') throw new ConflictError('claim_id does not match the active claim');
  }

  /** `GET /api/papers/stats` (§4.3). */
  stats(): PaperStats {
    const s = this.catalog.index.stats();
    if (!s.available) return { available: false };
    return {
      available: true,
      total: s.total ?? 0,
      has_pdf: s.has_pdf ?? 0,
      has_md: s.has_md ?? 0,
      has_json: s.has_json ?? 0,
      needs_parser: s.needs_parser ?? 0,
      total_images: s.total_images ?? 0,
      loaded_at: s.loaded_at ? rfc3339(s.loaded_at) : null,
    };
  }

  /**
   * `GET /api/papers/needs-parser` (§9.2). The index keeps the candidates in order and counted, so a request costs
   * O(limit + active claims), whatever the size of the index.
   */
  async needsParser(limit: number, includeClaimed: boolean): Promise<NeedsParserPage> {
    const index = this.catalog.index;
    if (!index.available) return unavailableNeedsParser();
    const claims = await this.claims.active(new Date());
    let totalClaimed = 0;
    let total: number;
    let papers: NeedsParserPaper[];
    try {
      for (const id of claims.keys()) if (index.isNeedsParser(id)) totalClaimed++;
      total = index.needsParserCount;
      papers = this.needsParserPage(limit, includeClaimed, claims);
    } catch (err) {
      // The index file failed to decode under this request (or while it awaited the claims): the index is
      // unavailable now, answered as such.
      if (err instanceof UnavailableError) return unavailableNeedsParser();
      throw err;
    }
    return {
      papers,
      returned: papers.length,
      total_unclaimed: total - totalClaimed,
      total_claimed: totalClaimed,
      available: true,
    };
  }

  private needsParserPage(
    limit: number,
    includeClaimed: boolean,
    claims: ReadonlyMap<string, Claim>,
  ): NeedsParserPaper[] {
    const papers: NeedsParserPaper[] = [];
    for (const r of this.catalog.index.needsParser()) {
      if (papers.length >= limit) break;
      const claim = claims.get(r.preprint_id) ?? null;
      if (claim && !includeClaimed) continue;
      papers.push({
        preprint_id: r.preprint_id,
        key: r.key,
        pdf_path: `pdf/${r.yymm}/${r.key}.pdf`,
        pdf_uploaded_at: r.pdf_uploaded_at ? rfc3339(r.pdf_uploaded_at) : null,
        claimed: claim !== null,
        claim_expires_at: claim ? rfc3339(claim.expires_at) : null,
        claim_requester: claim ? claim.requester : null,
      });
      if (papers.length >= limit) break; // no row read past the page (an opened index decodes its row group)
    }
    return papers;
  }
}
