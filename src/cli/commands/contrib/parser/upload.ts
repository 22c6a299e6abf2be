/** Step (7) of `contrib parser`: the parser's result zip to `upload-parser` (CONTRACT §9.4). */
import { stat } from 'node:fs/promises';
import type { ApiClient } from '../../../http/api-client.js';
import { jsonObject } from '../../../http/json-body.js';
import { fileMultipart } from '../../../http/multipart.js';
import type { ByteMeter } from '../../../progress/line.js';
import { encodePaperId, renderBody } from '../../paper/access.js';
import type { Claim } from './claims.js';

export type UploadOutcome =
  { readonly ok: true; readonly body: unknown } | { readonly ok: false; readonly message: string };

export async function uploadParserZip(
  api: ApiClient,
  claim: Claim,
  zip: string,
  options: { overwrite: boolean; pdfSha256: string | undefined; meter?: ByteMeter; signal?: AbortSignal },
): Promise<UploadOutcome> {
  const { size } = await stat(zip);
  const form = fileMultipart('parser_zip', zip, size, `${claim.key}.zip`, 'application/zip');
  const res = await api.request('POST', `/api/papers/${encodePaperId(claim.preprint_id)}/upload-parser`, {
    kind: 'write',
    query: {
      source: 'pks-cli',
      overwrite: options.overwrite ? 'true' : undefined,
      pdf_sha256: options.pdfSha256,
    },
    body: form.body,
    headers: { 'content-type': form.contentType },
    ...(options.meter ? { onUploadProgress: (n: number) => options.meter!.update(n) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await res.text();
  if (res.status >= 200 && res.status < 300) return { ok: true, body: jsonObject(res, text) };
  return {
    ok: false,
    message: `Upload failed: HTTP ${res.status} ${res.statusText}\n${renderBody(text).trimEnd()}`,
  };
}
