/**
 * The `pks wiki search` cache against the plain search (`searchWiki` on a fresh snapshot): random wikis, random
 * edits (new content, same-size edits with a new mtime, deletions, additions, invalid and duplicate pages) between
 * runs, and caches that are corrupt, truncated or of another version.
 */
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import { CACHE_FORMAT_VERSION } from '../../../src/cli/commands/wiki/search-cache-file.js';
import {
  MAX_CACHE_FILES,
  RACY_NS,
  cacheFileFor,
  readCache,
  searchCheckout,
} from '../../../src/cli/commands/wiki/search-cache.js';
import { buildSnapshot, scanWiki, searchWiki, type SearchQuery } from '../../../src/wiki/index.js';
import { compareStrings } from '../../../src/wiki/links.js';
import { mulberry32 } from '../../support/random.js';
import { generateWiki } from '../../wiki/generate.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function setup(pages: number, seed: number) {
  const base = await mkdtemp(path.join(os.tmpdir(), 'pks-search-cache-'));
  dirs.push(base);
  const root = path.join(base, 'wiki');
  const cache = path.join(base, 'cache');
  const generated = await generateWiki(root, pages, { seed, paragraphs: 2, sourceEvery: 4 });
  return { root, cache, generated, cacheFile: cacheFileFor(cache, root) };
}

/** Every page file of the wiki, relative, sorted. */
function pageFiles(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).sort();
}

let clock = Date.now() - 3_600_000;
/** A distinct mtime (whole ms) well in the past (not racily clean), so the file is cacheable. */
function age(file: string): void {
  clock += 1;
  utimesSync(file, new Date(clock), new Date(clock));
}

/** When (ms) every directory of the wiki at `root` has been `RACY_NS` unchanged (a ctime cannot be set back). */
function settledAt(root: string): number {
  const changed = [root, ...(readdirSync(root, { recursive: true }) as string[]).map((f) => path.join(root, f))]
    .map((f) => statSync(f, { bigint: true }))
    .filter((info) => info.isDirectory())
    .flatMap((info) => [info.mtimeNs, info.ctimeNs])
    .reduce((a, b) => (a > b ? a : b));
  return Number((changed + RACY_NS) / 1_000_000n) + 1;
}

const QUERIES: SearchQuery[] = [
  { q: 'qubit superposition' },
  { q: 'hadamard', limit: 100, include_sources: true },
  { q: 'Fourier Transform 1', limit: 5 },
  { q: 'surface code threshold', include_sources: true },
  { q: 'zzzz nothing' },
  { q: '   ' },
  { q: 'ENTANGLEMENT', limit: 100 },
  { q: 'Grüße qubit' },
];

async function expectSameAsPlain(root: string, cache: string): Promise<void> {
  const snapshot = buildSnapshot(await scanWiki(root));
  for (const query of QUERIES) {
    expect(await searchCheckout(root, cache, query), JSON.stringify(query)).toEqual(searchWiki(snapshot, query));
  }
}

const WORDS = ['qubit', 'hadamard', 'fourier', 'entanglement', 'surface', 'threshold', 'Grüße', 'noise'];

describe('pks wiki search cache', () => {
  it('gives the plain search results across random edits, deletions and additions', async () => {
    for (const seed of [1, 2, 3]) {
      const { root, cache, cacheFile } = await setup(40, seed);
      const random = mulberry32(seed * 7919);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
      for (const file of pageFiles(root)) age(path.join(root, file));
      await expectSameAsPlain(root, cache);
      expect(readCache(cacheFile, root)?.files.length).toBe(40);
      for (let round = 0; round < 6; round++) {
        const files = pageFiles(root);
        for (let e = 0; e < 5; e++) {
          const file = path.join(root, pick(files));
          let text: string;
          try {
            text = readFileSync(file, 'utf8');
          } catch {
            continue; // deleted earlier in this round
          }
          switch (Math.floor(random() * 6)) {
            case 0: // new words at the end
              writeFileSync(file, `${text}\n${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}\n`);
              break;
            case 1: {
              // Same size, new content: one word swapped for another of the same length.
              const from = text.match(/\b(qubit|noise|phase|basis|gate)\b/);
              if (!from) continue;
              const to = { qubit: 'oracl', noise: 'ancil', phase: 'depth', basis: 'width', gate: 'bell' }[from[1]!]!;
              writeFileSync(file, text.replace(from[0], to.padEnd(from[0].length, 'x')));
              break;
            }
            case 2:
              unlinkSync(file);
              continue;
            case 3: // a new page, or a duplicate id of an existing one
              writeFileSync(
                path.join(root, 'concepts', `added-${round}-${e}.md`),
                random() < 0.5 ? text : text.replace(/^id: (.*)$/m, `id: added-${round}-${e}`),
              );
              age(path.join(root, 'concepts', `added-${round}-${e}.md`));
              continue;
            case 4: // an invalid page
              writeFileSync(file, text.replace(/^title: .*\n/m, ''));
              break;
            default: // touched, unchanged
              break;
          }
          age(file);
        }
        await expectSameAsPlain(root, cache);
        expect(readCache(cacheFile, root)?.files.length).toBe(pageFiles(root).length);
      }
    }
  });

  it('reads a page again only when its size or mtime changed', async () => {
    const { root, cache, cacheFile, generated } = await setup(12, 4);
    for (const file of pageFiles(root)) age(path.join(root, file));
    const query = { q: 'zebra', limit: 100, include_sources: true };
    // Directories settled, or a run after they settle would rewrite the cache once to record them.
    const clock = () => Math.max(Date.now(), settledAt(root));
    const before = await searchCheckout(root, cache, query, clock);
    expect(before).toEqual({ query: 'zebra', total: 0, results: [] });
    const written = statSync(cacheFile, { bigint: true }).mtimeNs;
    // An unchanged wiki: the cache is used and not rewritten.
    expect(await searchCheckout(root, cache, query, clock)).toEqual(before);
    expect(statSync(cacheFile, { bigint: true }).mtimeNs).toBe(written);

    const file = path.join(root, 'concepts', `${generated.ids[0]}.md`);
    const { atime, mtime } = statSync(file);
    const text = readFileSync(file, 'utf8');
    const changed = text.replace(/^title: .*$/m, (line) => `title: Zebra${' '.repeat(line.length - 12)}`);
    expect(changed.length).toBe(text.length);
    writeFileSync(file, changed);
    // Same size and the old mtime: the cache answers (with the old title).
    utimesSync(file, atime, mtime);
    expect(await searchCheckout(root, cache, query, clock)).toEqual(before);
    // A new mtime: that page is read again.
    age(file);
    const after = await searchCheckout(root, cache, query, clock);
    expect(after.results).toMatchObject([{ id: generated.ids[0], title: 'Zebra' }]);
    expect(after).toEqual(searchWiki(buildSnapshot(await scanWiki(root)), query));
  });

  it('does not cache a page modified in the last seconds (a same-size edit could keep its mtime)', async () => {
    const { root, cache, cacheFile } = await setup(6, 5);
    // A run one second after the first page was written (a loaded machine may take longer to get there).
    const written = Math.floor(Math.min(...pageFiles(root).map((file) => statSync(path.join(root, file)).mtimeMs)));
    await searchCheckout(root, cache, { q: 'qubit' }, () => written + 1_000);
    expect(readCache(cacheFile, root)?.files.length).toBe(0);
    for (const file of pageFiles(root)) age(path.join(root, file));
    await searchCheckout(root, cache, { q: 'qubit' });
    expect(readCache(cacheFile, root)?.files.length).toBe(6);
  });

  it('records the directories once they have settled: the cache is rewritten once, then left alone', async () => {
    const { root, cache, cacheFile } = await setup(6, 9);
    for (const file of pageFiles(root)) age(path.join(root, file));
    const query = { q: 'qubit', limit: 100 };
    const plain = searchWiki(buildSnapshot(await scanWiki(root)), query);
    const settled = settledAt(root);
    // A directory changed in the last seconds: the files are cached, the directories not, and a run at that
    // moment does not rewrite the cache.
    expect(await searchCheckout(root, cache, query, () => settled - 1)).toEqual(plain);
    expect(readCache(cacheFile, root)).toMatchObject({ files: { length: 6 }, dirs: [] });
    const unsettled = readFileSync(cacheFile);
    expect(await searchCheckout(root, cache, query, () => settled - 1)).toEqual(plain);
    expect(readFileSync(cacheFile).equals(unsettled)).toBe(true);
    // Settled: the next run records them (every directory of the wiki)…
    expect(await searchCheckout(root, cache, query, () => settled)).toEqual(plain);
    const directories = [root, ...(readdirSync(root, { recursive: true }) as string[]).map((f) => path.join(root, f))]
      .filter((f) => statSync(f).isDirectory())
      .map((f) => realpathSync(f))
      .sort();
    expect(readCache(cacheFile, root)?.dirs.map((dir) => dir.real)).toEqual(directories);
    expect(readCache(cacheFile, root)?.files).toHaveLength(6);
    // …and later runs leave the cache as it is.
    const recorded = readFileSync(cacheFile);
    expect(recorded.equals(unsettled)).toBe(false);
    expect(await searchCheckout(root, cache, query, () => settled + 60_000)).toEqual(plain);
    expect(readFileSync(cacheFile).equals(recorded)).toBe(true);
  });

  it('records the directories in path order: the same wiki gives the same cache bytes', async () => {
    const { root, cache, cacheFile } = await setup(6, 10);
    // Many directories, made in a shuffled order: the walk stats them in parallel, in the order it lists them.
    const random = mulberry32(10);
    const names = Array.from({ length: 40 }, (_, i) => `d${String(i).padStart(2, '0')}`);
    for (let i = names.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [names[i], names[j]] = [names[j]!, names[i]!];
    }
    for (const name of names) mkdirSync(path.join(root, 'concepts', name));
    for (const file of pageFiles(root)) age(path.join(root, file));
    const settled = settledAt(root);
    const query = { q: 'qubit' };
    await searchCheckout(root, cache, query, () => settled);
    const directories = [root, ...(readdirSync(root, { recursive: true }) as string[]).map((f) => path.join(root, f))]
      .filter((f) => statSync(f).isDirectory())
      .map((f) => realpathSync(f))
      .sort(compareStrings);
    expect(readCache(cacheFile, root)?.dirs.map((dir) => dir.real)).toEqual(directories);
    const first = readFileSync(cacheFile);
    for (let run = 0; run < 3; run++) {
      unlinkSync(cacheFile);
      await searchCheckout(root, cache, query, () => settled);
      expect(readFileSync(cacheFile).equals(first)).toBe(true);
    }
  });

  const damages: [string, (bytes: Buffer) => Buffer][] = [
    ['truncated', (b) => b.subarray(0, Math.floor(b.length / 2))],
    ['empty', () => Buffer.alloc(0)],
    ['a flipped byte', (b) => Buffer.from(b).fill(b[b.length >> 1]! ^ 0xff, b.length >> 1, (b.length >> 1) + 1)],
    [
      'another version',
      (b) => {
        // The version of the header section (after the magic and the section's length), checksum recomputed.
        const copy = Buffer.from(b);
        copy.writeUInt32LE(CACHE_FORMAT_VERSION + 1, 16);
        const end = copy.length - 4;
        copy.writeUInt32LE(crc32(copy.subarray(0, end)), end);
        return copy;
      },
    ],
    ['not a cache', () => Buffer.from('{"hello": "world"}\n')],
  ];
  it.each(damages)('ignores and rewrites a cache that is %s', async (_, damage) => {
    const { root, cache, cacheFile } = await setup(10, 6);
    for (const file of pageFiles(root)) age(path.join(root, file));
    await searchCheckout(root, cache, { q: 'qubit' });
    writeFileSync(cacheFile, damage(readFileSync(cacheFile)));
    expect(readCache(cacheFile, root)).toBeNull();
    await expectSameAsPlain(root, cache);
    expect(readCache(cacheFile, root)?.files.length).toBe(10);
  });

  it('an unwritable cache directory is no error', async () => {
    const { root, cache } = await setup(5, 7);
    writeFileSync(cache, 'a file where the directory should be');
    await expectSameAsPlain(root, cache);
  });

  it('a missing wiki gives no results and writes no cache', async () => {
    const { cache } = await setup(1, 8);
    const missing = path.join(cache, '..', 'missing');
    expect(await searchCheckout(missing, cache, { q: 'qubit' })).toEqual({ query: 'qubit', total: 0, results: [] });
    expect(() => statSync(cache)).toThrow();
  });
});

describe('pks wiki search cache directory', () => {
  it('keeps at most MAX_CACHE_FILES caches, the current one among them, and removes stale temp files', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'pks-search-cache-'));
    dirs.push(base);
    const cache = path.join(base, 'cache');
    const stale = path.join(cache, 'wiki-search', 'x.bin.1.abcd.tmp');
    const roots: string[] = [];
    for (let i = 0; i < MAX_CACHE_FILES + 3; i++) {
      const root = path.join(base, `wiki-${i}`);
      await generateWiki(root, 2, { seed: i + 1 });
      for (const file of pageFiles(root)) age(path.join(root, file));
      roots.push(root);
      await searchCheckout(root, cache, { q: 'qubit' });
      if (i === 0) {
        writeFileSync(stale, 'left by a killed run');
        utimesSync(stale, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
      }
    }
    const names = readdirSync(path.join(cache, 'wiki-search'));
    expect(names).toHaveLength(MAX_CACHE_FILES);
    expect(names.every((n) => n.endsWith('.bin'))).toBe(true);
    expect(readCache(cacheFileFor(cache, roots.at(-1)!), roots.at(-1)!)?.files).toHaveLength(2);
  });
});
