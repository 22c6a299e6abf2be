/**
 * One contract suite, run against both backends (CONTRACT §3.3–3.5): the local directory backend in a temp dir
 * and the S3 router against a real S3 API (moto).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buffer as readAll } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidKeyError } from '../../../src/server/storage/keys.js';
import { collect, type ObjectStore } from '../../../src/server/storage/object-store.js';
import { checkTarget, writeObject, type WriteOutcome } from '../../../src/server/storage/write.js';
import { useMoto } from '../../support/moto.js';
import { localFixture, publishIndex, s3Fixture, type StoreFixture } from './backends.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const pdf = (text: string) => Buffer.from(`%PDF-1.4\n${text}\n%%EOF\n`);

const moto = useMoto();

const backends: [string, () => Promise<StoreFixture>][] = [
  ['local', () => localFixture()],
  ['s3', () => s3Fixture(moto(), { listPageSize: 2 })],
];

describe.each(backends)('object store contract (%s)', (_name, make) => {
  let fx: StoreFixture;
  let store: ObjectStore;
  beforeEach(async () => {
    fx = await make();
    store = fx.store;
  });
  afterEach(async () => {
    await fx.close();
  });

  const write = (key: string, body: Buffer, overwrite = false, extra: Record<string, string> = {}) =>
    writeObject(store, key, body, { sha256: sha(body), contentType: 'application/pdf', overwrite, metadata: extra });

  it('absent objects: head and get answer null', async () => {
    expect(await store.head('pdf/2501/2501.00010v1.pdf')).toBeNull();
    expect(await store.get('pdf/2501/2501.00010v1.pdf')).toBeNull();
  });

  it('create-if-absent writes content, sha256 and created-at metadata', async () => {
    const body = pdf('one');
    const outcome = await writeObject(store, 'pdf/2501/2501.00010v1.pdf', body, {
      sha256: sha(body).toUpperCase(),
      contentType: 'application/pdf',
      metadata: { 'uploaded-by': 'alice' },
      now: () => new Date('2026-05-01T12:00:00.123Z'),
    });
    expect(outcome).toMatchObject({ status: 'written', overwritten: false });
    const info = await store.head('pdf/2501/2501.00010v1.pdf');
    expect(info).not.toBeNull();
    expect(info!.size).toBe(body.length);
    expect(info!.contentType).toBe('application/pdf');
    expect(outcome.status === 'written' && outcome.etag).toBe(info!.etag);
    expect(info!.metadata).toMatchObject({
      sha256: sha(body),
      'created-at': '2026-05-01T12:00:00Z',
      'uploaded-by': 'alice',
    });
    const got = await store.get('pdf/2501/2501.00010v1.pdf');
    expect(got!.info.metadata['sha256']).toBe(sha(body));
    expect(await readAll(got!.body)).toEqual(body);
  });

  it('identical content → unchanged, nothing rewritten', async () => {
    const body = pdf('same');
    await write('pdf/2501/2501.00010v1.pdf', body);
    const before = await store.head('pdf/2501/2501.00010v1.pdf');
    expect(await write('pdf/2501/2501.00010v1.pdf', body)).toEqual({ status: 'unchanged' });
    expect(await write('pdf/2501/2501.00010v1.pdf', body, true)).toEqual({ status: 'unchanged' });
    const after = await store.head('pdf/2501/2501.00010v1.pdf');
    expect(after!.metadata['created-at']).toBe(before!.metadata['created-at']);
    expect(after!.etag).toBe(before!.etag);
    const versions = await collect(store.listVersions('pdf/2501/'));
    expect(versions).toHaveLength(1);
  });

  it('different content without overwrite → conflict with the existing sha256; bytes kept', async () => {
    const a = pdf('a');
    const b = pdf('b');
    await write('pdf/2501/2501.00010v1.pdf', a);
    expect(await write('pdf/2501/2501.00010v1.pdf', b)).toEqual({ status: 'conflict', existingSha256: sha(a) });
    expect(await readAll((await store.get('pdf/2501/2501.00010v1.pdf'))!.body)).toEqual(a);
    expect(await checkTarget(store, 'pdf/2501/2501.00010v1.pdf', sha(b))).toEqual({
      state: 'different',
      existingSha256: sha(a),
    });
    expect(await checkTarget(store, 'pdf/2501/2501.00010v1.pdf', sha(a))).toEqual({ state: 'same' });
    expect(await checkTarget(store, 'pdf/2501/2501.00099v1.pdf', sha(a))).toEqual({ state: 'absent' });
  });

  it('an object without sha256 metadata is a conflict (existing sha256 null), even for identical bytes', async () => {
    const body = pdf('legacy');
    await store.put('pdf/9508/9508027v1.pdf', body, { contentType: 'application/pdf', metadata: {} });
    expect(await write('pdf/9508/9508027v1.pdf', body)).toEqual({ status: 'conflict', existingSha256: null });
  });

  it('overwrite replaces different content and keeps the prior version as noncurrent', async () => {
    const a = pdf('a');
    const b = pdf('b');
    await write('pdf/2501/2501.00010v1.pdf', a);
    expect(await write('pdf/2501/2501.00010v1.pdf', b, true)).toMatchObject({ status: 'written', overwritten: true });
    const got = await store.get('pdf/2501/2501.00010v1.pdf');
    expect(await readAll(got!.body)).toEqual(b);
    expect(got!.info.metadata['sha256']).toBe(sha(b));
    const versions = await collect(store.listVersions('pdf/2501/'));
    expect(versions.map((v) => [v.key, v.isLatest, v.size])).toEqual(
      expect.arrayContaining([
        ['pdf/2501/2501.00010v1.pdf', true, b.length],
        ['pdf/2501/2501.00010v1.pdf', false, a.length],
      ]),
    );
    expect(versions).toHaveLength(2);
  });

  it('overwrite of an absent key is a plain write', async () => {
    expect(await write('pdf/2501/2501.00010v1.pdf', pdf('x'), true)).toMatchObject({
      status: 'written',
      overwritten: false,
    });
  });

  it('20 concurrent identical creates → exactly one written, the rest unchanged', async () => {
    const body = pdf('identical');
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => write('pdf/2501/2501.00010v1.pdf', body)));
    expect(outcomes.filter((o) => o.status === 'written')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'unchanged')).toHaveLength(19);
    expect(await readAll((await store.get('pdf/2501/2501.00010v1.pdf'))!.body)).toEqual(body);
  });

  it('20 concurrent different creates → one written, the rest conflict; stored bytes are the winner’s', async () => {
    const bodies = Array.from({ length: 20 }, (_, i) => pdf(`different ${i}`));
    const outcomes: WriteOutcome[] = await Promise.all(bodies.map((b) => write('pdf/2501/2501.00010v1.pdf', b)));
    const winners = outcomes.flatMap((o, i) => (o.status === 'written' ? [i] : []));
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'conflict')).toHaveLength(19);
    const winner = bodies[winners[0]!]!;
    const got = await store.get('pdf/2501/2501.00010v1.pdf');
    expect(await readAll(got!.body)).toEqual(winner);
    expect(got!.info.metadata['sha256']).toBe(sha(winner));
    for (const o of outcomes) if (o.status === 'conflict') expect(o.existingSha256).toBe(sha(winner));
  });

  it('concurrent overwrites each create a version; the last one is current', async () => {
    await write('pdf/2501/2501.00010v1.pdf', pdf('base'));
    const bodies = Array.from({ length: 5 }, (_, i) => pdf(`overwrite ${i}`));
    const outcomes = await Promise.all(bodies.map((b) => write('pdf/2501/2501.00010v1.pdf', b, true)));
    expect(outcomes.every((o) => o.status === 'written' && o.overwritten)).toBe(true);
    const versions = await collect(store.listVersions('pdf/2501/'));
    expect(versions).toHaveLength(6);
    const current = await store.get('pdf/2501/2501.00010v1.pdf');
    const bytes = await readAll(current!.body);
    expect(bodies.some((b) => b.equals(bytes))).toBe(true);
    expect(current!.info.metadata['sha256']).toBe(sha(bytes));
  });

  it('writes from a file on disk', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pks-body-'));
    try {
      const body = pdf('from file');
      const file = path.join(dir, 'staged');
      await writeFile(file, body);
      const outcome = await writeObject(
        store,
        'pdf/2501/2501.00011v1.pdf',
        { path: file, size: body.length },
        {
          sha256: sha(body),
          contentType: 'application/pdf',
        },
      );
      expect(outcome.status).toBe('written');
      expect(await readAll((await store.get('pdf/2501/2501.00011v1.pdf'))!.body)).toEqual(body);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('routes kinds to buckets; lists with pagination, sorted, per kind and prefix', async () => {
    const keys = [
      'pdf/2501/2501.00010v1.pdf',
      'pdf/2501/2501.00011v1.pdf',
      'pdf/2502/2502.00001v1.pdf',
      'markdown/2501/2501.00010v1.md',
      'images/2501/2501.00010v1/a.png',
      'images/2501/2501.00010v1/sub/b.jpg',
      'images/2501/2501.00011v1/c.gif',
    ];
    for (const k of keys) await write(k, Buffer.from(k));
    const all = (await collect(store.list('pdf/'))).map((o) => o.key);
    expect(all).toEqual(['pdf/2501/2501.00010v1.pdf', 'pdf/2501/2501.00011v1.pdf', 'pdf/2502/2502.00001v1.pdf']);
    expect((await collect(store.list('pdf/2501/'))).map((o) => o.key)).toEqual([
      'pdf/2501/2501.00010v1.pdf',
      'pdf/2501/2501.00011v1.pdf',
    ]);
    expect((await collect(store.list('pdf/2501/2501.0001'))).map((o) => o.key)).toHaveLength(2);
    expect((await collect(store.list('markdown/'))).map((o) => o.key)).toEqual(['markdown/2501/2501.00010v1.md']);
    const images = await collect(store.list('images/2501/2501.00010v1/'));
    expect(images.map((o) => o.key)).toEqual(['images/2501/2501.00010v1/a.png', 'images/2501/2501.00010v1/sub/b.jpg']);
    expect(images[0]!.size).toBe('images/2501/2501.00010v1/a.png'.length);
    expect(images[0]!.etag).toBeTruthy();
    expect(await collect(store.list('images/9999/'))).toEqual([]);
  });

  it('delete removes the current object (idempotent) and keeps it as noncurrent', async () => {
    await write('markdown/2501/2501.00010v1.md', Buffer.from('# hi'));
    await store.delete('markdown/2501/2501.00010v1.md');
    await store.delete('markdown/2501/2501.00010v1.md');
    expect(await store.head('markdown/2501/2501.00010v1.md')).toBeNull();
    expect(await collect(store.list('markdown/'))).toEqual([]);
    const versions = await collect(store.listVersions('markdown/'));
    expect(versions.some((v) => !v.isLatest && !v.deleteMarker && v.size === 4)).toBe(true);
    // A deleted key can be created again.
    expect((await write('markdown/2501/2501.00010v1.md', Buffer.from('# again'))).status).toBe('written');
  });

  it('noncurrent versions can be deleted one by one', async () => {
    await write('pdf/2501/2501.00010v1.pdf', pdf('v1'));
    await write('pdf/2501/2501.00010v1.pdf', pdf('v2'), true);
    const old = (await collect(store.listVersions('pdf/'))).filter((v) => !v.isLatest);
    expect(old).toHaveLength(1);
    await store.deleteVersion(old[0]!.key, old[0]!.versionId);
    const left = await collect(store.listVersions('pdf/'));
    expect(left.map((v) => v.isLatest)).toEqual([true]);
  });

  it.each([
    '/pdf/x.pdf',
    'pdf/../x.pdf',
    'pdf/a\\b.pdf',
    'pdf/a\0b.pdf',
    'other/x.pdf',
    'pdf/./x.pdf',
    'pdf//x.pdf',
    'pdf/',
  ])('refuses key %j', async (key) => {
    await expect(store.head(key)).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(store.putIfAbsent(key, Buffer.from('x'), { contentType: 'x', metadata: {} })).rejects.toThrow();
  });

  it('index object: create-if-absent, compare-and-swap; the published temp file is gone whatever the answer', async () => {
    expect(await store.readIndex()).toBeNull();
    expect(await store.indexEtag()).toBeNull();
    const publish = async (text: string, expected: string | null) => {
      const { etag, temp } = await publishIndex(store, Buffer.from(text), expected);
      expect(existsSync(temp)).toBe(false);
      return etag;
    };
    const e1 = await publish('one', null);
    expect(e1).toBeTruthy();
    expect(await store.indexEtag()).toBe(e1);
    expect(await publish('again', null)).toBeNull();
    const read = await store.readIndex();
    expect(read!.bytes.toString()).toBe('one');
    expect(read!.etag).toBe(e1);
    const e2 = await publish('two', e1);
    expect(e2).toBeTruthy();
    expect(e2).not.toBe(e1);
    expect(await publish('stale', e1)).toBeNull();
    expect((await store.readIndex())!.bytes.toString()).toBe('two');
    // The index is not an asset object.
    expect((await collect(store.list('pdf/'))).map((o) => o.key)).toEqual([]);
  });

  it('index temp paths are fresh, in an existing directory, and not objects', async () => {
    const [a, b] = [await store.indexTempPath(), await store.indexTempPath()];
    expect(a).not.toBe(b);
    expect(existsSync(a)).toBe(false);
    expect(existsSync(path.dirname(a))).toBe(true);
    await writeFile(a, 'x');
    expect(await collect(store.list('pdf/'))).toEqual([]);
    await rm(a);
  });
});
