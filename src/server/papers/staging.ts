/**
 * Streams an upload to `<SVC_DATA_DIR>/tmp/` while hashing it; the size cap is measured while streaming.
 * Nothing is ever buffered whole in memory.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { HttpError } from '../../shared/errors.js';

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

/** The source stream failed (malformed or truncated request body, client abort). */
export class SourceStreamError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SourceStreamError';
  }
}

const HEAD_BYTES = 8;
const STALE_MS = 60 * 60 * 1000;

export class Stager {
  constructor(readonly dir: string) {}

  /** Creates the directory and removes leftovers of a crash (files older than 1 h). */
  async start(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const cutoff = Date.now() - STALE_MS;
    for (const name of await readdir(this.dir)) {
      if (!name.startsWith('upload-')) continue;
      const p = path.join(this.dir, name);
      try {
        if ((await stat(p)).mtimeMs < cutoff) await rm(p, { force: true });
      } catch {
        // already gone
      }
    }
  }

  /**
   * Consumes `source` to the end. Over `limit` bytes: stops writing, keeps draining the source (so the client
   * gets the answer), removes the file and throws 413 `{"detail":"<label> upload exceeds limit of <limit> bytes"}`.
   * A source error → `SourceStreamError` (file removed).
   */
  async stage(source: Readable, limit: number, label: string): Promise<StagedFile> {
    await mkdir(this.dir, { recursive: true });
    const file = path.join(this.dir, `upload-${randomBytes(12).toString('hex')}`);
    const remove = async () => {
      await rm(file, { force: true }).catch(() => undefined);
    };
    const hash = createHash('sha256');
    const headChunks: Buffer[] = [];
    let headLen = 0;
    let size = 0;
    let over = false;
    const handle = await open(file, 'wx');
    try {
      try {
        for await (const chunk of source as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (over) continue;
          if (size > limit) {
            over = true;
            continue;
          }
          if (headLen < HEAD_BYTES) {
            headChunks.push(chunk.subarray(0, HEAD_BYTES - headLen));
            headLen += Math.min(chunk.length, HEAD_BYTES - headLen);
          }
          hash.update(chunk);
          await handle.write(chunk);
        }
      } catch (err) {
        if (err instanceof HttpError) throw err;
        throw new SourceStreamError((err as Error).message, { cause: err });
      } finally {
        await handle.close();
      }
      if (over || (source as Readable & { truncated?: boolean }).truncated === true) {
        throw new HttpError(413, `${label} upload exceeds limit of ${limit} bytes`);
      }
    } catch (err) {
      await remove();
      throw err;
    }
    return { path: file, size, sha256: hash.digest('hex'), head: Buffer.concat(headChunks), remove };
  }
}
