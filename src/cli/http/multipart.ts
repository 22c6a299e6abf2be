/** A `multipart/form-data` body with one file part, streamed from disk (re-openable for retries). */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { RequestBody } from './transport.js';

export interface MultipartFile {
  readonly body: RequestBody;
  readonly contentType: string;
}

const CHUNK = 1024 * 1024;

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
  async function* chunks(): AsyncGenerator<Buffer> {
    yield head;
    for await (const chunk of createReadStream(file, { highWaterMark: CHUNK })) yield chunk as Buffer;
    yield tail;
  }
  return {
    body: { length: head.length + size + tail.length, open: () => Readable.from(chunks(), { objectMode: false }) },
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
