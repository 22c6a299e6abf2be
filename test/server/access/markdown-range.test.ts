/**
 * `GET /api/papers/{id}/markdown` with `Range: bytes=<first>-[<last>]` (what `paper_markdown` sends for a piece),
 * on both object-store backends: 206 with `Content-Range` and only those bytes read from the store, 416 past the
 * end, other forms ignored (the whole markdown), and the `ETag` and `Accept-Ranges` of every markdown answer.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paperKeys, parseVersionedId } from '../../../src/shared/ids.js';
import { useMoto } from '../../support/moto.js';
import { storePaper } from '../papers/registry-support.js';
import { AUTH, startAccessStack, stopAccessStack, type AccessStack } from './support/server.js';

const moto = useMoto();
const ID = '2507.00401v1';
const MARKDOWN = `# Ranges 😀\n${Array.from({ length: 4000 }, (_, i) => `Line ${i} with 𝜓 and 中文.\n`).join('')}`;
const BYTES = Buffer.from(MARKDOWN);
const N = BYTES.length;

describe.each(['local', 's3'] as const)('markdown ranges (%s backend)', (backend) => {
  let stack: AccessStack;
  beforeAll(async () => {
    stack = await startAccessStack({}, backend === 's3' ? { moto: moto() } : {});
    await storePaper({ fetch: stack.s.fetch, auth: AUTH }, ID, MARKDOWN);
  }, 60_000);
  afterAll(async () => {
    if (stack) await stopAccessStack(stack);
  });

  const get = async (range?: string) => {
    const res = await stack.s.fetch(`/api/papers/${ID}/markdown`, {
      headers: { ...AUTH, ...(range !== undefined ? { Range: range } : {}) },
    });
    return { res, body: Buffer.from(await res.arrayBuffer()) };
  };

  it('the whole markdown names its ETag and that it takes ranges', async () => {
    const { res, body } = await get();
    expect(res.status).toBe(200);
    expect(body.equals(BYTES)).toBe(true);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(res.headers.get('content-range')).toBeNull();
  });

  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=5-', 5, N - 1],
    [' bytes=3-3 ', 3, 3],
    ['bytes=100-99999999', 100, N - 1],
    [`bytes=${N - 1}-`, N - 1, N - 1],
  ])('%s → 206 with exactly those bytes, the same ETag', async (range, first, last) => {
    const whole = await get();
    const { res, body } = await get(range);
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${first}-${last}/${N}`);
    expect(res.headers.get('content-length')).toBe(String(last - first + 1));
    expect(res.headers.get('content-type')).toBe(whole.res.headers.get('content-type'));
    expect(res.headers.get('etag')).toBe(whole.res.headers.get('etag'));
    expect(body.equals(BYTES.subarray(first, last + 1))).toBe(true);
  });

  it.each([`bytes=${N}-`, `bytes=${N + 10}-${N + 20}`])('%s (past the end) → 416', async (range) => {
    const { res, body } = await get(range);
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${N}`);
    expect(JSON.parse(body.toString())).toEqual({ detail: `range not satisfiable: the markdown has ${N} bytes` });
  });

  it.each(['bytes=-5', 'bytes=0-1,4-5', 'bytes=9-3', 'items=0-1', 'bytes=a-b', 'bytes='])(
    '%s is ignored: the whole markdown',
    async (range) => {
      const { res, body } = await get(range);
      expect(res.status).toBe(200);
      expect(body.equals(BYTES)).toBe(true);
    },
  );

  it('a range with If-Range is answered with the whole markdown', async () => {
    const res = await stack.s.fetch(`/api/papers/${ID}/markdown`, {
      headers: { ...AUTH, Range: 'bytes=0-9', 'If-Range': '"any"' },
    });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(BYTES)).toBe(true);
  });

  it('a rewritten markdown answers another ETag; a range reads only its bytes from the store', async () => {
    const before = (await get()).res.headers.get('etag');
    const changed = `${MARKDOWN}more\n`;
    const key = paperKeys(parseVersionedId(ID)!).markdown;
    await stack.s.store.put(key, Buffer.from(changed), { contentType: 'text/markdown; charset=utf-8', metadata: {} });
    const reads = vi.spyOn(stack.s.papers, 'readObject');
    const { res, body } = await get('bytes=0-99');
    expect(reads.mock.calls).toEqual([[key, { start: 0, end: 99 }]]);
    reads.mockRestore();
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 0-99/${Buffer.byteLength(changed)}`);
    expect(res.headers.get('etag')).not.toBe(before);
    expect(body.equals(Buffer.from(changed).subarray(0, 100))).toBe(true);
  });

  it('a PDF read is unchanged: no ranges', async () => {
    const res = await stack.s.fetch(`/api/papers/${ID}/pdf`, { headers: { ...AUTH, Range: 'bytes=0-9' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBeNull();
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });
});
