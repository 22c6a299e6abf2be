import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** sha256 (hex) of a file, read in 1 MiB chunks. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
