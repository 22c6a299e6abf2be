import { createHash } from 'node:crypto';
import { fileChunks } from './file-chunks.js';

/** sha256 (hex) of a file, read in 1 MiB chunks (the next one is read while the current one is hashed). */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fileChunks(file)) hash.update(chunk);
  return hash.digest('hex');
}
