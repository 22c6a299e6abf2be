/**
 * `GET /api/papers/{id}/images/zip` (CONTRACT §18.2) on both backends: the stored images as one zip, members
 * `images/<name>` sorted, zero timestamps (the DOS epoch, no extended timestamp field), the same bytes on every
 * call, opened with yauzl; the 404 bodies.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { useMoto } from '../../support/moto.js';
import { PNG } from '../../support/upstreams/mineru.js';
import { AUTH, startBackend, type Backend } from './helpers.js';
import { storePaper } from './registry-support.js';

const moto = useMoto();

/** Uncompressible bytes, so a member's stored size is its real size. */
const noise = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7919 + seed) % 251));

const MIB = 1024 * 1024;

const IMAGES: Record<string, Buffer> = {
  'z-last.png': PNG,
  'a-first.jpg': noise(70_000, 1),
  'sub/dir/m.svg': Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
  'B-upper.png': noise(10, 2),
};

interface Member {
  readonly name: string;
  readonly bytes: Buffer;
  readonly dosDate: number;
  readonly dosTime: number;
  readonly extraFields: number;
  /** Length of the extra field of the member's local header. */
  readonly localExtra: number;
  readonly compression: number;
}

/** Every member of `zip` (read with yauzl), in archive order. */
function members(zip: Buffer): Promise<Member[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err ?? new Error('no zip'));
      const out: Member[] = [];
      file.on('error', reject);
      file.on('end', () => resolve(out));
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            out.push({
              name: entry.fileName,
              bytes: Buffer.concat(chunks),
              dosDate: entry.lastModFileDate,
              dosTime: entry.lastModFileTime,
              extraFields: entry.extraFields.length,
              localExtra: zip.readUInt16LE(entry.relativeOffsetOfLocalHeader + 28),
              compression: entry.compressionMethod,
            });
            file.readEntry();
          });
        });
      });
      file.readEntry();
    });
  });
}

describe.each(['local', 's3'] as const)('images/zip (%s backend)', (backendName) => {
  let b: Backend;
  beforeAll(async () => {
    b = await startBackend(backendName, backendName === 's3' ? moto() : null);
    const target = { fetch: b.server.fetch, auth: AUTH };
    await storePaper(target, '2507.00001v1', '![](images/a-first.jpg)\n', IMAGES);
    await storePaper(target, '2507.00002v1', null);
    await storePaper(target, 'quant-ph/9508027v1', 'text\n', { 'q.png': 'q' });
    await storePaper(target, '2507.00003v1', 'big\n', {
      'one.png': randomBytes(2 * MIB),
      'two.png': randomBytes(2 * MIB),
    });
  });
  afterAll(async () => {
    await b?.close();
  });

  const get = (id: string) => b.server.fetch(`/api/papers/${id}/images/zip`, { headers: AUTH });

  it('the stored images, sorted, zero timestamps, the same bytes on every call', async () => {
    const first = await get('2507.00001v1');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/zip');
    expect(first.headers.get('content-disposition')).toBe('attachment; filename="2507.00001v1-images.zip"');
    const bytes = Buffer.from(await first.arrayBuffer());
    expect(first.headers.get('content-length')).toBe(String(bytes.length));
    const again = Buffer.from(await (await get('2507.00001v1')).arrayBuffer());
    expect(again.equals(bytes)).toBe(true);

    const zip = await members(bytes);
    expect(zip.map((m) => m.name)).toEqual([
      'images/B-upper.png',
      'images/a-first.jpg',
      'images/sub/dir/m.svg',
      'images/z-last.png',
    ]);
    for (const m of zip) {
      expect(m.bytes.equals(IMAGES[m.name.slice('images/'.length)]!)).toBe(true);
      // DOS date 1980-01-01 ((0 << 9) | (1 << 5) | 1) at 00:00:00, no extended timestamp, stored.
      expect([m.name, m.dosDate, m.dosTime, m.extraFields, m.localExtra, m.compression]).toEqual([
        m.name,
        33,
        0,
        0,
        0,
        0,
      ]);
    }
  });

  it('the same bytes in any time zone of the server', async () => {
    const reference = Buffer.from(await (await get('2507.00001v1')).arrayBuffer());
    const tz = process.env['TZ'];
    try {
      for (const zone of ['Pacific/Kiritimati', 'America/Adak', 'UTC']) {
        process.env['TZ'] = zone;
        const bytes = Buffer.from(await (await get('2507.00001v1')).arrayBuffer());
        expect([zone, bytes.equals(reference)]).toEqual([zone, true]);
      }
    } finally {
      if (tz === undefined) delete process.env['TZ'];
      else process.env['TZ'] = tz;
    }
  });

  it('the versionless id and the old-style id (slash raw or encoded) name the stored paper', async () => {
    const versioned = Buffer.from(await (await get('2507.00001v1')).arrayBuffer());
    const versionless = Buffer.from(await (await get('2507.00001')).arrayBuffer());
    expect(versionless.equals(versioned)).toBe(true);
    for (const id of ['quant-ph/9508027v1', 'quant-ph%2F9508027v1']) {
      const res = await get(id);
      expect([id, res.status]).toEqual([id, 200]);
      expect((await members(Buffer.from(await res.arrayBuffer()))).map((m) => [m.name, m.bytes.toString()])).toEqual([
        ['images/q.png', 'q'],
      ]);
    }
  });

  it('a client that leaves mid-zip does not disturb the next download', async () => {
    const controller = new AbortController();
    const res = await b.server.fetch('/api/papers/2507.00003v1/images/zip', {
      headers: AUTH,
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    await reader.read().catch(() => undefined);
    const again = await get('2507.00003v1');
    const zip = await members(Buffer.from(await again.arrayBuffer()));
    expect(zip.map((m) => [m.name, m.bytes.length])).toEqual([
      ['images/one.png', 2 * MIB],
      ['images/two.png', 2 * MIB],
    ]);
  });

  it.each([
    ['2507.00002v1', 404, { detail: 'no images stored for 2507.00002v1' }],
    ['2507.09999v1', 404, { detail: 'no images stored for 2507.09999v1' }],
    ['2507.09999', 404, { detail: 'no images stored for 2507.09999' }],
    ['bad id', 400, { detail: 'invalid preprint id or DOI: "bad id"' }],
  ])('%s → %i', async (id, status, body) => {
    const res = await get(encodeURIComponent(id));
    expect([res.status, await res.json()]).toEqual([status, body]);
  });
});
