import { open } from 'node:fs/promises';

const CHUNK = 1024 * 1024;

/**
 * The bytes of a file (its first `limit` bytes, or up to its end) in 1 MiB chunks through two reused buffers: the
 * next chunk is read (on the thread pool) while the caller works on the current one, and nothing is allocated per
 * chunk. A yielded chunk stays valid until the caller asks for the one after next, so a caller must be done with
 * it (hashed, or taken by the socket) before it continues the loop.
 */
export async function* fileChunks(file: string, limit = Number.POSITIVE_INFINITY): AsyncGenerator<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
    let offset = 0;
    const readInto = (buffer: Buffer) => handle.read(buffer, 0, Math.min(CHUNK, limit - offset), offset);
    let reading = offset < limit ? readInto(buffers[0]!) : null;
    for (let n = 1; reading !== null; n++) {
      const { bytesRead, buffer } = await reading;
      if (bytesRead === 0) return;
      offset += bytesRead;
      reading = offset < limit ? readInto(buffers[n % 2]!) : null;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
