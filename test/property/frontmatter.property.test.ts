/**
 * Frontmatter parsing (CONTRACT §13.1) against reference models: data written out by the `yaml` package (block and
 * flow style) parses back to the same data whenever it nests at most 32 levels and is refused as `invalid_yaml`
 * beyond; the fast path agrees with the full parser; and no input makes the parser throw.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseFrontmatterYamlFull } from '../../src/wiki/frontmatter.js';
import { fastParseFrontmatter } from '../../src/wiki/frontmatter-fast.js';
import { parseFrontmatterYaml, type FrontmatterMap, type FrontmatterValue } from '../../src/wiki/index.js';

const TOO_DEEP = 'invalid YAML: frontmatter nested deeper than 32 levels';

function depthOf(value: FrontmatterValue): number {
  if (value === null || typeof value !== 'object') return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...members.map(depthOf));
}

const text = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 10 }));
const scalar: fc.Arbitrary<FrontmatterValue> = fc.oneof(
  text,
  fc.constantFrom('yes', 'no', 'on', '2026-01-05', '1e3', '0x1F', '.inf', '~', 'null', 'true', '- a', '#x', ''),
  fc.maxSafeInteger(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
  fc.boolean(),
  fc.constant(null),
);
const { value } = fc.letrec<{ value: FrontmatterValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
}));
const mapping = fc.dictionary(text, value, { minKeys: 1, maxKeys: 6 });

/** A value nested exactly `depth` collections deep (mixing sequences and mappings), with the top-level mapping. */
const nestedTo = (depth: number): fc.Arbitrary<FrontmatterMap> =>
  fc.array(fc.boolean(), { minLength: depth - 1, maxLength: depth - 1 }).map((kinds) => {
    let inner: FrontmatterValue = 'leaf';
    for (const asList of kinds) inner = asList ? [inner] : { k: inner };
    return { x: inner };
  });

describe('frontmatter: data written by the yaml package parses back', () => {
  it.each(['block', 'flow'] as const)('%s style', (collectionStyle) => {
    fc.assert(
      fc.property(mapping, (data) => {
        const yaml = stringify(data, { collectionStyle });
        const r = parseFrontmatterYaml(yaml);
        if (depthOf(data) <= 32) expect(r).toEqual({ ok: true, data });
        else expect(r).toEqual({ ok: false, problem: { kind: 'invalid_yaml', message: TOO_DEEP } });
      }),
      { numRuns: 300 },
    );
  });

  it.each(['block', 'flow'] as const)(
    'nesting decides in %s style: ≤ 32 levels parse, deeper is invalid_yaml',
    (collectionStyle) => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 80 }).chain(nestedTo), (data) => {
          const r = parseFrontmatterYaml(stringify(data, { collectionStyle }));
          if (depthOf(data) <= 32) expect(r).toEqual({ ok: true, data });
          else expect(r).toEqual({ ok: false, problem: { kind: 'invalid_yaml', message: TOO_DEEP } });
        }),
      );
    },
  );
});

describe('frontmatter: the fast path agrees with the full parser', () => {
  const key = fc.string({ unit: fc.constantFrom(...'abcxyz_-09:'), minLength: 1, maxLength: 6 });
  const tricky = fc.oneof(
    fc.string({ unit: fc.constantFrom(...'ab 0123456789.-+:#[]{},"\'!&*|>%@`~eExXoO'), minLength: 1, maxLength: 12 }),
    fc.constantFrom(
      'yes',
      'No',
      'TRUE',
      'null',
      '~',
      '.5',
      '1_000',
      '0o17',
      '2026-01-05',
      'a #b',
      'a:b',
      '"a"',
      "'a'",
      '4E308',
      '-1e400',
    ),
  );
  const line = fc.oneof(
    fc.tuple(key, tricky).map(([k, v]) => `${k}: ${v}`),
    fc.tuple(key, fc.array(tricky, { maxLength: 4 })).map(([k, vs]) => `${k}: [${vs.join(', ')}]`),
    fc
      .tuple(key, fc.array(tricky, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '  ', '    '))
      .map(([k, vs, indent]) => `${k}:\n${vs.map((v) => `${indent}- ${v}`).join('\n')}`),
    fc.constantFrom('', '# comment', `${'  '}continued`),
  );

  it('whenever the fast path answers, it answers what the full parser does', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const yaml = `${lines.join('\n')}\n`;
        const fast = fastParseFrontmatter(yaml);
        if (fast === undefined) return;
        expect(parseFrontmatterYamlFull(yaml)).toEqual({ ok: true, data: fast });
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('frontmatter: any input', () => {
  const yamlish = fc.string({
    unit: fc.constantFrom(
      '[',
      ']',
      '{',
      '}',
      '- ',
      '? ',
      ': ',
      'a',
      '\n',
      ' ',
      '  ',
      '"',
      "'",
      '|',
      '>',
      '#',
      ',',
      '&x ',
      '*x',
      '!t ',
      '\n  ',
      'k: ',
      '\t',
      '%',
      '@',
      '...',
      '---',
    ),
    maxLength: 400,
  });

  it('never throws; a result is a plain mapping nested at most 32 levels', () => {
    fc.assert(
      fc.property(fc.oneof(yamlish, fc.string({ maxLength: 200 })), (yaml) => {
        const r = parseFrontmatterYaml(yaml);
        if (!r.ok) {
          expect(['invalid_yaml', 'not_a_mapping', 'too_many_aliases']).toContain(r.problem.kind);
          return;
        }
        expect(Object.getPrototypeOf(r.data)).toBe(Object.prototype);
        expect(depthOf(r.data)).toBeLessThanOrEqual(32);
        expect(JSON.parse(JSON.stringify(r.data))).toEqual(r.data);
      }),
      { numRuns: 3_000 },
    );
  });
});
