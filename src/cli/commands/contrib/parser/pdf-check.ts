/** Step (3) of `contrib parser`: the PDF behind the claim's URL must be the one the server holds. */
import { createHash } from 'node:crypto';
import { send } from '../../../http/transport.js';

/** `null` when the bytes match, else the failure text. */
export async function checkPdfSha256(
  url: string,
  expected: string,
  options: { insecure: boolean; timeoutMs: number; signal?: AbortSignal },
): Promise<string | null> {
  const res = await send({
    url: new URL(url),
    method: 'GET',
    headers: { accept: 'application/pdf' },
    timeoutMs: options.timeoutMs,
    insecure: options.insecure,
    maxRedirects: 5,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (res.status !== 200) {
    res.discard();
    return `could not download ${url}: HTTP ${res.status} ${res.statusText}`.trimEnd();
  }
  const hash = createHash('sha256');
  for await (const chunk of res.stream as AsyncIterable<Buffer>) hash.update(chunk);
  const actual = hash.digest('hex');
  return actual === expected.toLowerCase()
    ? null
    : `PDF sha256 mismatch: ${url} served ${actual} but the server holds ${expected}`;
}
