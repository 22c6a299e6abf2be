/**
 * Streams an upload to `<SVC_DATA_DIR>/tmp/` while hashing it; the size cap is measured while streaming.
 * Nothing is ever buffered whole in memory.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { finished, type Readable } from 'node:stream';
import { DomainError, TooLargeError, UnavailableError } from '../../shared/domain-errors.js';
import { ownedTempName, removeStaleTemps } from '../storage/temp-files.js';
import * as youngGarbage from '../storage/young-garbage.js';

/** A staged upload on disk. `remove()` is idempotent and never throws. */
export interface StagedFile {
  readonly path: string;
  readonly size: number;
  /** Lower-case hex sha256 of the whole content. */
  readonly sha256: string;
  /** The first bytes (up to 8) for magic checks. */
  readonly head: Buffer;
  remove(): Promise<void>;
}

/** Receives each chunk the stager accepts, in order; the stager waits for a returned promise (backpressure). */
export interface StageTee {
  write(chunk: Buffer): Promise<void> | void;
}

/** What a staged download is: a fetched PDF or a parser result zip (the 413 detail names it). */
export type StagedKind = 'pdf' | 'parser_zip';

/** Stages a download's body as an upload is staged (`PaperService.stageDownload`): paper access's one way in. */
export interface DownloadStager {
  stageDownload(source: Readable, limit: number, kind: StagedKind): Promise<StagedFile>;
}

/** The source stream failed (malformed or truncated request body, client abort). */
export class SourceStreamError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SourceStreamError';
  }
}

const HEAD_BYTES = 8;
const STALE_MS = 60 * 60 * 1000;
const PREFIX = 'upload-';
const WRITE_BATCH = 512 * 1024;

export class Stager {
  constructor(readonly dir: string) {}

  /**
   * Creates the directory and removes leftovers of a crash: staged files whose owning process (named in the file
   * name) is gone, and any staged file untouched for 1 h. Files of a live process sharing `SVC_DATA_DIR` (only
   * `serve` holds `pksd.lock`, and on `SVC_DB_DATA_DIR`) are left alone. Resolves to the names removed.
   */
  async start(): Promise<string[]> {
    await mkdir(this.dir, { recursive: true });
    return removeStaleTemps(this.dir, { prefix: PREFIX, maxAgeMs: STALE_MS });
  }

  /**
   * Consumes `source` to the end. Over `limit` bytes: stops writing, keeps draining the source (so the client
   * gets the answer), removes the file and throws 413 `{"detail":"<label> upload exceeds limit of <limit> bytes"}`.
   * A source error → `SourceStreamError` (file removed). The server failing to write (a full disk) is its own
   * condition, not the request's: 503 `cannot stage the upload: <reason>` (file removed). `tee` also gets every
   * chunk that is staged (none beyond the limit or after a failed write).
   */
  async stage(source: Readable, limit: number, label: string, tee?: StageTee): Promise<StagedFile> {
    await mkdir(this.dir, { recursive: true });
    const file = path.join(this.dir, ownedTempName(PREFIX));
    const remove = async () => {
      await rm(file, { force: true }).catch(() => undefined);
    };
    const hash = createHash('sha256');
    const headChunks: Buffer[] = [];
    let headLen = 0;
    let size = 0;
    let over = false;
    const handle = await open(file, 'wx').catch((err: unknown) => {
      throw stagingFailure(err);
    });
    // Parser chunks are small (busboy: ≤ 64 KiB); writing them in batches saves most of the per-write cost.
    let batch: Buffer[] = [];
    let batchLen = 0;
    const writeBatch = async () => {
      if (batchLen === 0) return;
      const buffers = batch;
      batch = [];
      batchLen = 0;
      await handle.writev(buffers); // one system call, no copy (a copy is 100 MiB more garbage per 100 MiB upload)
    };
    // A failed write (a full disk) stops writing but, like an oversized body, keeps draining the source, so the
    // client receives the answer and its connection stays usable.
    let writeError: unknown = null;
    const write = async () => {
      if (writeError !== null) return;
      await writeBatch().catch((err: unknown) => {
        writeError = err;
      });
    };
    try {
      try {
        for await (const chunk of chunksOf(source)) {
          size += chunk.length;
          youngGarbage.received(chunk.length);
          if (over) continue;
          if (size > limit) {
            over = true;
            continue;
          }
          if (writeError !== null) continue;
          if (headLen < HEAD_BYTES) {
            headChunks.push(chunk.subarray(0, HEAD_BYTES - headLen));
            headLen += Math.min(chunk.length, HEAD_BYTES - headLen);
          }
          hash.update(chunk);
          const teed = tee?.write(chunk);
          if (teed !== undefined) await teed;
          batch.push(chunk);
          batchLen += chunk.length;
          if (batchLen >= WRITE_BATCH) await write();
        }
        if (!over) await write();
      } catch (err) {
        if (err instanceof DomainError) throw err;
        throw new SourceStreamError((err as Error).message, { cause: err });
      } finally {
        await handle.close();
      }
      if (over || (source as Readable & { truncated?: boolean }).truncated === true) {
        throw new TooLargeError(`${label} upload exceeds limit of ${limit} bytes`);
      }
      if (writeError !== null) throw stagingFailure(writeError);
    } catch (err) {
      await remove();
      throw err;
    }
    return { path: file, size, sha256: hash.digest('hex'), head: Buffer.concat(headChunks), remove };
  }
}

/**
 * The chunks of `source` as they were pushed, with backpressure, ending or failing as the stream's async iterator
 * would. (That iterator reads everything buffered at once, concatenated: while the loop waits on a write, most of an
 * upload gets copied, as much garbage again.)
 */
async function* chunksOf(source: Readable): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  const end: { done: boolean; error?: Error | null } = { done: false };
  let wake: (() => void) | null = null;
  const notify = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  const onData = (chunk: Buffer) => {
    queue.push(chunk);
    source.pause();
    notify();
  };
  const stopWatching = finished(source, (err) => {
    end.done = true;
    end.error = err;
    notify();
  });
  source.on('data', onData);
  try {
    for (;;) {
      const chunk = queue.shift();
      if (chunk !== undefined) {
        yield chunk;
        continue;
      }
      if (end.done) {
        if (end.error) throw end.error;
        return;
      }
      const next = new Promise<void>((resolve) => (wake = resolve));
      source.resume();
      await next;
    }
  } finally {
    source.off('data', onData);
    stopWatching();
  }
}

/**
 * 503 for a write the server could not make. The reason is the OS's words without the file name that Node appends
 * (`ENOSPC: no space left on device, write` → `ENOSPC: no space left on device`), so no server path leaks.
 */
function stagingFailure(err: unknown): UnavailableError {
  const message = err instanceof Error ? err.message : String(err);
  return new UnavailableError(`cannot stage the upload: ${message.split(', ')[0]}`, { cause: err });
}
