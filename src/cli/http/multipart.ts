/** A `multipart/form-data` body with one file part, read from disk while it is sent (again on a retry). */
import { randomBytes } from 'node:crypto';
import type { PartsBody } from './transport.js';

export interface MultipartFile {
  readonly body: PartsBody;
  readonly contentType: string;
}

export function fileMultipart(
  field: string,
  file: string,
  size: number,
  filename: string,
  partType: string,
): MultipartFile {
  const boundary = `----pks-${randomBytes(12).toString('hex')}`;
  const safeName = filename.replace(/["\r\n\\]/g, '_');
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${safeName}"\r\n` +
      `Content-Type: ${partType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    body: { length: head.length + size + tail.length, parts: [head, { path: file, size }, tail] },
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
