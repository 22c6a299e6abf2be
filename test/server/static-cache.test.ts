/**
 * Fast loads (issue 22, item 8) on a real pksd: the front end's hashed assets precompressed at build
 * (web/precompress.ts) and served as brotli or gzip per `Accept-Encoding`, cached for a year as immutable;
 * `index.html` and the SPA fallback revalidated on every load; API answers of at least 1 KiB compressed when the
 * client asks, smaller ones not; stored objects (PDF, markdown, images, zips) streamed as stored.
 */
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompressDir } from '../../web/precompress.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { PNG } from '../support/upstreams/mineru.js';
import { AUTH, PAT, pdfBytes } from './papers/helpers.js';
import { storePaper } from './papers/registry-support.js';

interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The bytes as sent (never decoded, unlike `fetch`). */
  readonly body: Buffer;
}

/** A GET through `node:http`, which neither asks for nor decodes an encoding by itself. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const decode = (res: RawResponse): Buffer => {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(res.body);
  if (encoding === 'gzip') return gunzipSync(res.body);
  expect(encoding).toBeUndefined();
  return res.body;
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const varies = (res: RawResponse) =>
  String(res.headers['vary'] ?? '')
    .toLowerCase()
    .split(/\s*,\s*/);

/** A script as a bundler writes it: long, repetitive, well over 1 KiB. */
const APP_JS = Array.from({ length: 400 }, (_, i) => `export const value${i} = () => 'line ${i} of the app';`).join(
  '\n',
);
const INDEX_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pks</title>
<script type="module" src="/assets/index-Bx1a2b3c.js"></script></head>
<body><div id="root"></div>${'<!-- padding so the page is over 1 KiB -->\n'.repeat(30)}</body></html>`;

let web: string;
let srv: TestServer;

beforeAll(async () => {
  web = await mkdtemp(path.join(os.tmpdir(), 'pks-static-'));
  await mkdir(path.join(web, 'assets'));
  await writeFile(path.join(web, 'index.html'), INDEX_HTML);
  await writeFile(path.join(web, 'assets', 'index-Bx1a2b3c.js'), APP_JS);
  await writeFile(path.join(web, 'assets', 'tiny-Cq9z8y7x.js'), 'export const tiny = 1;\n');
  await writeFile(path.join(web, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await precompressDir(web);
  srv = await startTestServer({ SVC_SYSTEM_PAT: PAT, SVC_PAPER_ACCESS_ENABLED: 'true' }, { webRoot: web });
});
afterAll(async () => {
  await srv?.close();
  if (web) await rm(web, { recursive: true, force: true });
});

describe('the build step', () => {
  it('writes .br and .gz copies of files over 1 KiB that decompress to the file; small files get none', async () => {
    const file = path.join(web, 'assets', 'index-Bx1a2b3c.js');
    const br = await readFile(`${file}.br`);
    const gz = await readFile(`${file}.gz`);
    expect(brotliDecompressSync(br).toString()).toBe(APP_JS);
    expect(gunzipSync(gz).toString()).toBe(APP_JS);
    expect(br.length).toBeLessThan(APP_JS.length / 4);
    await expect(readFile(path.join(web, 'assets', 'tiny-Cq9z8y7x.js.br'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(path.join(web, 'favicon.svg.gz'))).rejects.toThrow(/ENOENT/);
  });
});

describe('hashed assets', () => {
  const url = () => `${srv.url}/assets/index-Bx1a2b3c.js`;

  it.each([
    ['br, gzip', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['deflate', undefined],
    ['identity', undefined],
    ['', undefined],
  ])(
    'Accept-Encoding "%s" → %s, immutable for a year, Vary: Accept-Encoding, the file’s bytes',
    async (accept, enc) => {
      const res = await rawGet(url(), accept ? { 'Accept-Encoding': accept } : {});
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(enc);
      expect(res.headers['cache-control']).toBe(IMMUTABLE);
      expect(res.headers['content-type']).toMatch(/^(?:text|application)\/javascript; charset=utf-8$/);
      expect(varies(res)).toContain('accept-encoding');
      expect(res.headers['content-length']).toBe(String(res.body.length));
      expect(decode(res).toString()).toBe(APP_JS);
      const copy = { br: 'index-Bx1a2b3c.js.br', gzip: 'index-Bx1a2b3c.js.gz' }[enc ?? ''];
      if (copy) expect(res.body).toEqual(await readFile(path.join(web, 'assets', copy)));
    },
  );

  it('a small asset without compressed copies is sent as it is, still immutable', async () => {
    const res = await rawGet(`${srv.url}/assets/tiny-Cq9z8y7x.js`, { 'Accept-Encoding': 'br, gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(res.body.toString()).toBe('export const tiny = 1;\n');
  });

  it('answers a byte range with 206 and the bytes of the file', async () => {
    const res = await rawGet(url(), { Range: 'bytes=10-109' });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 10-109/${Buffer.byteLength(APP_JS)}`);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.toString()).toBe(APP_JS.slice(10, 110));
  });
});

describe('index.html and the SPA fallback', () => {
  it.each(['/', '/index.html', '/wiki/concept-qubit', '/papers/2501.00001v1', '/assets/gone-Dd4e5f6g.js'])(
    '%s → index.html, no-cache, compressed when asked, revalidated with 304',
    async (pathname) => {
      const res = await rawGet(srv.url + pathname, { 'Accept-Encoding': 'br' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-encoding']).toBe('br');
      expect(decode(res).toString()).toBe(INDEX_HTML);
      const etag = res.headers['etag'];
      expect(etag).toBeTruthy();
      const again = await rawGet(srv.url + pathname, { 'Accept-Encoding': 'br', 'If-None-Match': etag! });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      const plain = await rawGet(srv.url + pathname);
      expect([plain.headers['content-encoding'], plain.headers['cache-control']]).toEqual([undefined, 'no-cache']);
      expect(plain.body.toString()).toBe(INDEX_HTML);
    },
  );

  it('a public file that is not hashed is revalidated too', async () => {
    const res = await rawGet(`${srv.url}/favicon.svg`, { 'Accept-Encoding': 'br, gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-cache');
  });
});

describe('API answers', () => {
  const ID = '2501.00042v1';
  const MARKDOWN = `# A paper\n\n${'A sentence of the paper that repeats. '.repeat(200)}\n\n![](images/fig.png)\n`;

  beforeAll(async () => {
    await storePaper({ fetch: srv.fetch, auth: AUTH }, ID, MARKDOWN, { 'fig.png': PNG, 'plot.svg': '<svg/>' });
  });

  it.each(['br', 'gzip'])(
    'JSON of at least 1 KiB is compressed with %s and identical once decompressed',
    async (enc) => {
      const url = `${srv.url}/swagger/doc.json`;
      const plain = await rawGet(url);
      expect(plain.body.length).toBeGreaterThan(1024);
      expect(plain.headers['content-encoding']).toBeUndefined();
      const res = await rawGet(url, { 'Accept-Encoding': enc });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(enc);
      expect(varies(res)).toContain('accept-encoding');
      expect(res.body.length).toBeLessThan(plain.body.length / 3);
      expect(decode(res)).toEqual(plain.body);
    },
  );

  it.each(['br', 'gzip'])('an /api/ JSON answer over 1 KiB (%s), with the same headers otherwise', async (enc) => {
    const ids = Array.from({ length: 40 }, (_, i) => `2501.${String(i).padStart(5, '0')}v1`).join(',');
    const url = `${srv.url}/api/papers/status/batch?ids=${ids},${ID}`;
    const plain = await rawGet(url, AUTH);
    expect(plain.status).toBe(200);
    expect(plain.body.length).toBeGreaterThan(1024);
    const res = await rawGet(url, { ...AUTH, 'Accept-Encoding': enc });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(enc);
    expect(res.headers['content-length']).toBe(String(res.body.length));
    for (const name of ['cache-control', 'content-type', 'x-svc-server-version']) {
      expect([name, res.headers[name]]).toEqual([name, plain.headers[name]]);
    }
    expect(decode(res)).toEqual(plain.body);
  });

  it('a JSON answer under 1 KiB is sent as it is', async () => {
    const res = await rawGet(`${srv.url}/api/health`, { 'Accept-Encoding': 'br, gzip' });
    expect(res.status).toBe(200);
    expect(res.body.length).toBeLessThan(1024);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-length']).toBe(String(res.body.length));
    expect(JSON.parse(res.body.toString())).toHaveProperty('code', 200);
  });

  it.each([
    ['pdf', 'application/pdf', () => pdfBytes(ID)],
    ['markdown', 'text/markdown; charset=utf-8', () => Buffer.from(MARKDOWN)],
    ['images/fig.png', 'image/png', () => PNG],
    ['images/plot.svg', 'image/svg+xml', () => Buffer.from('<svg/>')],
  ])(
    'stored %s is streamed as stored, with its Content-Length, whatever the client accepts',
    async (what, type, bytes) => {
      const res = await rawGet(`${srv.url}/api/papers/${ID}/${what}`, { ...AUTH, 'Accept-Encoding': 'br, gzip' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['content-length']).toBe(String(bytes().length));
      expect(res.body).toEqual(bytes());
    },
  );

  it('the images zip is streamed as built, not compressed again', async () => {
    const url = `${srv.url}/api/papers/${ID}/images/zip`;
    const plain = await rawGet(url, AUTH);
    const res = await rawGet(url, { ...AUTH, 'Accept-Encoding': 'br, gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toEqual(plain.body);
  });
});
