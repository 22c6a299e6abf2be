import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  hasDefinitionSection,
  isBareDoi,
  lintFiles,
  lintWikiDir,
  scanFromSources,
  setFrontmatterFields,
  type LintCode,
  type LintResult,
} from '../../src/wiki/index.js';
import { NOW, makeWiki, page } from './helpers.js';

/** Lint in-memory files; every page links to every other so that W003 stays quiet unless a test wants it. */
function lint(files: Record<string, string>, now = NOW): LintResult {
  return lintFiles(scanFromSources(Object.entries(files).map(([p, text]) => ({ path: p, text }))).files, { now });
}

function codes(result: LintResult, file?: string): LintCode[] {
  return result.issues.filter((i) => file === undefined || i.file === file).map((i) => i.code);
}

/** Two clean pages linking to each other. */
const A = page({ id: 'concept-a', title: 'A', body: '## Definition\n\nA links to [[concept-b]].\n' });
const B = page({ id: 'concept-b', title: 'B', body: '## Definition\n\nB links to [[concept-a]].\n' });

describe('clean pages', () => {
  it('produce no findings at all', () => {
    const result = lint({ 'concept-a.md': A, 'concept-b.md': B });
    expect(result).toEqual({ total_issues: 0, errors: 0, warnings: 0, info: 0, issues: [], fixed: [] });
  });
});

describe('W001 missing required field / unparseable frontmatter (ERROR)', () => {
  it('fires once per missing or empty required field', () => {
    const text = page({
      id: 'concept-c',
      title: '""',
      created_at: null,
      status: '',
      body: '## Definition\n\n[[concept-a]]',
    });
    const result = lint({ 'concept-a.md': A, 'concept-b.md': B, 'c.md': text });
    const w001 = result.issues.filter((i) => i.code === 'W001');
    expect(w001.map((i) => i.message)).toEqual([
      'Missing required field: title',
      'Missing required field: created_at',
      'Missing required field: status',
    ]);
    expect(w001[0]).toMatchObject({ severity: 'error', page_id: 'concept-c', file: 'c.md' });
    expect(w001[0]?.suggestion).toBeTruthy();
    expect(result.errors).toBe(3);
  });

  it('fires for no frontmatter, broken YAML, and a non-mapping', () => {
    const result = lint({
      'none.md': '# Only a heading\n',
      'broken.md': '---\nid: [unclosed\n---\nbody',
      'list.md': '---\n- a\n---\nbody',
    });
    for (const file of ['none.md', 'broken.md', 'list.md']) {
      expect(result.issues.filter((i) => i.file === file)).toEqual([
        expect.objectContaining({ code: 'W001', page_id: null, message: 'Missing or unparseable frontmatter' }),
      ]);
    }
  });

  it('does not fire on a clean page', () => {
    expect(codes(lint({ 'concept-a.md': A, 'concept-b.md': B }))).not.toContain('W001');
  });
});

describe('W002 invalid field value (ERROR)', () => {
  it.each([
    ['type', ['type: article'], 'Invalid type value: article'],
    ['status', ['status: wip'], 'Invalid status value: wip'],
    ['created_at not a date', ['created_at: 2026-02-30'], 'Invalid created_at value: 2026-02-30'],
    ['updated_at format', ['updated_at: 05/01/2026'], 'Invalid updated_at value: 05/01/2026'],
    ['doi_resolved_at', ['doi_resolved_at: yesterday'], 'Invalid doi_resolved_at value: yesterday'],
    ['tags not a list', ['tags: quantum, gates'], 'Invalid tags value: quantum, gates'],
    ['related with a number', ['related: [concept-b, 42]'], 'Invalid related value: ["concept-b",42]'],
    ['prerequisites scalar', ['prerequisites: concept-b'], 'Invalid prerequisites value: concept-b'],
    ['doi_source', ['doi_source: google'], 'Invalid doi_source value: google'],
    ['doi_confidence', ['doi_confidence: certain'], 'Invalid doi_confidence value: certain'],
    ['graph_synced', ['graph_synced: "yes"'], 'Invalid graph_synced value: yes'],
    ['neo4j_synced alias', ['neo4j_synced: 1'], 'Invalid neo4j_synced value: 1'],
    ['doi with scheme', ['doi: https://doi.org/10.1/x'], 'Invalid doi value: https://doi.org/10.1/x'],
    ['doi with host', ['doi: doi.org/10.1/x'], 'Invalid doi value: doi.org/10.1/x'],
    ['doi with whitespace', ['doi: "10.1/x y"'], 'Invalid doi value: 10.1/x y'],
    ['doi with doi: prefix', ['doi: "doi:10.1/x"'], 'Invalid doi value: doi:10.1/x'],
  ])('%s', (_name, extra, message: string) => {
    // Override fields by putting replacements in `extra` and dropping the defaults they replace.
    const overridden = new Set(extra.map((line) => line.split(':')[0]!));
    const spec = Object.fromEntries(
      ['type', 'status', 'created_at', 'updated_at', 'tags'].filter((f) => overridden.has(f)).map((f) => [f, null]),
    );
    const text = page({ id: 'concept-c', ...spec, extra, body: '## Definition\n\n[[concept-a]]' });
    const result = lint({ 'concept-a.md': A, 'concept-b.md': B, 'c.md': text });
    const w002 = result.issues.filter((i) => i.code === 'W002');
    expect(w002.map((i) => i.message)).toEqual([message]);
    expect(w002[0]).toMatchObject({ severity: 'error', file: 'c.md' });
  });

  it('fires for ids that cannot be served', () => {
    const result = lint({ 'x.md': page({ id: '"../x"' }), 'y.md': page({ id: '12' }) });
    expect(result.issues.filter((i) => i.code === 'W002').map((i) => i.message)).toEqual([
      'Invalid id value: ../x',
      'Invalid id value: 12',
    ]);
  });

  it('accepts every documented date form and legacy types', () => {
    const text = page({
      id: 'concept-c',
      type: 'entity',
      created_at: '2024-02-29',
      updated_at: '2026-03-01T10:00:00Z',
      extra: [
        'doi_resolved_at: 2026-03-01 10:00:00',
        'doi: 10.1103/PhysRevLett.79.325',
        'doi_source: semantic-scholar',
        'doi_confidence: low',
        'graph_synced: false',
      ],
      body: '[[concept-a]]',
    });
    expect(codes(lint({ 'concept-a.md': A, 'concept-b.md': B, 'c.md': text }), 'c.md')).not.toContain('W002');
  });

  it('does not fire on a clean page', () => {
    expect(codes(lint({ 'concept-a.md': A, 'concept-b.md': B }))).not.toContain('W002');
  });
});

describe('W003 orphan page (INFO)', () => {
  it('fires for a page no other page links to', () => {
    const result = lint({
      'concept-a.md': A,
      'concept-b.md': B,
      'lonely.md': page({ id: 'concept-lonely', body: '## Definition\n\nAlone. [[#definition]] [[concept-lonely]]' }),
    });
    expect(result.issues.filter((i) => i.code === 'W003')).toEqual([
      {
        code: 'W003',
        severity: 'info',
        page_id: 'concept-lonely',
        file: 'lonely.md',
        message: 'Orphan page: no incoming links',
        suggestion: expect.any(String),
      },
    ]);
  });

  it('related does not count as an incoming link', () => {
    const c = page({ id: 'concept-c', extra: ['related: [concept-lonely]'], body: '## Definition\n\n[[concept-a]]' });
    const lonely = page({ id: 'concept-lonely', body: '## Definition\n\n[[concept-c]]' });
    expect(codes(lint({ 'concept-a.md': A, 'concept-b.md': B, 'c.md': c, 'l.md': lonely }), 'l.md')).toContain('W003');
  });

  it('does not fire for linked pages, sources, index and log ids', () => {
    const source = page({
      id: 'paper-preprint-2501.00010v1',
      type: 'source',
      category: 'paper',
      extra: ['doi: 10.1/x'],
      body: 'x',
    });
    const index = page({ id: 'index', body: '## Definition\n\nx' });
    const result = lint({ 'concept-a.md': A, 'concept-b.md': B, 's.md': source, 'i.md': index });
    expect(codes(result)).not.toContain('W003');
  });
});

describe('W004 broken link (WARNING)', () => {
  it('fires once per distinct missing target, including [[id#section]] and [[id|text]] forms', () => {
    const text = page({
      id: 'concept-c',
      body: '## Definition\n\n[[concept-a]] [[missing]] [[missing|again]] [[gone#part]] [[#local]] `[[in-code]]`',
    });
    const result = lint({ 'concept-a.md': A, 'concept-b.md': B, 'c.md': text });
    expect(result.issues.filter((i) => i.code === 'W004').map((i) => [i.severity, i.message])).toEqual([
      ['warning', 'Broken link: [[missing]]'],
      ['warning', 'Broken link: [[gone]]'],
    ]);
  });

  it('a link to a parsed page with other problems is not broken', () => {
    const invalid = page({ id: 'concept-bad', status: 'wip', body: '## Definition\n\n[[concept-a]]' });
    const c = page({ id: 'concept-c', body: '## Definition\n\n[[concept-bad]] [[concept-a]]' });
    expect(codes(lint({ 'concept-a.md': A, 'concept-b.md': B, 'bad.md': invalid, 'c.md': c }))).not.toContain('W004');
  });

  it('does not fire on a clean page', () => {
    expect(codes(lint({ 'concept-a.md': A, 'concept-b.md': B }))).not.toContain('W004');
  });
});

describe('W005 missing concept definition (WARNING)', () => {
  it.each([
    ['no such section', '# Title\n\nText [[concept-a]].'],
    ['empty definition', '## Definition\n\n## Details\n\nText [[concept-a]].'],
    ['only a sub-heading', '## Definition\n### Formal\n\n## Next\ntext [[concept-a]]'],
    ['level-3 heading', '### Definition\n\nText [[concept-a]].'],
    ['heading inside code', '```\n## Definition\ntext\n```\n[[concept-a]]'],
  ])('fires: %s', (_name, body) => {
    const result = lint({ 'concept-a.md': A, 'concept-b.md': B, 'c.md': page({ id: 'concept-c', body }) });
    expect(result.issues.filter((i) => i.code === 'W005')).toEqual([
      expect.objectContaining({ severity: 'warning', message: 'Missing concept definition', file: 'c.md' }),
    ]);
  });

  it.each([
    ['Definition', '## Definition\nText.'],
    ['Summary, any case, closing hashes', '##   SUMMARY ##\n\nText.'],
    ['text after a sub-heading', '## Definition\n### Formal\nText.'],
    ['second matching section', '## Summary\n\n## Definition\nText.'],
    ['code block as text', '## Definition\n\n```\nx = 1\n```'],
  ])('does not fire: %s', (_name, body) => {
    expect(hasDefinitionSection(body)).toBe(true);
  });

  it('only applies to concept pages', () => {
    const entity = page({ id: 'concept-e', type: 'entity', body: 'No definition. [[concept-a]]' });
    expect(codes(lint({ 'concept-a.md': A, 'concept-b.md': B, 'e.md': entity }))).not.toContain('W005');
  });
});

describe('W006 duplicate page id (ERROR)', () => {
  it('flags every later file, not the first', () => {
    const dup = page({ id: 'concept-a', title: 'Copy', body: '## Definition\n\n[[concept-b]]' });
    const result = lint({ 'concept-a.md': A, 'concept-b.md': B, 'z/copy.md': dup, 'z/copy2.md': dup });
    expect(result.issues.filter((i) => i.code === 'W006')).toEqual([
      expect.objectContaining({
        severity: 'error',
        file: 'z/copy.md',
        message: 'Duplicate page ID: concept-a (first occurrence: concept-a.md)',
      }),
      expect.objectContaining({
        file: 'z/copy2.md',
        message: 'Duplicate page ID: concept-a (first occurrence: concept-a.md)',
      }),
    ]);
  });

  it('does not fire on a clean page', () => {
    expect(codes(lint({ 'concept-a.md': A, 'concept-b.md': B }))).not.toContain('W006');
  });
});

describe('W007 outdated page (INFO)', () => {
  it('uses updated_at, else created_at, against the local date of now', () => {
    const result = lint(
      {
        'concept-a.md': A, // updated 2026-03-10
        'concept-b.md': B,
        'c.md': page({
          id: 'concept-c',
          created_at: '2026-01-01',
          updated_at: null,
          body: '## Definition\n\n[[concept-a]]',
        }),
      },
      new Date(2026, 3, 10, 9, 0, 0), // 2026-04-10: 31 days after 2026-03-10
    );
    expect(result.issues.filter((i) => i.code === 'W007').map((i) => [i.file, i.severity, i.message])).toEqual([
      ['c.md', 'info', 'Outdated page: not updated since 2026-01-01'],
      ['concept-a.md', 'info', 'Outdated page: not updated since 2026-03-10'],
      ['concept-b.md', 'info', 'Outdated page: not updated since 2026-03-10'],
    ]);
  });

  it('does not fire at exactly 30 days', () => {
    const result = lint({ 'concept-a.md': A, 'concept-b.md': B }, new Date(2026, 3, 9, 23, 59, 0));
    expect(codes(result)).not.toContain('W007');
  });
});

describe('W008 entity page without tags (WARNING)', () => {
  it.each([
    ['missing', null],
    ['empty', [] as string[]],
  ])('fires when tags are %s', (_name, tags) => {
    const entity = page({ id: 'algo-e', type: 'entity', category: 'algorithm', tags, body: '[[concept-a]]' });
    const result = lint({ 'concept-a.md': A, 'concept-b.md': B, 'e.md': entity });
    expect(result.issues.filter((i) => i.code === 'W008')).toEqual([
      expect.objectContaining({ severity: 'warning', message: 'Entity page has no tags', page_id: 'algo-e' }),
    ]);
  });

  it('does not fire for a tagged entity or an untagged concept', () => {
    const entity = page({ id: 'algo-e', type: 'entity', tags: ['search'], body: '[[concept-a]]' });
    const concept = page({ id: 'concept-c', tags: null, body: '## Definition\n\n[[concept-a]]' });
    expect(codes(lint({ 'concept-a.md': A, 'concept-b.md': B, 'e.md': entity, 'c.md': concept }))).not.toContain(
      'W008',
    );
  });
});

describe('W009 paper page without DOI (INFO)', () => {
  it('fires for a source paper page (by category or by id prefix) without a DOI', () => {
    const byCategory = page({ id: 'src-x', type: 'source', category: 'paper', body: 'x' });
    const byPrefix = page({
      id: 'paper-preprint-2501.00010v1',
      type: 'source',
      category: null,
      extra: ['doi: ""'],
      body: 'x',
    });
    const result = lint({ 'a.md': byCategory, 'b.md': byPrefix });
    expect(result.issues.filter((i) => i.code === 'W009').map((i) => [i.file, i.severity, i.message])).toEqual([
      ['a.md', 'info', 'Paper page missing DOI'],
      ['b.md', 'info', 'Paper page missing DOI'],
    ]);
  });

  it('does not fire with a DOI, with doi_source: unresolved, or for other sources', () => {
    const withDoi = page({ id: 'paper-a', type: 'source', category: 'paper', extra: ['doi: 10.1/x'], body: 'x' });
    const unresolved = page({
      id: 'paper-b',
      type: 'source',
      category: 'paper',
      extra: ['doi_source: unresolved'],
      body: 'x',
    });
    const book = page({ id: 'book-c', type: 'source', category: 'book', body: 'x' });
    const concept = page({ id: 'paper-d', category: 'paper', body: '## Definition\n\nx [[paper-a]]' });
    expect(codes(lint({ 'a.md': withDoi, 'b.md': unresolved, 'c.md': book, 'd.md': concept }))).not.toContain('W009');
  });
});

describe('result shape', () => {
  it('counts by severity', () => {
    const result = lint({ 'x.md': '# no frontmatter [[nowhere]]' });
    expect(result).toMatchObject({ total_issues: 2, errors: 1, warnings: 1, info: 0, fixed: [] });
    expect(Object.keys(result.issues[0]!)).toEqual(['code', 'severity', 'page_id', 'file', 'message', 'suggestion']);
  });
});

describe('isBareDoi', () => {
  it('accepts bare DOIs and refuses schemes, hosts and whitespace', () => {
    expect(isBareDoi('10.1137/S0097539795293172')).toBe(true);
    expect(isBareDoi('10.1103/PhysRevLett.79.325')).toBe(true);
    for (const bad of [
      'https://doi.org/10.1/x',
      'doi:10.1/x',
      'dx.doi.org/10.1/x',
      '10.1/x y',
      'www.example.com/10.1/x',
      42,
    ]) {
      expect(isBareDoi(bad), String(bad)).toBe(false);
    }
  });
});

describe('--fix', () => {
  it('adds created_at (today) and status (draft), rewriting only the frontmatter', async () => {
    const body = '## Definition\n\nBody stays [[concept-b]] exactly.\n\n---\nstatus: not frontmatter\n';
    const dir = await makeWiki({
      'a.md': `---\r\nid: concept-a\r\ntitle: A # comment kept\r\ntype: concept\r\nstatus:\r\n---\r\n${body.replace(/\n/g, '\r\n')}`,
      'b.md': page({ id: 'concept-b', body: '## Definition\n\n[[concept-a]]' }),
      'broken.md': '# no frontmatter',
    });
    const now = new Date(2026, 2, 20, 23, 30);
    const result = await lintWikiDir(dir, { now, fix: true });
    expect(result.fixed).toEqual([
      { file: 'a.md', page_id: 'concept-a', field: 'created_at', value: '2026-03-20' },
      { file: 'a.md', page_id: 'concept-a', field: 'status', value: 'draft' },
    ]);
    const text = await readFile(path.join(dir, 'a.md'), 'utf8');
    expect(text).toBe(
      `---\r\nid: concept-a\r\ntitle: A # comment kept\r\ntype: concept\r\nstatus: draft\r\ncreated_at: 2026-03-20\r\n---\r\n${body.replace(/\n/g, '\r\n')}`,
    );
    // After fixing, only the unfixable file has an error.
    expect(result.issues.filter((i) => i.severity === 'error').map((i) => i.file)).toEqual(['broken.md']);
    expect(await readFile(path.join(dir, 'broken.md'), 'utf8')).toBe('# no frontmatter');
    // Idempotent.
    expect((await lintWikiDir(dir, { now, fix: true })).fixed).toEqual([]);
  });

  it('without fix, nothing is written', async () => {
    const original = '---\nid: concept-a\ntitle: A\ntype: concept\n---\n## Definition\nx\n';
    const dir = await makeWiki({ 'a.md': original });
    const result = await lintWikiDir(dir, { now: NOW });
    expect(result.fixed).toEqual([]);
    expect(codes(result)).toEqual(['W001', 'W001', 'W003']);
    expect(await readFile(path.join(dir, 'a.md'), 'utf8')).toBe(original);
  });

  it('declines flow-style frontmatter it cannot edit safely', () => {
    expect(setFrontmatterFields('---\n{id: a, title: A}\n---\nbody', [{ field: 'status', value: 'draft' }])).toBeNull();
    expect(setFrontmatterFields('---\nid: a\nstatus: [x]\n---\n', [{ field: 'status', value: 'draft' }])).toBeNull();
  });
});
