/**
 * Multipart upload bodies (CONTRACT §9.3 steps 3–5) against a reference model, through a real pksd: generated
 * bodies — random boundary, the `pdf` file part among text fields (one also named `pdf`), other files and later `pdf`
 * parts, sent in random chunks — store exactly the bytes of the first `pdf` file part; without one the answer is 400
 * `missing 'pdf' multipart part`. Any damaged body is a 4xx, never a 5xx, and leaves no staged file behind.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

const PAT = 'multipart-property-pat';
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

let server: TestServer;
let next = 0;
beforeAll(async () => {
  server = await startTestServer({ SVC_SYSTEM_PAT: PAT });
});
afterAll(async () => {
  await server?.close();
});

interface PartSpec {
  readonly name: string;
  /** `null`: a text field (no filename). */
  readonly filename: string | null;
  readonly content: Uint8Array;
}

const boundaryChar = fc.constantFrom(..."abcXYZ0189'()+_,-./:=?".split(''));
const boundary = fc.string({ unit: boundaryChar, minLength: 1, maxLength: 70 });
const bytes = fc.uint8Array({ maxLength: 3_000 });
const pdfContent = bytes.map((b) => Buffer.concat([Buffer.from('%PDF-1.7\n'), b]));
const otherPart = fc.oneof(
  fc.record({ name: fc.constantFrom('meta', 'note', 'pdf'), filename: fc.constant(null), content: bytes }),
  fc.record({ name: fc.constantFrom('file', 'pdfx', 'PDF'), filename: fc.constant('x.bin'), content: bytes }),
);
const pdfPart = fc.record({
  name: fc.constant('pdf'),
  filename: fc.constantFrom('paper.pdf', 'p', 'ü.pdf'),
  content: pdfContent,
});
const parts = fc
  .tuple(
    fc.array(otherPart, { maxLength: 3 }),
    fc.option(pdfPart, { nil: null }),
    fc.array(fc.oneof(otherPart, pdfPart), { maxLength: 3 }),
  )
  .map(([before, pdf, after]) => [...before, ...(pdf ? [pdf] : []), ...after]);

function encode(specs: readonly PartSpec[], b: string): Buffer {
  const chunks: Buffer[] = [];
  for (const p of specs) {
    const filename = p.filename === null ? '' : `; filename="${p.filename}"`;
    chunks.push(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${p.name}"${filename}\r\n\r\n`));
    chunks.push(Buffer.from(p.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${b}--\r\n`));
  return Buffer.concat(chunks);
}

/** Posts `body` in pieces cut at `cuts` (fractions of its length); resolves with status and JSON body. */
function post(
  id: string,
  contentType: string,
  body: Buffer,
  cuts: readonly number[],
): Promise<{ status: number; json: Record<string, unknown> }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: `/api/papers/${id}/upload-pdf`,
        headers: { Authorization: `Bearer ${PAT}`, 'Content-Type': contentType, 'Content-Length': body.length },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }),
        );
      },
    );
    req.on('error', reject);
    const offsets = [...new Set(cuts.map((c) => Math.floor(c * body.length)))].sort((a, b) => a - b);
    let at = 0;
    for (const o of offsets) {
      req.write(body.subarray(at, o));
      at = o;
    }
    req.end(body.subarray(at));
  });
}

const stagingLeftovers = async () => readdir(path.join(server.config.dataDir, 'tmp')).catch(() => []);
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });

describe('multipart upload bodies: reference model', () => {
  it('the first pdf file part is stored byte for byte; without one, 400', async () => {
    await fc.assert(
      fc.asyncProperty(parts, boundary, cuts, async (specs, b, pieces) => {
        const delimiter = Buffer.from(`\r\n--${b}`);
        fc.pre(
          specs.every(
            (p) =>
              !Buffer.from(p.content).includes(delimiter) &&
              !Buffer.from(p.content)
                .subarray(0, b.length + 2)
                .equals(Buffer.from(`--${b}`)),
          ),
        );
        const id = `2501.${String(++next).padStart(5, '0')}v1`;
        const res = await post(id, `multipart/form-data; boundary="${b}"`, encode(specs, b), pieces);
        const first = specs.find((p) => p.name === 'pdf' && p.filename !== null);
        if (first === undefined) {
          expect(res).toEqual({ status: 400, json: { detail: "missing 'pdf' multipart part" } });
        } else {
          expect(res.status).toBe(201);
          expect(res.json['pdf_sha256']).toBe(sha(first.content));
          const stored = await readFile(path.join(server.config.rawDir, 'pdf/2501', `${id}.pdf`));
          expect(sha(stored)).toBe(sha(first.content));
        }
        expect(await stagingLeftovers()).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('multipart upload bodies: damaged', () => {
  it('a truncated or corrupted body is a 4xx, never a 5xx, and leaves nothing staged', async () => {
    await fc.assert(
      fc.asyncProperty(
        parts,
        boundary,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })), {
          maxLength: 4,
        }),
        async (specs, b, keep, flips) => {
          const body = Buffer.from(encode(specs, b));
          for (const [at, value] of flips) body[Math.floor(at * (body.length - 1))] = value;
          const damaged = body.subarray(0, Math.floor(keep * body.length));
          const id = `2502.${String(++next).padStart(5, '0')}v1`;
          const res = await post(id, `multipart/form-data; boundary="${b}"`, damaged, []);
          expect(res.status === 201 || (res.status >= 400 && res.status < 500), JSON.stringify(res)).toBe(true);
          expect(await stagingLeftovers()).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
