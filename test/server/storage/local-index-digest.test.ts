/**
 * The local backend's index ETag (the file's sha256, CONTRACT §4.2) kept in the index's sidecar so that a load in
 * another process does not hash the whole file (issue 25): the sidecar is trusted only while the file is the one
 * it was written for; a file replaced or changed by anything else is hashed, and compare-and-swap follows it.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';
import { publishIndex } from './backends.js';

let root: string;
const indexFile = () => path.join(root, 'index', 'papers.parquet');
const sidecar = () => indexFile() + '.meta.json';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'pks-index-digest-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

it('a fresh store takes the ETag of an index written by writeIndexFile from its sidecar, without reading it', async () => {
  const etag = (await publishIndex(new LocalObjectStore(root), Buffer.from('one'), null)).etag;
  expect(etag).toBe(sha256('one'));
  expect(JSON.parse(await readFile(sidecar(), 'utf8'))).toMatchObject({ sha256: sha256('one') });
  // A sidecar that names this very file is believed (a digest that is not the content's proves it is not hashed).
  const saved = JSON.parse(await readFile(sidecar(), 'utf8')) as { signature: string };
  await writeFile(sidecar(), JSON.stringify({ sha256: 'f'.repeat(64), signature: saved.signature }));
  const fresh = new LocalObjectStore(root);
  expect(await fresh.indexEtag()).toBe('f'.repeat(64));
  expect((await fresh.readIndex())!.etag).toBe('f'.repeat(64));
});

it.each([
  [
    'replaced by another writer (temp + rename)',
    async () => {
      await writeFile(indexFile() + '.new', 'two');
      await rename(indexFile() + '.new', indexFile());
    },
  ],
  ['rewritten in place with the same size', async () => writeFile(indexFile(), 'owt')],
  ['touched to another mtime', async () => utimes(indexFile(), new Date(5_000), new Date(5_000))],
])('an index %s is hashed again, and compare-and-swap follows the new digest', async (_, change) => {
  const first = (await publishIndex(new LocalObjectStore(root), Buffer.from('one'), null)).etag;
  await change();
  const content = await readFile(indexFile(), 'utf8');
  for (const store of [new LocalObjectStore(root), new LocalObjectStore(root)]) {
    const read = await store.readIndex();
    expect(read!.etag).toBe(sha256(content));
    expect(await store.indexEtag()).toBe(sha256(content));
  }
  const store = new LocalObjectStore(root);
  if (content !== 'one') expect((await publishIndex(store, Buffer.from('stale'), first)).etag).toBeNull();
  expect((await publishIndex(store, Buffer.from('three'), sha256(content))).etag).toBe(sha256('three'));
  expect(await new LocalObjectStore(root).indexEtag()).toBe(sha256('three'));
});

it('a torn or foreign sidecar is ignored', async () => {
  await publishIndex(new LocalObjectStore(root), Buffer.from('one'), null);
  for (const text of ['{"sha2', '{"sha256": "' + 'f'.repeat(64) + '"}', 'null', '[]']) {
    await writeFile(sidecar(), text);
    expect(await new LocalObjectStore(root).indexEtag()).toBe(sha256('one'));
  }
});
