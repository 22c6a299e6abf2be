/**
 * The server's loader (`loadWikiIsolated`: the scan in a worker thread, bodies and paths posted once, the load with
 * the young generation held) serves the same snapshot as the library's in-process `loadWiki`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWikiIsolated, loaderWorkerFile } from '../../../src/server/wiki/loader.js';
import { loadWiki, searchWiki } from '../../../src/wiki/index.js';
import { generateWiki, type GeneratedWiki } from '../../wiki/generate.js';
import { servedData } from '../../wiki/served.js';

let base: string;
let generated: GeneratedWiki;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-wiki-loader-'));
  generated = await generateWiki(path.join(base, 'wiki'), 120);
  // An invalid page and a duplicate id: excluded, with their files still in the snapshot.
  await writeFile(path.join(generated.dir, 'concepts', 'broken.md'), '---\nid: [unclosed\n---\nBody.\n');
  await writeFile(
    path.join(generated.dir, 'concepts', 'zz-duplicate.md'),
    `---\nid: ${generated.ids[0]}\ntitle: Again\ntype: concept\n---\nSame id as [[${generated.ids[1]}]].\n`,
  );
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const QUERIES = ['qubit', 'gate error', 'paper', 'definition compare'];

describe('loadWikiIsolated', () => {
  it('runs the scan in the compiled worker (npm run build)', () => {
    expect(loaderWorkerFile()).not.toBeNull();
  });

  it('serves the same files, pages, link index and search results as loadWiki', async () => {
    const [isolated, inProcess] = await Promise.all([loadWikiIsolated(generated.dir), loadWiki(generated.dir)]);
    expect(isolated.pages).toHaveLength(120);
    expect(isolated.excluded.map((e) => e.path).sort()).toEqual(['concepts/broken.md', 'concepts/zz-duplicate.md']);
    // Every query with the source pages and 20 hits, both ways.
    const search: typeof searchWiki = (snapshot, options) =>
      searchWiki(snapshot, { ...options, limit: 20, include_sources: true });
    expect(servedData(isolated, QUERIES, search)).toEqual(servedData(inProcess, QUERIES, search));
    for (const page of isolated.pages) expect(page.body.length).toBeGreaterThan(0);
  });
});
