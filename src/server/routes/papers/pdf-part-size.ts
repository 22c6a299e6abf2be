/**
 * The size of an upload's file part, read from the request before the multipart parser sees it, for streaming the
 * file into the store with its length known (`PdfStream`). When the body opens with the part (`--<boundary>`, its
 * headers) and the request has a `Content-Length`, the file is everything between the headers and the closing
 * delimiter that `pks`, curl, browsers and the usual libraries send: `\r\n--<boundary>--\r\n`. This is a guess
 * that the staged bytes must confirm (another part after the file, or a different epilogue, makes it wrong, and
 * the upload is then only staged); the bytes read are put back for the parser.
 */
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';

/** The part headers must arrive within the first bytes; a longer preamble is not worth waiting for. */
const PEEK_LIMIT = 16 * 1024;
/** Smaller bodies are staged only: streaming saves little there, and the body cannot end while peeked. */
const MIN_LENGTH = 1024 * 1024;

export async function filePartSize(request: FastifyRequest, field: string): Promise<number | null> {
  const length = Number(request.headers['content-length']);
  const boundary = boundaryOf(request.headers['content-type'] ?? '');
  if (!Number.isSafeInteger(length) || length < MIN_LENGTH || boundary === null) return null;
  const head = await peek(request.raw, (bytes) => bytes.includes('\r\n\r\n') || bytes.length >= PEEK_LIMIT);
  const opening = `--${boundary}\r\n`;
  const end = head.indexOf('\r\n\r\n');
  if (end < 0 || !head.subarray(0, opening.length).equals(Buffer.from(opening))) return null;
  const headers = head.subarray(opening.length, end).toString('latin1');
  if (!isFilePart(headers, field)) return null;
  const size = length - (end + 4) - `\r\n--${boundary}--\r\n`.length;
  return size > 0 ? size : null;
}

function boundaryOf(contentType: string): string | null {
  const match = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2] ?? null;
}

function isFilePart(headers: string, field: string): boolean {
  const disposition = /^content-disposition:\s*form-data\s*;(.*)$/im.exec(headers)?.[1] ?? '';
  const name = /(?:^|;)\s*name="?([^";]*)"?/i.exec(disposition)?.[1];
  return name === field && /(?:^|;)\s*filename\*?=/i.test(disposition);
}

/**
 * Reads chunks until `enough(bytes)` or the end of the body, then puts them back (`unshift`) and returns them; the
 * stream is left paused with nothing consumed.
 */
async function peek(source: Readable, enough: (bytes: Buffer) => boolean): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = Buffer.alloc(0);
  await new Promise<void>((resolve) => {
    const take = () => {
      let chunk: Buffer | null;
      while ((chunk = source.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        bytes = Buffer.concat(chunks);
        if (enough(bytes)) return done();
      }
    };
    const done = () => {
      source.off('readable', take);
      source.off('end', done);
      source.off('error', done);
      source.off('close', done);
      resolve();
    };
    source.on('readable', take);
    source.once('end', done);
    source.once('error', done);
    source.once('close', done);
    take();
  });
  if (bytes.length > 0 && !source.readableEnded) source.unshift(bytes);
  return bytes;
}
