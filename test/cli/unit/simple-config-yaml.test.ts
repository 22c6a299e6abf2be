import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { configTemplate, ensureConfigFile, readConfigMapping } from '../../../src/cli/config/file.js';
import { parseSimpleConfig } from '../../../src/cli/config/simple-yaml.js';
import { mulberry32 } from '../../support/random.js';

/** What `readConfigMapping` gave before the fast path: `yaml.parse`, `{}` for an empty document. */
const full = (text: string): unknown => parse(text) ?? {};

describe('config.yaml without the yaml package: exact or declined', () => {
  test.each([
    ['the first-run template', configTemplate(), {}],
    ['empty', '', {}],
    ['one key', 'wiki_dir: /home/me/wiki\n', { wiki_dir: '/home/me/wiki' }],
    [
      'as pks config set writes it',
      '# header\n# more\nserver_url: http\nwiki_dir: notes/wiki-2.0\n',
      {
        server_url: 'http',
        wiki_dir: 'notes/wiki-2.0',
      },
    ],
    ['no final newline, blank lines, spaces after the colon', '\nwiki_dir:    w\n\n', { wiki_dir: 'w' }],
    [
      'words that only look typed',
      'a: yes\nb: no\nc: on\nd: nulls\ne: Truely\nf: x1e3\n',
      {
        a: 'yes',
        b: 'no',
        c: 'on',
        d: 'nulls',
        e: 'Truely',
        f: 'x1e3',
      },
    ],
  ])('%s: read without yaml, equal to yaml.parse', (_name, text, expected) => {
    expect(parseSimpleConfig(text)).toEqual(expected);
    expect(parseSimpleConfig(text)).toEqual(full(text));
  });

  test.each([
    ['null word', 'insecure: null\n'],
    ['Null word', 'a: Null\n'],
    ['boolean', 'insecure: true\n'],
    ['FALSE', 'insecure: FALSE\n'],
    ['integer', 'parser_timeout: 1800\n'],
    ['float', 'parser_poll_interval: 3.0\n'],
    ['hex', 'a: 0x1F\n'],
    ['infinity', 'a: .inf\n'],
    ['tilde', 'wiki_dir: ~\n'],
    ['home-relative', 'wiki_dir: ~/wiki\n'],
    ['empty value', 'wiki_dir:\n'],
    ['trailing comment', 'wiki_dir: w # mine\n'],
    ['trailing space', 'wiki_dir: w \n'],
    ['quoted', "wiki_dir: 'w'\n"],
    ['flow list', 'parser_api_tokens: [a, b]\n'],
    ['continued on the next line', 'wiki_dir: a\n  b\n'],
    ['block list', 'trusted_pdf_hosts:\n  - a.example\n'],
    ['duplicate key', 'wiki_dir: a\nwiki_dir: b\n'],
    ['CRLF', 'wiki_dir: w\r\n'],
    ['document marker', '---\nwiki_dir: w\n'],
    ['directive', '%YAML 1.1\n---\na: yes\n'],
    ['tab', 'wiki_dir:\tw\n'],
    ['indented comment', '  # c\nwiki_dir: w\n'],
    ['colon in the value', 'server_url: http://h:4200\n'],
    ['proto key', '__proto__: x\n'],
    ['not a mapping', 'just text\n'],
  ])('%s: declined (the yaml package parses it)', (_name, text) => {
    expect(parseSimpleConfig(text)).toBeNull();
  });

  test('random texts from the subset and just outside it: declined or equal to yaml.parse', () => {
    const rng = mulberry32(25);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
    const keys = ['wiki_dir', 'server_url', 'insecure', 'a', 'b_2'];
    const values = [
      'w',
      '/x/y',
      'true',
      'False',
      'null',
      '1',
      '1.5',
      '.5',
      '-a',
      'a-b',
      'a.b',
      'x:y',
      '~',
      'A',
      '',
      'a#b',
    ];
    const gaps = [' ', '  ', '', '\t'];
    let accepted = 0;
    for (let i = 0; i < 2000; i++) {
      const lines: string[] = [];
      const count = Math.floor(rng() * 5);
      for (let j = 0; j < count; j++) {
        const kind = rng();
        if (kind < 0.15) lines.push(pick(['# c', '', '  # c', '#']));
        else lines.push(`${pick(keys)}:${pick(gaps)}${pick(values)}${pick(['', '', '', ' ', ' # c'])}`);
      }
      const text = lines.join('\n') + pick(['\n', '']);
      const simple = parseSimpleConfig(text);
      if (simple === null) continue;
      accepted++;
      expect(simple, JSON.stringify(text)).toEqual(full(text));
    }
    expect(accepted).toBeGreaterThan(200);
  });
});

describe('config.yaml on disk', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pks-simple-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('ensureConfigFile writes the template once and never touches an existing file', () => {
    const file = path.join(dir, 'a', 'config.yaml');
    ensureConfigFile(file);
    expect(readFileSync(file, 'utf8')).toBe(configTemplate());
    writeFileSync(file, 'wiki_dir: mine\n');
    ensureConfigFile(file);
    expect(readFileSync(file, 'utf8')).toBe('wiki_dir: mine\n');
    expect(readConfigMapping(file)).toEqual({ wiki_dir: 'mine' });
  });

  test('a file outside the subset is still read by the yaml package, errors included', () => {
    const file = path.join(dir, 'config.yaml');
    writeFileSync(file, 'insecure: true\nparser_api_tokens: [a, b]\n');
    expect(readConfigMapping(file)).toEqual({ insecure: true, parser_api_tokens: ['a', 'b'] });
    writeFileSync(file, 'wiki_dir: a\nwiki_dir: b\n');
    expect(() => readConfigMapping(file)).toThrow(/^cannot parse .*config\.yaml: Map keys must be unique/);
  });
});
