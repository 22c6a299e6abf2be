import { describe, expect, it } from 'vitest';
import { parseFrontmatterYaml, parsePageText, type FrontmatterValue } from '../../src/wiki/index.js';
import { blockNested, flowNested, hostilePages, indentedNested } from '../server/wiki/hostile-pages.js';

const TOO_DEEP = 'invalid YAML: frontmatter nested deeper than 32 levels';

/** Nesting depth of parsed data: a scalar is 0, a collection one more than its deepest member. */
function depthOf(value: FrontmatterValue): number {
  if (value === null || typeof value !== 'object') return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...members.map(depthOf));
}

/** Frontmatter `x: …` whose whole nesting (the top-level mapping included) is `depth`, in each style. */
const styles: [string, (depth: number) => string][] = [
  ['flow sequences', (d) => `x: ${flowNested(d - 1)}\n`],
  ['flow mappings', (d) => `x: ${'{a: '.repeat(d - 1)}v${'}'.repeat(d - 1)}\n`],
  ['compact block sequences', (d) => `x:${blockNested(d - 1)}\n`],
  ['block mappings by indentation', (d) => `x:${indentedNested(d - 1)}\n`],
  [
    'block sequences by indentation',
    (d) => `x:\n${Array.from({ length: d - 1 }, (_, i) => `${' '.repeat(2 * i)}-`).join('\n')} v\n`,
  ],
  [
    'block sequences holding flow sequences',
    (d) =>
      `x:${blockNested(Math.floor((d - 1) / 2))
        .slice(0, -1)
        .concat(flowNested(d - 1 - Math.floor((d - 1) / 2)))}\n`,
  ],
];

describe('frontmatter nesting limit (32 levels, the top-level mapping included)', () => {
  it.each(styles)('%s: 32 levels parse', (_style, make) => {
    const r = parseFrontmatterYaml(make(32));
    expect(r.ok && depthOf(r.data)).toBe(32);
  });

  it.each(styles)('%s: 33 levels are invalid_yaml', (_style, make) => {
    expect(parseFrontmatterYaml(make(33))).toEqual({ ok: false, problem: { kind: 'invalid_yaml', message: TOO_DEEP } });
  });

  it('counts nesting reached through aliases', () => {
    const yaml = `a: &a ${flowNested(31)}\nb: [*a]\n`;
    expect(parseFrontmatterYaml(yaml)).toEqual({ ok: false, problem: { kind: 'invalid_yaml', message: TOO_DEEP } });
    expect(parseFrontmatterYaml(`a: &a ${flowNested(30)}\nb: [*a]\n`).ok).toBe(true);
  });

  it.each([
    ['a double-quoted string', `title: "${'['.repeat(100)}"\n`, '['.repeat(100)],
    ['a single-quoted string', `title: '${'{'.repeat(100)}'\n`, '{'.repeat(100)],
    ['a plain scalar', `title: f ${flowNested(100)}\n`, `f ${flowNested(100)}`],
    ['a literal block scalar', `title: |\n  ${flowNested(100)}\n  - - - - x\n`, `${flowNested(100)}\n- - - - x\n`],
    ['a comment', `# ${flowNested(100)}\ntitle: t\n`, 't'],
  ])('does not count brackets inside %s', (_where, yaml, title) => {
    const r = parseFrontmatterYaml(yaml);
    expect(r.ok && r.data['title']).toBe(title);
  });
});

describe('the hostile pages of the review', () => {
  const corpus = hostilePages();

  it('are as small as in the review', () => {
    const bytes = Object.fromEntries(corpus.map((p) => [p.id, Buffer.byteLength(p.text)]));
    expect(bytes['hostile-flow-1k']).toBeGreaterThan(2_000);
    expect(bytes['hostile-flow-1k']).toBeLessThan(2_300);
    expect(bytes['hostile-block-1k']).toBeLessThan(2_300);
    expect(bytes['hostile-flow-20k']).toBeGreaterThan(40_000);
    expect(bytes['hostile-flow-20k']).toBeLessThan(40_300);
    expect(bytes['hostile-block-20k']).toBeLessThan(40_300);
    expect(bytes['hostile-indented-300']).toBeLessThan(64 * 1024);
  });

  it.each(corpus.map((p) => [p.id, p] as const))('%s is an invalid_yaml page, not a crash', (_id, page) => {
    const file = parsePageText(page.path, page.text);
    expect(file.problem).toEqual({ kind: 'invalid_yaml', message: TOO_DEEP });
    expect(file.page).toBeNull();
    expect(file.body).toBe(`Body of ${page.id}.`);
  });
});
