/**
 * `filePartSize`: the size of the file part guessed from `Content-Length` and the part's opening, peeked from the
 * body — a number only for a body that opens with the named file part; the peeked bytes are always put back.
 */
import { Readable } from 'node:stream';
import { buffer as readAll } from 'node:stream/consumers';
import type { FastifyRequest } from 'fastify';
import { expect, it } from 'vitest';
import { filePartSize } from '../../../src/server/routes/papers/pdf-part-size.js';

const MiB = 1024 * 1024;
const FILE = 2 * MiB;
const BOUNDARY = '----pks7MA4YWxk';

interface Shape {
  contentType?: string;
  disposition?: string;
  preamble?: string;
  fileBytes?: number;
  contentLength?: boolean;
}

/** A one-part multipart body; its request as the route sees it (headers, and the raw body still unread). */
function request(shape: Shape) {
  const file = Buffer.alloc(shape.fileBytes ?? FILE, 'p');
  const disposition = shape.disposition ?? 'form-data; name="pdf"; filename="p.pdf"';
  const body = Buffer.concat([
    Buffer.from(
      `${shape.preamble ?? ''}--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n` +
        `Content-Type: application/pdf\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  const headers: Record<string, string> = {
    'content-type': shape.contentType ?? `multipart/form-data; boundary=${BOUNDARY}`,
  };
  if (shape.contentLength !== false) headers['content-length'] = String(body.length);
  // Arrives in 64 KiB reads, as from a socket.
  const chunks = Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) =>
    body.subarray(i * 65536, (i + 1) * 65536),
  );
  const raw = Readable.from(chunks, { objectMode: false });
  return { body, raw, req: { headers, raw } as unknown as FastifyRequest };
}

it.each<[string, Shape, number | null]>([
  ['a plain boundary', {}, FILE],
  ['a quoted boundary', { contentType: `multipart/form-data; boundary="${BOUNDARY}"` }, FILE],
  [
    'the boundary among other parameters',
    { contentType: `multipart/form-data; charset=utf-8; boundary=${BOUNDARY}; x=1` },
    FILE,
  ],
  ['extra disposition parameters', { disposition: 'form-data; name="pdf"; filename="p.pdf"; size=3' }, FILE],
  ['filename* (RFC 5987)', { disposition: 'form-data; name="pdf"; filename*=UTF-8\'\'p%C3%A9.pdf' }, FILE],
  ['a preamble before the first delimiter', { preamble: 'This is a preamble.\r\n' }, null],
  ['no filename (a field, not a file)', { disposition: 'form-data; name="pdf"' }, null],
  ['another field name', { disposition: 'form-data; name="pdfx"; filename="p.pdf"' }, null],
  ['a body under 1 MiB', { fileBytes: MiB - 1000 }, null],
  ['no Content-Length (chunked)', { contentLength: false }, null],
  ['no boundary', { contentType: 'multipart/form-data' }, null],
])('%s → %s', async (_name, shape, expected) => {
  const { body, raw, req } = request(shape);
  expect(await filePartSize(req, 'pdf')).toBe(expected);
  // Whatever was peeked is read again by the parser: the body is whole.
  expect((await readAll(raw)).equals(body)).toBe(true);
});
