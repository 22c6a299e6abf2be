/**
 * Gzip JSON Lines, read as a stream: one callback per line with the line's exact bytes (without the `\n`), never
 * holding more than a chunk and one line in memory.
 */
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

const NEWLINE = 0x0a;
/** Inflated bytes per chunk: fewer, larger chunks cost less per byte. */
const CHUNK = 256 * 1024;

export interface LineScan {
  /** Lines seen (including the one being read when an error happened). */
  readonly lines: number;
  /** Uncompressed bytes. */
  readonly bytes: number;
}

/** The gzip stream failed to decode (corrupt or truncated data); `lines` complete lines had been read. */
export class GzipDecodeError extends Error {
  constructor(
    readonly reason: string,
    readonly lines: number,
  ) {
    super(reason);
    this.name = 'GzipDecodeError';
  }
}

/**
 * Inflates `compressed` and calls `onLine(bytes, lineNumber)` for every non-empty line (1-based numbers).
 * `afterChunk` runs after each inflated chunk's lines and is awaited (the place to wait for a writer to drain).
 * A line buffer stays valid until the `afterChunk` that follows it has resolved.
 */
export async function scanGzipLines(
  compressed: Readable,
  onLine: (line: Buffer, lineNumber: number) => void,
  afterChunk?: () => Promise<void> | void,
): Promise<LineScan> {
  const gunzip = createGunzip({ chunkSize: CHUNK });
  compressed.on('error', (err) => gunzip.destroy(err));
  compressed.pipe(gunzip);
  let lineNumber = 0;
  let bytes = 0;
  let rest: Buffer | null = null;
  const emit = (line: Buffer): void => {
    lineNumber++;
    if (line.length > 0 && !(line.length === 1 && line[0] === 0x0d)) onLine(line, lineNumber);
  };
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      let start = 0;
      let nl = chunk.indexOf(NEWLINE);
      if (rest !== null && nl >= 0) {
        emit(Buffer.concat([rest, chunk.subarray(0, nl)]));
        rest = null;
        start = nl + 1;
        nl = chunk.indexOf(NEWLINE, start);
      }
      if (rest === null) {
        for (; nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
          emit(chunk.subarray(start, nl));
          start = nl + 1;
        }
      }
      if (start < chunk.length)
        rest = rest === null ? Buffer.from(chunk.subarray(start)) : Buffer.concat([rest, chunk]);
      await afterChunk?.();
    }
  } catch (err) {
    if (isZlibError(err)) throw new GzipDecodeError((err as Error).message, lineNumber);
    throw err;
  } finally {
    compressed.unpipe(gunzip);
    compressed.destroy();
  }
  if (rest !== null) emit(rest);
  return { lines: lineNumber, bytes };
}

function isZlibError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code === 'ERR_ZLIB_INITIALIZATION_FAILED');
}
