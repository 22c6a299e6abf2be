/**
 * CONTRACT §11.4 ★: a stored image of a paper by name (`images/<yymm>/<stem>/<name>`, names as the image keys of
 * §9.4), with the legacy read fallback of old-style ids; anything else (the store's own files included) is `image
 * not found`. The domain method,
 * then the route (an action of the papers dispatcher) on a running pksd.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVersionedId } from '../../../src/shared/ids.js';
import { NotFoundError } from '../../../src/shared/domain-errors.js';
import { PNG } from '../../support/upstreams/mineru.js';
import { accessEnv, startAccessHarness, startDoubles, type AccessHarness, type Doubles } from './support/harness.js';
import { startAccessServer, type AccessServer } from './support/server.js';

let d: Doubles;
let h: AccessHarness;
const put = (key: string, bytes: Buffer, contentType: string) =>
  h.store.put(key, bytes, { contentType, metadata: { sha256: 'x' } });

beforeAll(async () => {
  d = await startDoubles();
  h = await startAccessHarness(accessEnv(d));
  await put('images/2501/2501.00010v1/fig1.png', PNG, 'image/png');
  await put('images/2501/2501.00010v1/sub/dir/plot.svg', Buffer.from('<svg/>'), 'image/svg+xml');
  await put('images/9508/9508027v1/legacy.jpg', Buffer.from('jpg'), 'image/jpeg');
});
afterAll(async () => {
  await h?.close();
  await d?.close();
});

describe('paper images', () => {
  it.each([
    ['2501.00010v1', 'fig1.png', 'image/png', PNG],
    ['2501.00010v1', 'sub/dir/plot.svg', 'image/svg+xml', Buffer.from('<svg/>')],
    ['quant-ph/9508027v1', 'legacy.jpg', 'image/jpeg', Buffer.from('jpg')],
  ])('%s %s', async (id, name, type, bytes) => {
    const image = await h.access.image(parseVersionedId(id)!, name);
    expect([image.contentType, image.size]).toEqual([type, bytes.length]);
    expect(await buffer(image.body)).toEqual(bytes);
  });

  it.each([
    'missing.png',
    '',
    '../fig1.png',
    'a/../fig1.png',
    '/etc/passwd',
    'a\\b.png',
    'a//b.png',
    './fig1.png',
    'x'.repeat(256),
    // The local store's metadata sidecars and directories are store files, not images.
    'fig1.png.meta.json',
    'FIG1.png.META.JSON',
    'sub/dir/plot.svg.meta.json',
    'sub',
    'sub/dir',
  ])('%j → image not found', async (name) => {
    await expect(h.access.image(parseVersionedId('2501.00010v1')!, name)).rejects.toEqual(
      new NotFoundError('image not found'),
    );
  });
});

describe('GET /api/papers/{id}/images/{name}', () => {
  let s: AccessServer;
  beforeAll(async () => {
    s = await startAccessServer(accessEnv(d));
    await s.store.put('images/2501/2501.00010v1/fig1.png', PNG, {
      contentType: 'image/png',
      metadata: { sha256: 'x' },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers the stored bytes with their type, immutable caching and nosniff', async () => {
    const res = await s.get('/api/papers/2501.00010v1/images/fig1.png');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(PNG.length));
    expect(res.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
  });

  it('a missing image is 404 image not found', async () => {
    const res = await s.get('/api/papers/2501.00010v1/images/nope.png');
    expect([res.status, await res.json()]).toEqual([404, { detail: 'image not found' }]);
  });

  it('the store files beside and above the images are 404 image not found', async () => {
    await s.store.put('markdown/2501/2501.00010v1.md', Buffer.from('# secret\n'), {
      contentType: 'text/markdown; charset=utf-8',
      metadata: { sha256: 'x' },
    });
    // The sidecar the local backend keeps next to the image is there to be asked for.
    const sidecar = path.join(s.config.rawDir, 'images/2501/2501.00010v1/fig1.png.meta.json');
    expect(JSON.parse(await readFile(sidecar, 'utf8'))).toMatchObject({ content_type: 'image/png' });
    for (const name of [
      'fig1.png.meta.json',
      'fig1.png.META.JSON',
      '..%2F..%2F..%2Fmarkdown%2F2501%2F2501.00010v1.md',
      '..%2F..%2F..%2F.versions',
    ]) {
      const res = await s.get(`/api/papers/2501.00010v1/images/${name}`);
      expect([name, res.status, await res.json()]).toEqual([name, 404, { detail: 'image not found' }]);
    }
  });

  it('needs papers:read', async () => {
    const res = await s.fetch('/api/papers/2501.00010v1/images/fig1.png');
    expect(res.status).toBe(401);
  });
});
