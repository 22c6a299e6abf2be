/**
 * The directory shortcut of the `pks wiki search` cache: while no directory of a plain tree changed, the cached
 * files are the candidates (no walk) — each still stat'ed, so an edit in place is seen; any change of a directory's
 * entries, a rename, a tree with symlinks or a directory changed in the last seconds means a walk. Every result is
 * compared with the plain search on a fresh snapshot.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cacheFileFor, readCache, searchCheckout } from '../../../src/cli/commands/wiki/search-cache.js';
import { buildSnapshot, scanWiki, searchWiki, type SearchQuery } from '../../../src/wiki/index.js';
import * as scan from '../../../src/wiki/scan.js';

vi.mock('../../../src/wiki/scan.js', async (importOriginal) => {
  const original = await importOriginal<typeof scan>();
  return { ...original, walkWiki: vi.fn(original.walkWiki) };
});
const walks = () => vi.mocked(scan.walkWiki).mock.calls.length;

/** An hour ahead: every file and directory is settled (not "racily clean"), whatever its real timestamps. */
const later = () => Date.now() + 3_600_000;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  vi.mocked(scan.walkWiki).mockClear();
});

const page = (id: string, title: string, body: string): string =>
  `---\nid: ${id}\ntitle: ${title}\ntype: concept\ncategory: algorithms\ncreated_at: 2026-01-15\n` +
  `updated_at: 2026-01-15\n---\n# ${title}\n\n${body}\n`;

async function setup() {
  const base = await mkdtemp(path.join(os.tmpdir(), 'pks-search-dirs-'));
  dirs.push(base);
  const root = path.join(base, 'wiki');
  const cache = path.join(base, 'cache');
  mkdirSync(path.join(root, 'concepts', 'nested', 'deeper'), { recursive: true });
  writeFileSync(path.join(root, 'concepts', 'alpha.md'), page('alpha', 'Alpha Qubit', 'qubit gate noise'));
  writeFileSync(path.join(root, 'concepts', 'nested', 'beta.md'), page('beta', 'Beta', 'qubit qubit hadamard'));
  writeFileSync(path.join(root, 'concepts', 'nested', 'deeper', 'gamma.md'), page('gamma', 'Gamma', 'hadamard'));
  return { root, cache, cacheFile: cacheFileFor(cache, root) };
}

const QUERIES: SearchQuery[] = [{ q: 'qubit' }, { q: 'hadamard', limit: 100 }, { q: 'zebra' }];

/** Every query through the cache, against the plain search; returns how many walks the cached runs made. */
async function expectSameAsPlain(root: string, cache: string): Promise<number> {
  const snapshot = buildSnapshot(await scanWiki(root));
  const before = walks();
  for (const query of QUERIES) {
    expect(await searchCheckout(root, cache, query, later), JSON.stringify(query)).toEqual(searchWiki(snapshot, query));
  }
  return walks() - before;
}

/** A cache that records the directories, and a run that used them (no walk). */
async function settledCache(root: string, cache: string, cacheFile: string): Promise<void> {
  await searchCheckout(root, cache, { q: 'qubit' }, later);
  // The root, concepts, its subdirectory and the one below.
  expect(readCache(cacheFile, root)?.dirs).toHaveLength(4);
  expect(await expectSameAsPlain(root, cache)).toBe(0);
}

describe('pks wiki search cache: unchanged directories are not walked again', () => {
  it('sees a page edited in place with the same size (its directory unchanged)', async () => {
    const { root, cache, cacheFile } = await setup();
    await settledCache(root, cache, cacheFile);
    const file = path.join(root, 'concepts', 'nested', 'deeper', 'gamma.md');
    writeFileSync(file, page('gamma', 'Gamma', 'zebra___'));
    utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000)); // a new mtime, same size
    expect(await expectSameAsPlain(root, cache)).toBe(0);
    expect((await searchCheckout(root, cache, { q: 'zebra' }, later)).results.map((r) => r.id)).toEqual(['gamma']);
  });

  it('walks again when a page is added or removed in a nested directory', async () => {
    const { root, cache, cacheFile } = await setup();
    await settledCache(root, cache, cacheFile);
    writeFileSync(path.join(root, 'concepts', 'nested', 'deeper', 'delta.md'), page('delta', 'Delta', 'zebra'));
    expect(await expectSameAsPlain(root, cache)).toBeGreaterThan(0);
    expect((await searchCheckout(root, cache, { q: 'zebra' }, later)).results.map((r) => r.id)).toEqual(['delta']);
    await settledCache(root, cache, cacheFile);
    unlinkSync(path.join(root, 'concepts', 'nested', 'beta.md'));
    expect(await expectSameAsPlain(root, cache)).toBeGreaterThan(0);
    expect((await searchCheckout(root, cache, { q: 'qubit' }, later)).results.map((r) => r.id)).toEqual(['alpha']);
  });

  it('walks again when a directory is renamed, or replaced by another of the same name', async () => {
    const { root, cache, cacheFile } = await setup();
    await settledCache(root, cache, cacheFile);
    renameSync(path.join(root, 'concepts', 'nested'), path.join(root, 'concepts', 'moved'));
    expect(await expectSameAsPlain(root, cache)).toBeGreaterThan(0);
    expect(readCache(cacheFile, root)?.files.map((f) => f.path)).toEqual([
      'concepts/alpha.md',
      'concepts/moved/beta.md',
      'concepts/moved/deeper/gamma.md',
    ]);
    await settledCache(root, cache, cacheFile);
    // Another directory under the old name, holding the same names.
    const deeper = path.join(root, 'concepts', 'moved', 'deeper');
    rmSync(deeper, { recursive: true });
    mkdirSync(deeper);
    writeFileSync(path.join(deeper, 'gamma.md'), page('gamma', 'Gamma', 'zebra'));
    expect(await expectSameAsPlain(root, cache)).toBeGreaterThan(0);
  });

  it('always walks a tree with symlinks, and follows a symlinked directory whose target changes', async () => {
    const { root, cache, cacheFile } = await setup();
    const elsewhere = path.join(root, 'targets', 'other');
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(path.join(elsewhere, 'epsilon.md'), page('epsilon', 'Epsilon', 'zebra'));
    symlinkSync(path.join('..', 'concepts', 'nested'), path.join(root, 'targets', 'link'));
    await searchCheckout(root, cache, { q: 'qubit' }, later);
    expect(readCache(cacheFile, root)?.dirs).toEqual([]);
    expect(await expectSameAsPlain(root, cache)).toBe(QUERIES.length);
    // The link now points elsewhere (its own directory's mtime moves, but nothing relies on it).
    unlinkSync(path.join(root, 'targets', 'link'));
    symlinkSync(path.join('..', 'concepts'), path.join(root, 'targets', 'link'));
    expect(await expectSameAsPlain(root, cache)).toBe(QUERIES.length);
    // The target's content changes.
    writeFileSync(path.join(root, 'concepts', 'zeta.md'), page('zeta', 'Zeta', 'zebra qubit'));
    expect(await expectSameAsPlain(root, cache)).toBe(QUERIES.length);
  });

  it('does not record directories changed in the last seconds', async () => {
    const { root, cache, cacheFile } = await setup();
    // The real clock: the directories were just created.
    await searchCheckout(root, cache, { q: 'qubit' });
    expect(readCache(cacheFile, root)?.dirs ?? []).toEqual([]);
  });
});
