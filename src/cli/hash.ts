import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

const CHUNK = 1024 * 1024;

/**
 * sha256 (hex) of a file, read in 1 MiB chunks into two reused buffers: the next chunk is read (on the thread
 * pool) while the current one is hashed, and no memory is allocated per chunk.
 */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(file, 'r');
  try {
    const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
    let offset = 0;
    let reading = handle.read(buffers[0]!, 0, CHUNK, offset);
    for (let n = 1; ; n++) {
      const { bytesRead, buffer } = await reading;
      if (bytesRead === 0) break;
      offset += bytesRead;
      reading = handle.read(buffers[n % 2]!, 0, CHUNK, offset);
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}
