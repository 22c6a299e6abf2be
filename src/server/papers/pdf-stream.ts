/**
 * An uploaded PDF streamed into the store while it is staged, when its size and sha256 are announced before its
 * bytes (`expected_sha256`, and a size read from the request): one conditional `PutObject` of the announced length
 * instead of staging first and writing after. The last chunk is held back until the staged file proves the
 * announcement (size, sha256, `%PDF-`), so a store never completes an object the upload would reject; anything
 * else (a wrong guess, a mismatch, a truncated body, a store failure, a concurrent writer) aborts the request and
 * the upload takes the staged path as before.
 */
import { PassThrough } from 'node:stream';
import { paperKeys, type VersionedPreprintId } from '../../shared/ids.js';
import type { ObjectStore } from '../storage/object-store.js';
import { putOptions } from '../storage/write.js';
import type { StagedFile, StageTee } from './staging.js';

/** What the client announced: the PDF's exact size and sha256 (lower-case hex). */
export interface AnnouncedPdf {
  readonly size: number;
  readonly sha256: string;
}

/**
 * What the streamed write did. `none`: this stream stored nothing (aborted before its last byte, or a 412: another
 * object is there). `unknown`: the store failed after the last byte went out, so the object may be this request's.
 */
export type StreamedWrite =
  | { readonly status: 'stored'; readonly etag: string | null }
  | { readonly status: 'none' }
  | { readonly status: 'unknown' };

const NONE: StreamedWrite = { status: 'none' };

export interface PdfStreamTarget {
  readonly id: VersionedPreprintId;
  readonly metadata: Readonly<Record<string, string>>;
}

// The socket-side buffer between the stager and the store request (backpressure beyond it).
const BODY_HWM = 1 << 20;

export class PdfStream implements StageTee {
  private readonly body = new PassThrough({ highWaterMark: BODY_HWM });
  private readonly controller = new AbortController();
  private readonly result: Promise<StreamedWrite>;
  /**
   * The object's `created-at`: the metadata travels in the request headers, so it is the instant the upload began
   * to stream (the catalog's `pdf_uploaded_at` for this object is the same instant).
   */
  readonly createdAt = new Date();
  /** The newest chunk, not yet sent: the store must not see the last byte before the checks. */
  private held: Buffer | null = null;
  private sent = 0;
  /** The whole body went out: the store decides now, aborting no longer applies. */
  private ended = false;
  private stopped = false;

  private constructor(
    put: NonNullable<ObjectStore['putStreamIfAbsent']>,
    key: string,
    private readonly announced: AnnouncedPdf,
    metadata: Readonly<Record<string, string>>,
  ) {
    const options = putOptions({
      sha256: announced.sha256,
      contentType: 'application/pdf',
      metadata,
      now: () => this.createdAt,
    });
    this.result = put(key, this.body, announced.size, options, this.controller.signal).then(
      (put): StreamedWrite => (put === null ? NONE : { status: 'stored', etag: put.etag }),
      (): StreamedWrite => (this.ended ? { status: 'unknown' } : NONE),
    );
    // A request that ended early (a 412, a store failure) reads no more: stop feeding it and release a waiting write.
    void this.result.then(() => this.stop());
  }

  /**
   * Starts the streamed write when it can help: a store that streams, a positive announced size, and no object at
   * the key yet (an existing one takes the staged path, which answers unchanged, conflict or overwrite). `null`:
   * stage only.
   */
  static async start(store: ObjectStore, target: PdfStreamTarget, announced: AnnouncedPdf): Promise<PdfStream | null> {
    if (store.putStreamIfAbsent === undefined || announced.size <= 0) return null;
    const key = paperKeys(target.id).pdf;
    // A store that cannot answer now fails the staged write, with that write's error.
    const existing = await store.head(key).catch(() => undefined);
    if (existing !== null) return null;
    return new PdfStream(store.putStreamIfAbsent.bind(store), key, announced, target.metadata);
  }

  write(chunk: Buffer): Promise<void> | void {
    if (this.stopped || chunk.length === 0) return;
    if (this.sent + (this.held?.length ?? 0) + chunk.length > this.announced.size) {
      void this.abort(); // more bytes than announced
      return;
    }
    const previous = this.held;
    this.held = chunk;
    if (previous === null) return;
    this.sent += previous.length;
    if (this.body.write(previous)) return;
    return new Promise((resolve) => {
      const done = () => {
        this.body.off('drain', done);
        this.body.off('close', done);
        resolve();
      };
      this.body.on('drain', done);
      this.body.on('close', done);
    });
  }

  /**
   * Completes the write when the staged file is exactly what was announced (the caller has checked it is a PDF):
   * the held chunk goes out and the store's answer comes back.
   */
  async finish(staged: Pick<StagedFile, 'size' | 'sha256'>): Promise<StreamedWrite> {
    const complete =
      !this.stopped &&
      this.held !== null &&
      this.sent + this.held.length === this.announced.size &&
      staged.size === this.announced.size &&
      staged.sha256 === this.announced.sha256;
    if (!complete) {
      await this.abort();
      return NONE;
    }
    this.ended = true;
    this.body.end(this.held);
    this.held = null;
    return this.result;
  }

  /** Aborts the store request before its last byte (idempotent); resolves once the request has ended. */
  async abort(): Promise<void> {
    if (!this.ended) this.controller.abort();
    this.stop();
    await this.result;
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.held = null;
    this.body.destroy();
  }
}
