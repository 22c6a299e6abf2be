/**
 * The search index built with the page bodies' terms counted beforehand (issue 25: pksd's load worker counts them, so
 * the serving thread does not tokenize the bodies) against the index that tokenizes them itself: same files, pages,
 * exclusions, links and search results, on random corpora. The worker itself: test/server/wiki/loader.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BodyCounts,
  buildSnapshot,
  buildSnapshotAsync,
  scanFromSources,
  type WikiSnapshot,
} from '../../src/wiki/index.js';
import { servedData } from './served.js';

const WORDS = ['qubit', 'Gate', 'phase', 'BELL', 'état', 'Höyer', 'x2', '42', 'grover', 'ﬁne', 'naïve', 'a', 'e\u0301'];

/** Every term of the pages' titles, tags and first body words, one by one and in pairs, plus a few misses. */
function queriesOf(snapshot: WikiSnapshot): string[] {
  const words = new Set<string>(['', 'zzznothing', 'qubit gate', 'ÉTAT', 'Hoyer']);
  for (const page of snapshot.pages.slice(0, 60)) {
    for (const w of [...page.title.split(/\s+/), ...page.tags, ...page.body.split(/\s+/).slice(0, 12)]) words.add(w);
  }
  const list = [...words];
  return [...list, ...list.slice(1).map((w, i) => `${list[i]} ${w}`)];
}

const wordArb = fc.constantFrom(...WORDS);
const pageSpec = fc.record({
  title: fc.array(wordArb, { minLength: 1, maxLength: 3 }),
  tags: fc.array(wordArb, { maxLength: 3 }),
  body: fc.array(fc.oneof(wordArb, fc.constantFrom(' ', '\n', '[[p1]]', '`code Gate`', '-', '.')), { maxLength: 40 }),
  type: fc.constantFrom('concept', 'source'),
  form: fc.constantFrom('plain', 'crlf', 'bom', 'no-frontmatter', 'bad-yaml', 'duplicate-id'),
});
type PageSpec = typeof pageSpec extends fc.Arbitrary<infer T> ? T : never;

function pageText(spec: PageSpec, i: number): string {
  const id = spec.form === 'duplicate-id' ? 'p0' : `p${i}`;
  const frontmatter =
    spec.form === 'bad-yaml'
      ? `id: [${id}\n`
      : `id: ${id}\ntitle: ${JSON.stringify(spec.title.join(' '))}\ntype: ${spec.type}\ntags: [${spec.tags.join(', ')}]\n`;
  const text =
    spec.form === 'no-frontmatter' ? spec.body.join(' ') : `---\n${frontmatter}---\n${spec.body.join(' ')}\n`;
  if (spec.form === 'crlf') return text.replace(/\n/g, '\r\n');
  return spec.form === 'bom' ? `\ufeff${text}` : text;
}

describe('the search index with bodies counted beforehand', () => {
  it('equals the index that tokenizes the bodies itself, on random corpora', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(pageSpec, { maxLength: 20 }), async (specs) => {
        const sources = specs.map((spec, i) => ({ path: `d${i % 3}/p${i}.md`, text: pageText(spec, i) }));
        const scan = scanFromSources(sources);
        // The worker counts the files' page bodies in scan order.
        const counts = new BodyCounts();
        for (const file of scan.files) counts.add(file.page === null ? null : file.page.body);
        const now = new Date(0);
        const merged = await buildSnapshotAsync(scan, now, counts.result());
        const plain = buildSnapshot(scan, now);
        const queries = queriesOf(plain);
        expect(servedData(merged, queries)).toEqual(servedData(plain, queries));
      }),
      { numRuns: 100 },
    );
  });
});
