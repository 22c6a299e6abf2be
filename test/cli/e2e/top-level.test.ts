/** The top level of `pks` (CONTRACT §16.3) and the exit codes of §16.7, one row each. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMineruDouble } from '../../support/upstreams/mineru.js';
import { loginWithToken, makeHome, pks, spawnPks, waitForOutput, writeConfig, type PksHome } from '../support/pks.js';
import { snapshot, startServerDouble, type ServerDouble } from '../support/server-double.js';

let h: PksHome;
beforeEach(() => {
  h = makeHome();
});
afterEach(() => h.cleanup());

describe('top level', () => {
  it.each([['-V'], ['--version']])('%s → "pks <version>"', async (flag) => {
    expect(await pks(h, [flag])).toMatchObject({ code: 0, stdout: 'pks 0.1.0\n', stderr: '' });
  });

  it.each([[[]], [['-h']], [['--help']], [['help']]])('%j → help on stdout, exit 0', async (args) => {
    const run = await pks(h, args);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: pks [options] [command]');
    for (const group of ['auth', 'config', 'paper', 'contrib', 'ingest', 'wiki', 'upload']) {
      expect(run.stdout).toMatch(new RegExp(`\\n {2}${group} `));
    }
    expect(run.stdout).toContain(`${h.configDir}/hosts.yml     credentials per server host, mode 0600`);
  });

  it('the help of a group names its commands and where credentials are stored', async () => {
    const run = await pks(h, ['auth', '--help']);
    expect(run.code).toBe(0);
    for (const verb of ['login', 'logout', 'status', 'token']) expect(run.stdout).toContain(`  ${verb} `);
    expect(run.stdout).toContain(`Credentials are stored per server host in ${h.hostsPath} (mode 0600`);
    expect((await pks(h, ['help', 'wiki'])).stdout).toContain('search [options] <query>');
  });

  it('an unknown command → the two-line error, exit 2', async () => {
    expect(await pks(h, ['frobnicate'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "Error: unknown command 'frobnicate'\nRun 'pks --help' to see available commands.\n",
    });
    expect(await pks(h, ['wiki', 'frobnicate'])).toMatchObject({
      code: 2,
      stderr: "Error: unknown command 'frobnicate'\nRun 'pks wiki --help' to see available commands.\n",
    });
  });

  it.each([
    [['--bogus']],
    [['wiki', 'list', '--bogus']],
    [['contrib', 'parser', '--batch', '5']], // no abbreviation of --batch-size
    [['paper', 'get', 'markdown', 'x', '--max', '5']], // no abbreviation of --max-wait
    [['auth', 'login', '--with']],
    [['wiki', 'show']], // missing argument
    [['wiki', 'show', 'a', 'b']], // excess argument
  ])('%j → usage error, exit 2', async (args) => {
    const run = await pks(h, args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Error: /);
  });
});

describe('exit codes (§16.7)', () => {
  let api: ServerDouble;
  beforeEach(async () => {
    api = await startServerDouble();
  });
  afterEach(() => api.close());

  it('0: success, --no-wait, idempotent logout, claim skip, empty queue', async () => {
    await loginWithToken(h, api.baseUrl, 'pat_exit_codes_1');
    expect((await pks(h, ['auth', 'token'])).code).toBe(0);
    api.on('GET', '/api/papers/2501.00010v1/markdown', { status: 202, body: snapshot('queued') });
    expect((await pks(h, ['paper', 'get', 'markdown', '2501.00010v1', '--no-wait'])).code).toBe(0);
    expect((await pks(h, ['auth', 'logout', '-s', 'never.example'])).code).toBe(0);
    await pks(h, ['config', 'set', 'parser_api_tokens'], { stdin: 'tok-1234567890\n' });
    api.on('POST', '/api/papers/2501.00010v1/parser-claim', { status: 409, body: { detail: 'already claimed' } });
    expect((await pks(h, ['contrib', 'parser', '2501.00010v1'])).code).toBe(0);
    api.on('GET', '/api/papers/needs-parser', {
      status: 200,
      body: { papers: [], returned: 0, total_unclaimed: 0, total_claimed: 3, available: true },
    });
    const empty = await pks(h, ['contrib', 'parser']);
    expect(empty.code).toBe(0);
    expect(empty.stderr).toContain('(unclaimed=0, claimed=3)');
  });

  it('1: HTTP error, missing file, lint errors, unset config get', async () => {
    await loginWithToken(h, api.baseUrl, 'pat_exit_codes_1');
    expect((await pks(h, ['paper', 'status', '2501.00010v1'])).code).toBe(1); // the double answers 404
    expect((await pks(h, ['contrib', 'pdf', '2501.00010v1', '--pdf', 'missing.pdf'])).code).toBe(1);
    expect((await pks(h, ['config', 'get', 'openai_api_key'])).code).toBe(1);
    writeConfig(h, 'wiki_dir: w\n');
    const page = path.join(h.cwd, 'w', 'p.md');
    mkdirSync(path.dirname(page), { recursive: true });
    writeFileSync(page, 'no frontmatter\n');
    expect((await pks(h, ['wiki', 'lint'])).code).toBe(1);
  });

  it.each([
    [['frobnicate']],
    [['wiki', 'list', '--bogus']],
    [['contrib', 'parser', '--batch-size', 'many']],
    [['config', 'set', 'openai_api_key', 'sk-on-argv']],
    [['auth', 'logout']],
    [['upload', 'markdown', 'x']],
  ])('2: %j', async (args) => {
    expect((await pks(h, args)).code).toBe(2);
  });

  it('4: a write to a newer server', async () => {
    await loginWithToken(h, api.baseUrl, 'pat_exit_codes_1');
    api.version = '0.2.0';
    expect((await pks(h, ['ingest', 'continue', 'ab12cd34'])).code).toBe(4);
  });

  it('75 and 130: the parser quota, and an interrupt (every claim released both times)', async () => {
    const mineru = await startMineruDouble();
    try {
      mineru.tokens.add('tok-1234567890');
      await loginWithToken(h, api.baseUrl, 'pat_exit_codes_1');
      writeConfig(
        h,
        `server_url: ${api.baseUrl}\nparser_api_tokens: tok-1234567890\nparser_api_base_url: ${mineru.baseUrl}\nparser_poll_interval: 1\n`,
      );
      api.on('GET', '/api/papers/needs-parser', {
        status: 200,
        body: {
          papers: [{ preprint_id: '2501.00010v1' }],
          returned: 1,
          total_unclaimed: 1,
          total_claimed: 0,
          available: true,
        },
      });
      api.on('POST', '/api/papers/2501.00010v1/parser-claim', {
        status: 201,
        body: {
          claim_id: 'c'.repeat(32),
          preprint_id: '2501.00010v1',
          key: '2501.00010v1',
          pdf_url: 'https://arxiv.org/pdf/2501.00010v1',
          expires_at: '2026-05-01T12:30:00Z',
        },
      });
      const release = `/api/papers/2501.00010v1/parser-claim/${'c'.repeat(32)}`;
      api.on('DELETE', release, { status: 204 });
      mineru.batchCreateFailures.push({ code: -60018, msg: 'daily limit' });
      expect((await pks(h, ['contrib', 'parser'])).code).toBe(75);
      expect(api.calls('DELETE', release)).toHaveLength(1);
      const run = spawnPks(h, ['contrib', 'parser']);
      await waitForOutput(run, (o) => o.stderr.includes('Batch progress:'));
      run.child.kill('SIGINT');
      expect((await run.done).code).toBe(130);
      expect(api.calls('DELETE', release)).toHaveLength(2);
    } finally {
      await mineru.close();
    }
  });
});
