import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { MAX_FRONTMATTER_BYTES, parseFrontmatterYaml, parsePageText, splitFrontmatter } from '../../src/wiki/index.js';
import { parseFrontmatterYamlFull } from '../../src/wiki/frontmatter.js';
import { fastParseFrontmatter } from '../../src/wiki/frontmatter-fast.js';

describe('splitFrontmatter', () => {
  it('splits YAML and trimmed body', () => {
    expect(splitFrontmatter('---\nid: a\n---\n\n  Body\n\n')).toEqual({ ok: true, yaml: 'id: a\n', body: 'Body' });
  });

  it('accepts trailing blanks on the delimiter lines and an empty body', () => {
    expect(splitFrontmatter('---  \nid: a\n--- \t')).toEqual({ ok: true, yaml: 'id: a\n', body: '' });
  });

  it('needs --- on the very first line', () => {
    const r = splitFrontmatter('\n---\nid: a\n---\nbody');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problem.kind).toBe('no_frontmatter');
    expect(r.body).toBe('---\nid: a\n---\nbody');
  });

  it('reports an unterminated block', () => {
    const r = splitFrontmatter('---\nid: a\nbody');
    expect(!r.ok && r.problem.kind).toBe('unterminated_frontmatter');
  });

  it('refuses frontmatter over 64 KiB without scanning the whole file', () => {
    const big = '---\n' + `x: ${'a'.repeat(MAX_FRONTMATTER_BYTES)}\n` + '---\nbody';
    const r = splitFrontmatter(big);
    expect(!r.ok && r.problem.kind).toBe('frontmatter_too_large');
    // Multi-byte characters count in bytes.
    const multi = '---\n' + `x: ${'é'.repeat(MAX_FRONTMATTER_BYTES / 2)}\n` + '---\nbody';
    expect(!splitFrontmatter(multi).ok).toBe(true);
  });

  it('accepts exactly 64 KiB', () => {
    const line = `x: ${'a'.repeat(MAX_FRONTMATTER_BYTES - 4)}\n`;
    expect(Buffer.byteLength(line)).toBe(MAX_FRONTMATTER_BYTES);
    expect(splitFrontmatter(`---\n${line}---\n`).ok).toBe(true);
  });
});

describe('parseFrontmatterYaml: hostile input', () => {
  it('refuses a billion-laughs alias bomb quickly', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    const names = 'abcdefghi';
    for (let i = 1; i < names.length; i++) {
      const prev = names[i - 1];
      lines.push(
        `${names[i]}: &${names[i]} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`,
      );
    }
    const started = performance.now();
    const r = parseFrontmatterYaml(lines.join('\n'));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problem.kind).toBe('too_many_aliases');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses more than 100 aliases even without exponential growth', () => {
    const yaml = ['base: &b x', 'list:', ...Array.from({ length: 101 }, () => '  - *b')].join('\n');
    const r = parseFrontmatterYaml(yaml);
    expect(!r.ok && r.problem.kind).toBe('too_many_aliases');
    const ok = ['base: &b x', 'list:', ...Array.from({ length: 10 }, () => '  - *b')].join('\n');
    expect(parseFrontmatterYaml(ok).ok).toBe(true);
  });

  it('refuses recursive aliases', () => {
    const r = parseFrontmatterYaml('a: &x [*x]\n');
    expect(r.ok).toBe(false);
  });

  it('keeps __proto__ an ordinary key and never pollutes prototypes', () => {
    const r = parseFrontmatterYaml('__proto__: {polluted: yes}\nid: a\n');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.getPrototypeOf(r.data)).toBe(Object.prototype);
    expect(Object.keys(r.data)).toEqual(['__proto__', 'id']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(r.data))).toMatchObject({ id: 'a' });
  });

  it('refuses deeply nested structures', () => {
    const yaml = `x: ${'['.repeat(200)}${']'.repeat(200)}`;
    expect(parseFrontmatterYaml(yaml).ok).toBe(false);
  });

  it('needs a mapping at the top level', () => {
    for (const yaml of ['- a\n- b\n', 'just a string\n', '', '# only a comment\n', '42\n']) {
      const r = parseFrontmatterYaml(yaml);
      expect(!r.ok && r.problem.kind, yaml).toBe('not_a_mapping');
    }
  });

  it('reports YAML syntax errors and duplicate keys', () => {
    expect(parseFrontmatterYaml('a: [unclosed\n').ok).toBe(false);
    expect(parseFrontmatterYaml('a: 1\na: 2\n').ok).toBe(false);
    expect(parseFrontmatterYaml('title: Shor: factoring\n').ok).toBe(false);
  });

  it('turns YAML timestamps into dates', () => {
    const r = parseFrontmatterYaml('d: !!timestamp 2026-01-05\n');
    expect(r.ok && r.data.d).toBe('2026-01-05');
  });
});

describe('fast frontmatter path agrees with the yaml package', () => {
  const cases = [
    'id: concept-qubit\ntitle: Qubit\ntype: concept\n',
    'tags: [a, b, "c d", \'e\']\nrelated: []\n',
    'tags:\n  - a\n  - b\nstatus: draft\n',
    'tags:\n- a\n- b\n',
    'n: 42\nf: 1.5\ng: 1e3\nh: -7\ni: +3\nj: .5\nk: 007\n',
    'b1: true\nb2: False\nn1: ~\nn2: null\nn3:\n',
    'created_at: 2026-01-05\nt: 2026-01-05 10:00:00\nu: 2026-01-05T10:00:00Z\n',
    "title: Grover's algorithm\nurl: https://example.org/x?y=1\nc: C#\n",
    'title: "Quoted: with colon"\nx: \'single\'\n',
    'title: Foo [bar] {baz}\n',
    'empty_list_item:\n  -\n',
    'x: 1.2.3\ny: 10.1137/S0097539795293172\nz: 2026-13-45\n',
    'title: Title # with comment\n',
    'x: [1, 2.5, true, null, ~]\n',
    'x: -\n',
    'x: - a\n',
    'key: value\n  continuation\n',
    'list:\n  - a\n   - b\n',
    'a: 0x1F\nb: 0o17\nc: .inf\nd: -.Inf\ne: .NaN\n',
    'big: 123456789012345678901234567890\n',
    'tab:\tvalue\n',
    'unicode: Høyer – “quotes”\n',
    'x: "esc \\" aped"\n',
    'x: [a, b,]\n',
    'x: [a: b]\n',
    'true: yes\n',
    'x: yes\ny: no\nz: on\n',
    'x: &a 1\ny: *a\n',
    'x: !tag 1\n',
    'x: |\n  block\n',
    '\n\nid: a\n\n',
  ];
  it.each(cases)('%j', (yaml) => {
    const fast = fastParseFrontmatter(yaml);
    const full = parseFrontmatterYamlFull(yaml);
    if (fast === undefined) return; // declined: the full parser decides
    expect(full.ok).toBe(true);
    expect(full.ok && full.data).toEqual(fast);
    // And both agree with plain yaml.parse semantics (core schema).
    expect(parseDocument(yaml).toJS()).toEqual(fast);
  });

  it('takes the fast path for typical pages', () => {
    expect(fastParseFrontmatter(cases[0]!)).toBeDefined();
    expect(fastParseFrontmatter(cases[1]!)).toBeDefined();
    expect(fastParseFrontmatter(cases[2]!)).toBeDefined();
  });

  it('a float that overflows is declined (the full parser keeps it JSON-safe: a string)', () => {
    expect(fastParseFrontmatter('a:\n- 4E308\n- a\n')).toBeUndefined();
    expect(parseFrontmatterYamlFull('a:\n- 4E308\n- -1e400\n')).toEqual({
      ok: true,
      data: { a: ['Infinity', '-Infinity'] },
    });
  });
});

describe('parsePageText', () => {
  it('parses a full page into a typed WikiPage', () => {
    const text = [
      '---',
      'id: algo-shor',
      "title: Shor's algorithm",
      'type: concept',
      'category: algorithm',
      'tags: [factoring, Algorithm]',
      'created_at: 2026-01-05',
      'updated_at: 2026-02-01T10:00:00+02:00',
      'status: review',
      'related: [prim-qft]',
      'prerequisites: [prim-qft, prim-qpe]',
      'neo4j_synced: true',
      'neo4j_id: "4:abc:1"',
      'doi: 10.1137/S0097539795293172',
      'doi_source: manual',
      'doi_confidence: high',
      'doi_resolved_at: 2026-01-06 09:00:00',
      'version: 3',
      'external_links:',
      '  - {label: arXiv, url: "https://arxiv.org/abs/quant-ph/9508027", kind: preprint}',
      '  - {label: broken}',
      '---',
      '',
      '## Definition',
      '',
      'Uses [[prim-qft]].',
      '',
    ].join('\r\n');
    const file = parsePageText('concepts/algo-shor.md', text);
    expect(file.problem).toBeNull();
    expect(file.page).toMatchObject({
      id: 'algo-shor',
      title: "Shor's algorithm",
      type: 'concept',
      category: 'algorithm',
      tags: ['factoring', 'Algorithm'],
      created_at: '2026-01-05',
      updated_at: '2026-02-01',
      status: 'review',
      related: ['prim-qft'],
      prerequisites: ['prim-qft', 'prim-qpe'],
      graph_synced: true,
      graph_node_id: '4:abc:1',
      doi: '10.1137/S0097539795293172',
      doi_source: 'manual',
      doi_confidence: 'high',
      doi_resolved_at: '2026-01-06',
      version: 3,
      external_links: [{ label: 'arXiv', url: 'https://arxiv.org/abs/quant-ph/9508027', kind: 'preprint' }],
      body: '## Definition\n\nUses [[prim-qft]].',
      path: 'concepts/algo-shor.md',
    });
    expect(file.page?.frontmatter.updated_at).toBe('2026-02-01');
    expect(file.page?.frontmatter.doi_resolved_at).toBe('2026-01-06');
    expect(file.page?.links.map((l) => l.target)).toEqual(['prim-qft']);
  });

  it('serves a page without status as draft', () => {
    const file = parsePageText('a.md', '---\nid: a\ntitle: A\ntype: entity\n---\n');
    expect(file.page?.status).toBe('draft');
    expect(file.page?.tags).toEqual([]);
    expect(file.page?.category).toBeNull();
    expect(file.page?.created_at).toBeNull();
  });

  it('drops a leading BOM', () => {
    expect(parsePageText('a.md', '\uFEFF---\nid: a\ntitle: A\ntype: concept\n---\n').page?.id).toBe('a');
  });

  it.each([
    ['no id', '---\ntitle: A\ntype: concept\n---\n'],
    ['empty id', '---\nid: "  "\ntitle: A\ntype: concept\n---\n'],
    ['numeric id', '---\nid: 12\ntitle: A\ntype: concept\n---\n'],
    ['id with ../', '---\nid: ../etc/passwd\ntitle: A\ntype: concept\n---\n'],
    ['id with /', '---\nid: a/b\ntitle: A\ntype: concept\n---\n'],
    ['id with NUL escape', '---\nid: "a\\0b"\ntitle: A\ntype: concept\n---\n'],
    ['no title', '---\nid: a\ntype: concept\n---\n'],
    ['bad type', '---\nid: a\ntitle: A\ntype: article\n---\n'],
    ['list frontmatter', '---\n- a\n---\n'],
    ['no frontmatter', '# Just markdown\n'],
  ])('is not served: %s', (_name, text) => {
    const file = parsePageText('x.md', text);
    expect(file.page).toBeNull();
    expect(file.invalidReason).toBeTruthy();
  });

  it('refuses text with NUL bytes', () => {
    const file = parsePageText('x.md', '---\nid: a\u0000\ntitle: A\ntype: concept\n---\n');
    expect(file.problem?.kind).toBe('binary');
    expect(file.page).toBeNull();
  });
});
