/** `pks wiki …` (CONTRACT §16.3 wiki rows) on a local checkout; search compared with `GET /api/search`. */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestServer, type TestServer } from '../../support/server.js';
import { generateWiki } from '../../wiki/generate.js';
import { makeHome, pks, writeConfig, type PksHome } from '../support/pks.js';
import { makeSampleWikiHome } from '../support/sample-wiki.js';

let h: PksHome;
let wiki: string;
beforeEach(() => {
  ({ h, wiki } = makeSampleWikiHome());
});
afterEach(() => h.cleanup());

const today = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

describe('wiki list', () => {
  it('the table of non-source pages, sorted by id', async () => {
    const run = await pks(h, ['wiki', 'list']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Found 14 pages:');
    expect(lines[1]).toBe(`${'ID'.padEnd(30)} ${'Type'.padEnd(12)} ${'Status'.padEnd(10)} Title`);
    expect(lines[2]).toBe(`${'-'.repeat(30)} ${'-'.repeat(12)} ${'-'.repeat(10)} ${'-'.repeat(40)}`);
    expect(lines[3]).toBe(
      `${'algo-grovers-algorithm'.padEnd(30)} ${'concept'.padEnd(12)} ${'published'.padEnd(10)} Grover's algorithm`,
    );
    // Ids are never cut (they are what `wiki show` takes); titles are cut at 40 characters.
    expect(lines).toContain(
      `concept-quantum-error-correction ${'concept'.padEnd(12)} ${'review'.padEnd(10)} Quantum error correction`,
    );
    expect(run.stdout).not.toContain('paper-');
  });

  it('--type source, --status and --tags filter; nothing → "No pages found."', async () => {
    const sources = await pks(h, ['wiki', 'list', '--type', 'source']);
    expect(sources.stdout.split('\n')[0]).toBe('Found 1 pages:');
    expect(sources.stdout).toContain('paper-preprint-quant-ph-9508027v2');
    expect((await pks(h, ['wiki', 'list', '--status', 'review'])).stdout.split('\n')[0]).toBe('Found 2 pages:');
    const tagged = await pks(h, ['wiki', 'list', '--tags', 'EIGENVALUES,nothing']);
    expect(tagged.stdout.split('\n')[0]).toBe('Found 1 pages:');
    expect(await pks(h, ['wiki', 'list', '--type', 'comparison'])).toMatchObject({
      code: 0,
      stdout: 'No pages found.\n',
    });
  });

  it('a missing wiki directory is an empty wiki', async () => {
    writeConfig(h, 'wiki_dir: nowhere\n');
    expect(await pks(h, ['wiki', 'list'])).toMatchObject({ code: 0, stdout: 'No pages found.\n' });
  });
});

describe('wiki show', () => {
  it('a header block, then the body; --raw prints the file; unknown → exit 1', async () => {
    const run = await pks(h, ['wiki', 'show', 'prim-phase-estimation']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').slice(0, 10)).toEqual([
      'ID:       prim-phase-estimation',
      'Title:    Quantum phase estimation',
      'Type:     concept',
      'Category: primitive',
      'Status:   published',
      'Tags:     eigenvalues, primitive',
      'Created:  2026-11-05',
      'Updated:  2026-11-20',
      '',
      '# Quantum phase estimation',
    ]);
    const file = readFileSync(path.join(wiki, 'concepts/prim-phase-estimation.md'), 'utf8');
    expect((await pks(h, ['wiki', 'show', 'prim-phase-estimation', '--raw'])).stdout).toBe(file);
    expect(await pks(h, ['wiki', 'show', 'no-such-page'])).toMatchObject({
      code: 1,
      stderr: 'Page not found: no-such-page\n',
    });
  });
});

describe('wiki links', () => {
  it('outgoing links to existing pages, sorted; --backlinks; none; unknown page → exit 1', async () => {
    writeFileSync(
      path.join(wiki, 'concepts/concept-lonely.md'),
      '---\nid: concept-lonely\ntitle: Lonely\ntype: concept\ncreated_at: 2026-01-01\nstatus: draft\n---\n\nSee [[no-such-page]].\n',
    );
    const out = await pks(h, ['wiki', 'links', 'prim-phase-estimation']);
    expect(out.stdout).toBe(
      [
        'Links from prim-phase-estimation (Quantum phase estimation):',
        "  - [concept] algo-shors-algorithm: Shor's algorithm",
        '  - [concept] concept-hadamard-gate: Hadamard gate',
        '  - [concept] prim-amplitude-amplification: Amplitude amplification',
        '  - [concept] prim-quantum-fourier-transform: Quantum Fourier transform',
        '',
      ].join('\n'),
    );
    const back = await pks(h, ['wiki', 'links', 'concept-qubit', '--backlinks']);
    expect(back.stdout.split('\n')[0]).toBe('Backlinks to concept-qubit (Qubit):');
    expect((await pks(h, ['wiki', 'links', 'concept-lonely'])).stdout).toBe(
      'Links from concept-lonely (Lonely):\n  No links found.\n',
    );
    expect((await pks(h, ['wiki', 'links', 'nope'])).code).toBe(1);
  });
});

describe('wiki lint', () => {
  it('a clean wiki: the summary, exit 0', async () => {
    expect(await pks(h, ['wiki', 'lint'])).toMatchObject({
      code: 0,
      stdout: `Wiki lint: ${wiki}\nTotal issues: 0\nErrors: 0\nWarnings: 0\nInfo: 0\n`,
    });
  });

  it('errors → exit 1; -v lists the findings; --fix adds created_at and status', async () => {
    writeFileSync(
      path.join(wiki, 'concepts/concept-broken.md'),
      '---\nid: concept-broken\ntitle: Broken\ntype: concept\n---\n\n## Definition\n\nText with [[missing-target]].\n',
    );
    const run = await pks(h, ['wiki', 'lint', '-v']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('  [ERROR] W001 concept-broken: Missing required field: created_at\n');
    expect(run.stdout).toContain('  [ERROR] W001 concept-broken: Missing required field: status\n');
    expect(run.stdout).toContain('  [WARNING] W004 concept-broken: Broken link: [[missing-target]]\n');
    expect(run.stdout).toContain('  [INFO] W003 concept-broken: Orphan page: no incoming links\n');
    expect(run.stdout).toMatch(/\n {6}Suggestion: /);
    expect(run.stdout).toContain('Total issues: 4\nErrors: 2\nWarnings: 1\nInfo: 1\n');
    const fixed = await pks(h, ['wiki', 'lint', '--fix']);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain('Errors: 0\n');
    expect(fixed.stdout).toContain('Fixed: 2\n');
    const text = readFileSync(path.join(wiki, 'concepts/concept-broken.md'), 'utf8');
    expect(text).toContain(`created_at: ${today()}\n`);
    expect(text).toContain('status: draft\n');
  });
});

describe('wiki stats', () => {
  it('totals by type, status and category, graph-sync counts', async () => {
    const run = await pks(h, ['wiki', 'stats']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Total pages: 15 (14 entries, 1 sources)\n');
    expect(run.stdout).toContain('By type:\n  concept: 14\n  entity: 0\n  source: 1\n  comparison: 0\n');
    expect(run.stdout).toContain('By status:\n  draft: 0\n  review: 2\n  published: 13\n');
    expect(run.stdout).toContain('  primitive: 3\n');
    expect(run.stdout).toContain('Graph: 0 synced, 15 need sync\nInvalid pages: 0\n');
  });
});

describe('wiki create', () => {
  it.each([
    [['--type', 'concept'], 'concepts'],
    [['--type', 'entity', '--category', 'algorithm'], 'entities/algorithms'],
    [['--type', 'entity', '--category', 'primitive'], 'entities/primitives'],
    [['--type', 'entity', '--category', 'person'], 'entities/people'],
    [['--type', 'entity', '--category', 'framework'], 'entities'],
    [['--type', 'source'], 'sources/papers'],
    [['--type', 'comparison'], 'comparisons'],
    [['--subdir', 'custom/deep/'], 'custom/deep'],
  ])('%j → <wiki>/%s/<id>.md', async (flags, dir) => {
    const run = await pks(h, [
      'wiki',
      'create',
      'concept-new-page',
      '--title',
      'New page',
      '--content',
      'Body.',
      ...flags,
    ]);
    const target = path.join(wiki, dir, 'concept-new-page.md');
    expect(run).toMatchObject({ code: 0, stdout: `Created page: ${target}\n` });
    expect(readFileSync(target, 'utf8')).toContain('id: concept-new-page\ntitle: New page\n');
  });

  it('writes the frontmatter fields in order; the body from stdin; the page lints clean', async () => {
    const body = '# Amplitude\n\n## Definition\n\nA complex number. See [[concept-qubit]].\n';
    const run = await pks(
      h,
      [
        'wiki',
        'create',
        'concept-amplitude',
        '--title',
        'Amplitude: a number',
        '--category',
        'foundation',
        '--tags',
        'basics, math',
        '--status',
        'review',
      ],
      { stdin: body },
    );
    expect(run.code).toBe(0);
    expect(readFileSync(path.join(wiki, 'concepts/concept-amplitude.md'), 'utf8')).toBe(
      `---\nid: concept-amplitude\ntitle: "Amplitude: a number"\ntype: concept\ncategory: foundation\ntags: [ basics, math ]\ncreated_at: ${today()}\nstatus: review\nrelated: []\n---\n\n${body}`,
    );
    const lint = await pks(h, ['wiki', 'lint', '-v']);
    expect(lint.stdout).toContain('Errors: 0\nWarnings: 0\n');
    expect((await pks(h, ['wiki', 'show', 'concept-amplitude'])).stdout).toContain('Tags:     basics, math\n');
  });

  it('-f reads the body from a file', async () => {
    writeFileSync(path.join(h.cwd, 'body.md'), '## Summary\n\nFrom a file.\n');
    await pks(h, ['wiki', 'create', 'concept-from-file', '--title', 'F', '-f', 'body.md']);
    expect(readFileSync(path.join(wiki, 'concepts/concept-from-file.md'), 'utf8')).toMatch(
      /---\n\n## Summary\n\nFrom a file\.\n$/,
    );
  });

  it('an existing file → exit 1 unless --force; a bad id, type or status → exit 2; a subdir outside → exit 2', async () => {
    const args = ['wiki', 'create', 'concept-qubit', '--title', 'Q', '--content', 'x'];
    expect((await pks(h, args)).code).toBe(1);
    expect((await pks(h, [...args, '--force'])).code).toBe(0);
    expect(readFileSync(path.join(wiki, 'concepts/concept-qubit.md'), 'utf8')).toContain('title: Q\n');
    for (const bad of [
      ['wiki', 'create', 'Not_Kebab', '--title', 'x', '--content', 'x'],
      ['wiki', 'create', 'concept-x', '--title', 'x', '--type', 'essay', '--content', 'x'],
      ['wiki', 'create', 'concept-x', '--title', 'x', '--status', 'final', '--content', 'x'],
      ['wiki', 'create', 'concept-x', '--title', 'x', '--subdir', '../outside', '--content', 'x'],
      ['wiki', 'create', 'concept-x', '--content', 'x'],
    ]) {
      expect((await pks(h, bad)).code).toBe(2);
    }
  });
});

describe('wiki ingest (legacy)', () => {
  it('writes the source stub with arXiv links (and the DOI when given), no network; existing → exit 1', async () => {
    const run = await pks(h, [
      'wiki',
      'ingest',
      'quant-ph/9605043v3',
      '--title',
      'A fast search',
      '--doi',
      '10.1145/237814.237866',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^warning: 'pks wiki ingest' is deprecated/);
    const file = path.join(wiki, 'sources/papers/paper-preprint-quant-ph-9605043v3.md');
    expect(run.stdout).toBe(`Created page: ${file}\n`);
    const text = readFileSync(file, 'utf8');
    for (const line of [
      'id: paper-preprint-quant-ph-9605043v3\n',
      'title: A fast search\n',
      'type: source\n',
      'category: paper\n',
      'status: draft\n',
      `created_at: ${today()}\n`,
      '    url: https://arxiv.org/abs/quant-ph/9605043v3\n',
      '    url: https://arxiv.org/pdf/quant-ph/9605043v3\n',
      'doi: 10.1145/237814.237866\n',
      'doi_source: manual\n',
    ]) {
      expect(text).toContain(line);
    }
    expect((await pks(h, ['wiki', 'show', 'paper-preprint-quant-ph-9605043v3'])).code).toBe(0);
    expect((await pks(h, ['wiki', 'ingest', 'quant-ph/9605043v3'])).code).toBe(1);
    expect((await pks(h, ['wiki', 'ingest', 'not-an-id'])).code).toBe(2);
  });
});

describe('wiki search ranks exactly like GET /api/search', () => {
  const PAT = 'wiki-search-pat-0123456789';
  let sample: TestServer;
  let big: TestServer;
  let bigDir: string;
  let home: PksHome;
  beforeAll(async () => {
    home = makeHome();
    mkdirSync(path.join(home.cwd, 'sample'));
    cpSync(path.join(REPO_ROOT, 'sample-wiki'), path.join(home.cwd, 'sample'), { recursive: true });
    bigDir = path.join(home.cwd, 'big');
    await generateWiki(bigDir, 2000, { seed: 7 });
    sample = await startTestServer({ SVC_SYSTEM_PAT: PAT, SVC_WIKI_DIR: path.join(home.cwd, 'sample') });
    big = await startTestServer({ SVC_SYSTEM_PAT: PAT, SVC_WIKI_DIR: bigDir });
  }, 120_000);
  afterAll(async () => {
    await sample.close();
    await big.close();
    home.cleanup();
  });

  const api = async (server: TestServer, q: string, limit: number, sources: boolean) =>
    (
      await server.fetch(`/api/search?q=${encodeURIComponent(q)}&limit=${limit}&include_sources=${sources}`, {
        headers: { authorization: `Bearer ${PAT}` },
      })
    ).json();

  const compare = async (server: TestServer, dir: string, q: string, limit: number, sources: boolean) => {
    writeConfig(home, `wiki_dir: ${dir}\n`);
    const args = ['wiki', 'search', q, '--json', '--limit', String(limit), ...(sources ? ['--include-sources'] : [])];
    const cli = await pks(home, args);
    expect(cli.code).toBe(0);
    const expected = await api(server, q, limit, sources);
    expect(JSON.parse(cli.stdout)).toEqual(expected);
    // The text form lists the same pages in the same order, scores to one decimal.
    const text = await pks(
      home,
      args.filter((a) => a !== '--json'),
    );
    const hits = [...text.stdout.matchAll(/^ {2}\[(\w+)\] (\S+) \(score: (\d+\.\d)\)$/gm)];
    expect(hits.map((m) => m[2])).toEqual(expected.results.map((r: { id: string }) => r.id));
    expect(hits.map((m) => m[3])).toEqual(expected.results.map((r: { score: number }) => r.score.toFixed(1)));
    const lines = text.stdout.split('\n');
    lines.forEach((line, i) => {
      if (!/^ {2}\[/.test(line)) return;
      expect(lines[i + 1]).toMatch(/^ {6}\S/); // the title
      if (lines[i + 2]?.startsWith('      ')) expect(Array.from(lines[i + 2]!.slice(6)).length).toBeLessThanOrEqual(80);
    });
    return expected;
  };

  it.each([
    ['phase estimation', 10, false],
    ['qubit', 100, false],
    ["Shor's algorithm", 5, true],
    ['quantum gate', 100, true],
    ['PETER shor', 3, true],
  ])('sample wiki: %j (limit %i, sources %s)', async (q, limit, sources) => {
    const body = await compare(sample, 'sample', q, limit, sources);
    expect(body.total).toBeGreaterThan(0);
  });

  it.each([
    ['qubit superposition', 100, false],
    ['fourier transform eigenvalue', 20, true],
    ['hadamard', 100, true],
    ['toffoli threshold surface', 7, false],
  ])('generated 2,000-page wiki: %j (limit %i, sources %s)', async (q, limit, sources) => {
    const body = await compare(big, 'big', q, limit, sources);
    expect(body.results.length).toBeGreaterThan(0);
  });

  it('no hit → "No results for \'<q>\'"', async () => {
    writeConfig(home, 'wiki_dir: sample\n');
    expect((await pks(home, ['wiki', 'search', 'zzzqqq'])).stdout).toBe("No results for 'zzzqqq'\n");
  });
});
