/**
 * `GET /api/pages/{id}` bodies serialized once per snapshot (`PageBodies`): the bytes are exactly the serializer's
 * answer, a new snapshot is rendered anew, a missing page is never held, and the bytes held stay within the bound.
 * Over HTTP: the same bytes and content type, compressed when asked, and for `HEAD`.
 */
import { request } from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageBodies } from '../../../src/server/wiki/page-bodies.js';
import { getPageDetail, loadWiki, type WikiSnapshot } from '../../../src/wiki/index.js';
import { REPO_ROOT, startTestServer, type TestServer } from '../../support/server.js';

const SAMPLE = path.join(REPO_ROOT, 'sample-wiki');
const serialized = (snapshot: WikiSnapshot, id: string) =>
  Buffer.from(JSON.stringify(getPageDetail(snapshot, id)), 'utf8');

let snapshot: WikiSnapshot;
let ids: string[];
beforeAll(async () => {
  snapshot = await loadWiki(SAMPLE);
  ids = snapshot.pages.map((p) => p.id);
  expect(ids.length).toBeGreaterThan(3);
});

/** `getPageDetail` of `snap`, counting its calls. */
function counted(snap: WikiSnapshot) {
  const calls: string[] = [];
  return {
    calls,
    render: (id: string) => () => {
      calls.push(id);
      return getPageDetail(snap, id);
    },
  };
}

describe('PageBodies', () => {
  it('answers the serializer’s bytes, rendering each page once per snapshot', () => {
    const bodies = new PageBodies(1 << 20, 1 << 20);
    const { calls, render } = counted(snapshot);
    for (const id of ids) expect(bodies.get(snapshot, id, render(id))).toEqual(serialized(snapshot, id));
    for (const id of ids) expect(bodies.get(snapshot, id, render(id))).toEqual(serialized(snapshot, id));
    expect(calls).toEqual(ids);
    expect(bodies.heldBytes).toBe(ids.reduce((n, id) => n + serialized(snapshot, id).length, 0));
  });

  it('renders again for another snapshot, and holds only its bodies', async () => {
    const bodies = new PageBodies(1 << 20, 1 << 20);
    bodies.get(snapshot, ids[0]!, counted(snapshot).render(ids[0]!));
    const next = await loadWiki(SAMPLE);
    const { calls, render } = counted(next);
    expect(bodies.get(next, ids[1]!, render(ids[1]!))).toEqual(serialized(next, ids[1]!));
    expect(bodies.get(next, ids[0]!, render(ids[0]!))).toEqual(serialized(next, ids[0]!));
    expect(calls).toEqual([ids[1], ids[0]]);
    expect(bodies.heldBytes).toBe(serialized(next, ids[0]!).length + serialized(next, ids[1]!).length);
  });

  it('never holds a missing page', () => {
    const bodies = new PageBodies(1 << 20, 1 << 20);
    const { calls, render } = counted(snapshot);
    expect(bodies.get(snapshot, 'concept-missing', render('concept-missing'))).toBeNull();
    expect(bodies.get(snapshot, 'concept-missing', render('concept-missing'))).toBeNull();
    expect(calls).toEqual(['concept-missing', 'concept-missing']);
    expect(bodies.heldBytes).toBe(0);
  });

  it('lets the oldest bodies go past the bound, and sends a body above the entry limit without holding it', () => {
    const sizes = ids.map((id) => serialized(snapshot, id).length);
    const bound = sizes[0]! + sizes[1]!;
    const bodies = new PageBodies(bound, bound);
    const { calls, render } = counted(snapshot);
    bodies.get(snapshot, ids[0]!, render(ids[0]!));
    bodies.get(snapshot, ids[1]!, render(ids[1]!));
    bodies.get(snapshot, ids[2]!, render(ids[2]!));
    expect(bodies.heldBytes).toBeLessThanOrEqual(bound);
    // The newest is held; the first went first.
    bodies.get(snapshot, ids[2]!, render(ids[2]!));
    bodies.get(snapshot, ids[0]!, render(ids[0]!));
    expect(calls).toEqual([ids[0], ids[1], ids[2], ids[0]]);

    const small = new PageBodies(1 << 20, sizes[3]! - 1);
    const big = counted(snapshot);
    expect(small.get(snapshot, ids[3]!, big.render(ids[3]!))).toEqual(serialized(snapshot, ids[3]!));
    expect(small.get(snapshot, ids[3]!, big.render(ids[3]!))).toEqual(serialized(snapshot, ids[3]!));
    expect(big.calls).toEqual([ids[3], ids[3]]);
    expect(small.heldBytes).toBe(0);
  });
});

describe('GET /api/pages/{id} from held bodies', () => {
  const PAT = 'b'.repeat(24);
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SVC_WIKI_DIR: SAMPLE, SVC_SYSTEM_PAT: PAT });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends the serializer’s bytes as JSON, the first time and the next, plain or gzip, and answers HEAD', async () => {
    const id = ids[0]!;
    const expected = serialized(snapshot, id);
    for (let round = 0; round < 2; round++) {
      const res = await server.fetch(`/api/pages/${id}`, { headers: { Authorization: `Bearer ${PAT}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Buffer.from(await res.arrayBuffer())).toEqual(expected);
    }
    const zipped = await rawGet(server, `/api/pages/${id}`, { 'Accept-Encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body)).toEqual(expected);
    const head = await server.fetch(`/api/pages/${id}`, {
      method: 'HEAD',
      headers: { Authorization: `Bearer ${PAT}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(head.headers.get('content-length')).toBe(String(expected.length));
  });

  function rawGet(s: TestServer, pathname: string, headers: Record<string, string>) {
    const url = new URL(s.url);
    return new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: pathname, headers: { ...headers, Authorization: `Bearer ${PAT}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }
});
