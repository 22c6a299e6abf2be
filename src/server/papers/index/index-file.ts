/**
 * The encoded index written to a file while it is hashed: what `ObjectStore.writeIndexFile` publishes, so the file
 * is never held whole in memory nor read again to hash it. The encoder worker writes with blocking calls (its
 * thread has nothing else to run); the in-place encoder with asynchronous ones (it runs on the event loop).
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { IndexFile } from '../../storage/object-store.js';
import type { PieceSink } from './parquet-write.js';

class Digest {
  private readonly hash = createHash('sha256');
  size = 0;

  add(piece: Uint8Array): void {
    this.hash.update(piece);
    this.size += piece.length;
  }

  file(path: string): IndexFile {
    return { path, size: this.size, sha256: this.hash.digest('hex') };
  }
}

/** Creates `path` (which must not exist) and writes to it what `write` gives its sink, with blocking writes. */
export function writeIndexFileSync(path: string, write: (sink: PieceSink) => void): IndexFile {
  const fd = openSync(path, 'wx');
  const digest = new Digest();
  try {
    write((piece) => {
      digest.add(piece);
      for (let at = 0; at < piece.length;) at += writeSync(fd, piece, at);
    });
  } finally {
    closeSync(fd);
  }
  return digest.file(path);
}

/** Creates `path` (which must not exist) and writes to it what `write` gives its sink, without blocking. */
export async function writeIndexFile(path: string, write: (sink: PieceSink) => Promise<void>): Promise<IndexFile> {
  const handle = await open(path, 'wx');
  const digest = new Digest();
  try {
    await write(async (piece) => {
      digest.add(piece);
      for (let at = 0; at < piece.length;) at += (await handle.write(piece, at)).bytesWritten;
    });
  } finally {
    await handle.close();
  }
  return digest.file(path);
}
