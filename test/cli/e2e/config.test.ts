/** `pks config …` and `config.yaml` (CONTRACT §16.1, §16.3 config rows), run as the built binary. */
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeHome, pks, readText, writeConfig, type PksHome } from '../support/pks.js';

let h: PksHome;
beforeEach(() => {
  h = makeHome();
});
afterEach(() => h.cleanup());

const mode = (file: string) => statSync(file).mode & 0o777;

describe('config path and the config directory', () => {
  it('prints the path; notes on stderr that the file does not exist yet', async () => {
    const run = await pks(h, ['config', 'path']);
    expect(run).toMatchObject({ code: 0, stdout: `${h.configPath}\n` });
    expect(run.stderr).toBe('(file not yet created; will be auto-created on next pks invocation)\n');
    expect(existsSync(h.configPath)).toBe(false); // config commands never create it
  });

  it('uses $XDG_CONFIG_HOME/pks when set and non-empty, else ~/.config/pks', async () => {
    const xdg = path.join(h.home, 'xdg');
    expect((await pks(h, ['config', 'path'], { env: { XDG_CONFIG_HOME: xdg } })).stdout).toBe(
      `${path.join(xdg, 'pks', 'config.yaml')}\n`,
    );
    expect((await pks(h, ['config', 'path'], { env: { XDG_CONFIG_HOME: '' } })).stdout).toBe(`${h.configPath}\n`);
  });

  it('any other command creates the commented template (0600, directory 0700) listing every key', async () => {
    const run = await pks(h, ['auth', 'status']);
    expect(run.code).toBe(1);
    expect(mode(h.configPath)).toBe(0o600);
    expect(mode(h.configDir)).toBe(0o700);
    const text = readText(h.configPath);
    for (const line of [
      '# server_url:',
      '# insecure: false',
      '# wiki_dir: pks-wiki',
      '# parser_api_tokens: []',
      '# parser_api_base_url: https://mineru.net',
      '# parser_model_version: vlm',
      '# parser_language: ch',
      '# parser_is_ocr: false',
      '# parser_enable_formula: true',
      '# parser_enable_table: true',
      '# parser_poll_interval: 3.0',
      '# parser_timeout: 1800',
      '# trusted_pdf_hosts: []',
      '# openai_api_key:',
      '# anthropic_api_key:',
      '# openai_base_url: https://api.openai.com/v1',
      '# anthropic_base_url: https://api.anthropic.com',
    ]) {
      expect(text).toContain(line);
    }
    expect(text.split('\n').every((l) => l === '' || l.startsWith('#'))).toBe(true);
    expect((await pks(h, ['config', 'path'])).stderr).toBe('');
  });

  it('an existing file is never touched', async () => {
    writeConfig(h, 'wiki_dir: mine   # my comment\n');
    await pks(h, ['auth', 'status']);
    expect(readText(h.configPath)).toBe('wiki_dir: mine   # my comment\n');
  });
});

describe('config set', () => {
  it('stores a value, prints it, writes header + block YAML keeping key order, mode 0600', async () => {
    expect(await pks(h, ['config', 'set', 'wiki_dir', 'w1'])).toMatchObject({
      code: 0,
      stdout: `set wiki_dir=w1 in ${h.configPath}\n`,
    });
    await pks(h, ['config', 'set', 'server_url', 'https://pks.example.org/']);
    await pks(h, ['config', 'set', 'wiki_dir', 'w2']);
    const text = readText(h.configPath);
    expect(text).toMatch(/^# [^\n]*\n# [^\n]*\nwiki_dir: w2\nserver_url: https:\/\/pks.example.org\n$/);
    expect(mode(h.configPath)).toBe(0o600);
    expect(readdirSync(h.configDir)).toEqual(['config.yaml']); // no temp file left behind
  });

  it('keeps unknown keys and their order when rewriting', async () => {
    writeConfig(h, 'zeta: 1\nwiki_dir: a\nalpha: [x]\n');
    await pks(h, ['config', 'set', 'insecure', 'yes']);
    expect(readText(h.configPath).split('\n').slice(2).join('\n')).toBe(
      'zeta: 1\nwiki_dir: a\nalpha:\n  - x\ninsecure: true\n',
    );
  });

  it.each([
    ['insecure', 'yes', 'true'],
    ['insecure', 'ON', 'true'],
    ['insecure', '1', 'true'],
    ['insecure', 'y', 'false'],
    ['insecure', 'nope', 'false'],
    ['parser_poll_interval', '2.5', '2.5'],
    ['parser_timeout', '60', '60'],
    ['trusted_pdf_hosts', ' a.org , ,b.org ', 'a.org,b.org'],
    ['server_url', 'http://h:4200///', 'http://h:4200'],
  ])('coerces %s %j → config get %s', async (key, value, got) => {
    expect((await pks(h, ['config', 'set', key, value])).code).toBe(0);
    expect(await pks(h, ['config', 'get', key])).toMatchObject({ code: 0, stdout: `${got}\n` });
  });

  it.each([
    ['parser_timeout', 'soon', 'invalid value for parser_timeout: expected int'],
    ['parser_timeout', '1.5', 'invalid value for parser_timeout: expected int'],
    ['parser_poll_interval', 'fast', 'invalid value for parser_poll_interval: expected float'],
    ['parser_model_version', 'gpt', 'invalid value for parser_model_version: expected vlm or pipeline'],
  ])('refuses %s %j with exit 1', async (key, value, message) => {
    expect(await pks(h, ['config', 'set', key, value])).toMatchObject({ code: 1, stderr: `${message}\n` });
    expect(existsSync(h.configPath)).toBe(false);
  });

  it.each(['bogus', 'Bad-Key', 'token'])('an unknown key %j → exit 1 listing the known keys', async (key) => {
    const run = await pks(h, ['config', 'set', key, 'v']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`unknown config key '${key}'`);
    expect(run.stderr).toContain('server_url, insecure, wiki_dir, parser_api_tokens');
  });

  it.each(['parser_api_tokens', 'openai_api_key', 'anthropic_api_key'])(
    'a sensitive key (%s) on argv → exit 2, nothing written',
    async (key) => {
      expect(await pks(h, ['config', 'set', key, 'secret-value'])).toMatchObject({
        code: 2,
        stderr: `refusing to take ${key} on the command line; use the prompt or: echo $SECRET | pks config set ${key}\n`,
      });
      expect(existsSync(h.configPath)).toBe(false);
    },
  );

  it('reads a sensitive value from stdin (one line) and prints it masked', async () => {
    const run = await pks(h, ['config', 'set', 'openai_api_key'], {
      stdin: 'sk-VeryLongSensitiveValue1234\nignored\n',
    });
    expect(run).toMatchObject({ code: 0, stdout: `set openai_api_key=sk-V…1234 (29 chars) in ${h.configPath}\n` });
    expect(readText(h.configPath)).toContain('openai_api_key: sk-VeryLongSensitiveValue1234\n');
    const short = await pks(h, ['config', 'set', 'anthropic_api_key'], { stdin: 'short\n' });
    expect(short.stdout).toBe(`set anthropic_api_key=*** in ${h.configPath}\n`);
  });

  it('a CSV of tokens from stdin becomes a list', async () => {
    await pks(h, ['config', 'set', 'parser_api_tokens'], { stdin: 'tok-aaaaaaaaaa, tok-bbbbbbbbbb\n' });
    expect(readText(h.configPath)).toContain('parser_api_tokens:\n  - tok-aaaaaaaaaa\n  - tok-bbbbbbbbbb\n');
    expect((await pks(h, ['config', 'get', 'parser_api_tokens'])).stdout).toBe('tok-aaaaaaaaaa,tok-bbbbbbbbbb\n');
  });

  it('an empty value from stdin → exit 1, nothing written', async () => {
    const run = await pks(h, ['config', 'set', 'wiki_dir'], { stdin: '\n' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('empty value for wiki_dir');
    expect(existsSync(h.configPath)).toBe(false);
  });
});

describe('config unset', () => {
  it('no file → 1; absent key → 1; present → removed, 0', async () => {
    expect((await pks(h, ['config', 'unset', 'wiki_dir'])).code).toBe(1);
    writeConfig(h, 'wiki_dir: a\ninsecure: true\n');
    expect((await pks(h, ['config', 'unset', 'server_url'])).code).toBe(1);
    expect(await pks(h, ['config', 'unset', 'wiki_dir'])).toMatchObject({
      code: 0,
      stdout: `unset wiki_dir in ${h.configPath}\n`,
    });
    expect(readText(h.configPath).split('\n').slice(2).join('\n')).toBe('insecure: true\n');
  });
});

describe('config get', () => {
  it('prints the resolved value (file over defaults)', async () => {
    writeConfig(h, 'insecure: "y"\nparser_api_tokens: " a , b,,"\nparser_enable_table: off\n');
    const get = async (key: string) => (await pks(h, ['config', 'get', key])).stdout;
    expect(await get('wiki_dir')).toBe('pks-wiki\n');
    expect(await get('insecure')).toBe('true\n');
    expect(await get('parser_api_tokens')).toBe('a,b\n');
    expect(await get('parser_enable_table')).toBe('false\n');
    expect(await get('parser_poll_interval')).toBe('3.0\n');
    expect(await get('parser_timeout')).toBe('1800\n');
  });

  it.each([['bogus'], ['server_url'], ['trusted_pdf_hosts'], ['openai_api_key']])(
    'unknown, unset or empty (%s) → exit 1 without output',
    async (key) => {
      expect(await pks(h, ['config', 'get', key])).toMatchObject({ code: 1, stdout: '', stderr: '' });
    },
  );
});

describe('config show', () => {
  it('header, blank line, every key sorted; sensitive values masked unless --unmask', async () => {
    const missing = await pks(h, ['config', 'show']);
    expect(missing.stdout.split('\n').slice(0, 2)).toEqual([
      `# config file: ${h.configPath}  (does not exist yet; using defaults)`,
      '',
    ]);
    writeConfig(
      h,
      'openai_api_key: sk-VeryLongSensitiveValue1234\nparser_api_tokens: [abc]\nserver_url: http://x:1/\n',
    );
    const shown = await pks(h, ['config', 'show']);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`# config file: ${h.configPath}`);
    expect(lines[1]).toBe('');
    const keys = lines.slice(2).map((l) => l.slice(0, l.indexOf(':')));
    expect(keys).toEqual([...keys].sort());
    expect(keys).toHaveLength(17);
    expect(lines).toContain('openai_api_key: sk-V…1234 (29 chars)');
    expect(lines).toContain('parser_api_tokens: ***');
    expect(lines).toContain('server_url: http://x:1');
    expect(lines).toContain('wiki_dir: pks-wiki');
    const unmasked = await pks(h, ['config', 'show', '--unmask']);
    expect(unmasked.stdout).toContain('openai_api_key: sk-VeryLongSensitiveValue1234\n');
  });
});

describe('reading config.yaml', () => {
  it.each([
    ['a list at the top', '- a\n- b\n', (p: string) => `expected a top-level mapping in ${p}`],
    ['a scalar at the top', 'just text\n', (p: string) => `expected a top-level mapping in ${p}`],
    ['broken YAML', 'wiki_dir: [unclosed\n', (p: string) => `cannot parse ${p}`],
    ['a mistyped bool', 'insecure: [1]\n', (p: string) => `invalid value for insecure in ${p}`],
    ['a mistyped int', 'parser_timeout: soon\n', (p: string) => `invalid value for parser_timeout in ${p}`],
    ['a bad choice', 'parser_model_version: gpt\n', (p: string) => `invalid value for parser_model_version in ${p}`],
  ])('%s → exit 1 naming the file', async (_name, text, message) => {
    writeConfig(h, text);
    const run = await pks(h, ['config', 'show']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message(h.configPath));
  });

  it('an empty file is {} and unknown keys are ignored', async () => {
    writeConfig(h, '');
    expect((await pks(h, ['config', 'show'])).code).toBe(0);
    writeFileSync(h.configPath, 'surprise: 1\nwiki_dir: here\n');
    expect((await pks(h, ['config', 'get', 'wiki_dir'])).stdout).toBe('here\n');
  });
});
