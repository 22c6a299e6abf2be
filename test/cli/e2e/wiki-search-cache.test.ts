/**
 * `pks wiki search` with its term-vector cache (the built client): the cache lives in `$XDG_CACHE_HOME/pks` (else
 * `~/.cache/pks`), an edited page is read again, and a damaged cache is rewritten without a word.
 */
import { existsSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RACY_NS } from '../../../src/cli/commands/wiki/search-cache.js';
import { pks, type PksHome } from '../support/pks.js';
import { makeSampleWikiHome } from '../support/sample-wiki.js';

let h: PksHome;
let wiki: string;
beforeEach(async () => {
  ({ h, wiki } = makeSampleWikiHome());
  // Pages last modified an hour ago and directories settled: not "racily clean", so the first run caches them all
  // (a run after a directory settles would otherwise rewrite the cache once to record it).
  const past = new Date(Date.now() - 3_600_000);
  for (const file of pageFiles()) utimesSync(file, past, past);
  await directoriesSettled();
});
afterEach(() => h.cleanup());

/** Awaits the moment every directory of the wiki is `RACY_NS` old (a directory's ctime cannot be set back). */
async function directoriesSettled(): Promise<void> {
  const changed = [wiki, ...(readdirSync(wiki, { recursive: true }) as string[]).map((f) => path.join(wiki, f))]
    .map((f) => statSync(f, { bigint: true }))
    .filter((info) => info.isDirectory())
    .flatMap((info) => [info.mtimeNs, info.ctimeNs])
    .reduce((a, b) => (a > b ? a : b));
  await expect.poll(() => BigInt(Date.now()) * 1_000_000n - changed >= RACY_NS, { interval: 100 }).toBe(true);
}

function pageFiles(): string[] {
  return (readdirSync(wiki, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(wiki, f));
}

const cacheFiles = (dir: string): string[] =>
  existsSync(path.join(dir, 'wiki-search'))
    ? readdirSync(path.join(dir, 'wiki-search')).map((f) => path.join(dir, 'wiki-search', f))
    : [];

async function search(args: string[], env: Record<string, string> = {}) {
  const run = await pks(h, ['wiki', 'search', ...args], { env });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
}

describe('pks wiki search cache', () => {
  it('is written under ~/.cache/pks, reused, and follows a page edit', async () => {
    const cacheDir = path.join(h.home, '.cache', 'pks');
    const first = await search(['grover', '--json', '--limit', '100']);
    expect(JSON.parse(first)).toMatchObject({
      query: 'grover',
      results: expect.arrayContaining([expect.objectContaining({ id: 'algo-grovers-algorithm' })]),
    });
    const [cacheFile] = cacheFiles(cacheDir);
    expect(cacheFiles(cacheDir)).toHaveLength(1);
    const written = readFileSync(cacheFile!);
    expect(await search(['grover', '--json', '--limit', '100'])).toBe(first);
    expect(readFileSync(cacheFile!).equals(written)).toBe(true); // an unchanged wiki: not rewritten

    // A page edited in place (the new word replaces one of the same length): read again.
    const page = pageFiles().find((f) => readFileSync(f, 'utf8').includes('id: algo-grovers-algorithm'))!;
    const text = readFileSync(page, 'utf8');
    writeFileSync(
      page,
      text.replace(/^title: .*$/m, (line) => `title: Zyzzyva${' '.repeat(line.length - 14)}`),
    );
    const past = new Date(Date.now() - 1_800_000);
    utimesSync(page, past, past);
    const edited = await search(['zyzzyva', '--json']);
    expect(JSON.parse(edited)).toMatchObject({
      total: 1,
      results: [{ id: 'algo-grovers-algorithm', title: 'Zyzzyva' }],
    });
    // The same as a run without any cache.
    expect(await search(['zyzzyva', '--json'], { XDG_CACHE_HOME: path.join(h.home, 'other-cache') })).toBe(edited);
    expect(await search(['grover', '--json', '--limit', '100'])).toBe(
      await search(['grover', '--json', '--limit', '100'], { XDG_CACHE_HOME: path.join(h.home, 'fresh-cache') }),
    );
  });

  it('honours XDG_CACHE_HOME', async () => {
    const xdg = path.join(h.home, 'xdg-cache');
    await search(['qubit'], { XDG_CACHE_HOME: xdg });
    expect(cacheFiles(path.join(xdg, 'pks'))).toHaveLength(1);
    expect(cacheFiles(path.join(h.home, '.cache', 'pks'))).toHaveLength(0);
  });

  it.each([
    ['truncated', (b: Buffer) => b.subarray(0, b.length - 7)],
    ['garbage', () => Buffer.from('not a cache at all')],
  ])('a %s cache gives the same results and is rewritten', async (_, damage) => {
    const cacheDir = path.join(h.home, '.cache', 'pks');
    const first = await search(['quantum', '--limit', '20']);
    const [cacheFile] = cacheFiles(cacheDir);
    const good = readFileSync(cacheFile!);
    writeFileSync(cacheFile!, damage(good));
    expect(await search(['quantum', '--limit', '20'])).toBe(first);
    expect(readFileSync(cacheFile!).equals(good)).toBe(true);
  });
});
