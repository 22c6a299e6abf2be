/** `pks auth …` (CONTRACT §16.1 hosts.yml, §16.3 auth rows, §16.4) against a real pksd and a scripted double. */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openIdentity, type Identity } from '../../../src/server/auth/identity.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { makeHome, pks, readText, spawnPks, waitForOutput, writeConfig, type PksHome } from '../support/pks.js';
import { startServerDouble, type ServerDouble } from '../support/server-double.js';

let h: PksHome;
beforeEach(() => {
  h = makeHome();
});
afterEach(() => h.cleanup());

const mode = (file: string) => statSync(file).mode & 0o777;

describe('auth login --with-token (§16.4 steps 1–2)', () => {
  it('stores the token for the normalised host: hosts.yml 0600 in a 0700 directory, exactly token + added_at', async () => {
    const run = await pks(h, ['auth', 'login', '--with-token', '-s', 'https://QUANTUM.example/'], {
      stdin: '  pat_abcdefghijklmnop \n',
    });
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect(run.stderr).toBe(`✓ Logged in to quantum.example (stored at ${h.hostsPath})\n  Token: pat_abcd********\n`);
    expect(mode(h.hostsPath)).toBe(0o600);
    expect(mode(h.configDir)).toBe(0o700);
    expect(readText(h.hostsPath)).toMatch(
      /^hosts:\n {2}quantum\.example:\n {4}token: pat_abcdefghijklmnop\n {4}added_at: '\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ'\n$/,
    );
  });

  it('hosts are kept sorted; the port is part of the host; the path is not', async () => {
    await pks(h, ['auth', 'login', '--with-token', '-s', 'http://h:4200/x'], { stdin: 'pat_one_123456' });
    await pks(h, ['auth', 'login', '--with-token', '-s', 'alpha.example'], { stdin: 'pat_two_123456' });
    const text = readText(h.hostsPath);
    expect(text.indexOf('alpha.example:')).toBeLessThan(text.indexOf('h:4200:'));
    expect((await pks(h, ['auth', 'token', '-s', 'http://H:4200'])).stdout).toBe('pat_one_123456\n');
  });

  it('a token without pat_ is stored with a warning; an empty one is refused (exit 1)', async () => {
    const odd = await pks(h, ['auth', 'login', '--with-token', '-s', 'a.example'], { stdin: 'abcdefgh\n' });
    expect(odd.code).toBe(0);
    expect(odd.stderr).toContain("Warning: token does not begin with 'pat_'. Storing anyway.\n");
    expect(odd.stderr).toContain('  Token: abcdef********\n');
    expect(await pks(h, ['auth', 'login', '--with-token', '-s', 'b.example'], { stdin: ' \n' })).toMatchObject({
      code: 1,
      stderr: 'Error: empty token; aborting.\n',
    });
  });

  it('the host comes from -s, else server_url of the config; none → exit 2', async () => {
    expect(await pks(h, ['auth', 'login', '--with-token'], { stdin: 'pat_x_12345678' })).toMatchObject({
      code: 2,
      stderr:
        "Error: server URL is required (--server-url / -s, or set server_url in the pks config — run 'pks config path' to find the file).\n",
    });
    writeConfig(h, 'server_url: https://Conf.example:8443/\n');
    expect((await pks(h, ['auth', 'login', '--with-token'], { stdin: 'pat_x_12345678' })).stderr).toContain(
      '✓ Logged in to conf.example:8443 ',
    );
  });

  it.each(['0', '366', 'ten'])('--expires-days %s → exit 2', async (days) => {
    const run = await pks(h, ['auth', 'login', '-s', 'a.example', '--expires-days', days]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      days === 'ten' ? /^Invalid input: --expires-days/ : /^Error: --expires-days must be in 1\.\.365\.\n$/,
    );
  });
});

describe('auth logout | status | token', () => {
  const store = async (host: string, token: string) =>
    pks(h, ['auth', 'login', '--with-token', '-s', host], { stdin: token });

  it('status with nothing stored → exit 1', async () => {
    expect(await pks(h, ['auth', 'status'])).toMatchObject({ code: 1, stderr: 'You are not logged into any hosts.\n' });
  });

  it('status lists every stored host, sorted, tokens redacted; -s selects one; an unknown -s → exit 1', async () => {
    await store('zeta.example', 'pat_zzzzzzzzzzzz');
    await store('alpha.example:4200', 'eyJhbGciOiJIUzI1NiJ9.eyJpZCI6IngifQ.c2lnbmF0dXJl');
    const run = await pks(h, ['auth', 'status']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => !l.startsWith(' '))).toEqual(['alpha.example:4200', 'zeta.example']);
    expect(lines.slice(0, 4)).toEqual([
      'alpha.example:4200',
      `  ✓ Logged in (stored at ${h.hostsPath})`,
      '  - Token type:  session',
      '  - Token value: eyJhbG********',
    ]);
    expect(lines[4]).toMatch(/^ {2}- Added: {7}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(lines.slice(7, 9)).toEqual(['  - Token type:  PAT', '  - Token value: pat_zzzz********']);
    const one = await pks(h, ['auth', 'status', '-s', 'https://ZETA.example/']);
    expect(one.stdout.split('\n')[0]).toBe('zeta.example');
    expect(one.stdout).not.toContain('alpha');
    expect((await pks(h, ['auth', 'status', '-s', 'other.example'])).code).toBe(1);
  });

  it.each([
    ['pat_abcdefghijkl', 'pat_abcd********'],
    ['pat_abc', 'pat_ab********'],
    ['abcdefg', 'abcdef********'],
    ['abcdef', '********'],
  ])('token %s is shown as %s', async (token, shown) => {
    await store('t.example', token);
    expect((await pks(h, ['auth', 'status'])).stdout).toContain(`  - Token value: ${shown}\n`);
  });

  it('token prints exactly the stored token; absent → exit 1; no host → exit 2', async () => {
    expect((await pks(h, ['auth', 'token'])).code).toBe(2);
    await store('a.example', 'pat_exact_token_1');
    expect(await pks(h, ['auth', 'token', '-s', 'a.example'])).toMatchObject({
      code: 0,
      stdout: 'pat_exact_token_1\n',
    });
    expect(await pks(h, ['auth', 'token', '-s', 'b.example'])).toMatchObject({
      code: 1,
      stderr: "Not logged into b.example. Run 'pks auth login -s b.example'.\n",
    });
  });

  it('logout deletes without contacting the server; idempotent; no host → exit 2', async () => {
    expect((await pks(h, ['auth', 'logout'])).code).toBe(2);
    writeConfig(h, 'server_url: http://127.0.0.1:9/\n'); // nothing listens there
    await store('127.0.0.1:9', 'pat_to_forget_1');
    await store('keep.example', 'pat_to_keep_111');
    expect(await pks(h, ['auth', 'logout'])).toMatchObject({ code: 0, stderr: '✓ Logged out of 127.0.0.1:9.\n' });
    expect(await pks(h, ['auth', 'logout'])).toMatchObject({
      code: 0,
      stderr: 'No credentials stored for 127.0.0.1:9.\n',
    });
    expect(readText(h.hostsPath)).not.toContain('127.0.0.1');
    expect(readText(h.hostsPath)).toContain('keep.example');
  });

  it('a hosts.yml that is not valid YAML is treated as empty, with a warning', async () => {
    mkdirSync(h.configDir, { recursive: true });
    writeFileSync(h.hostsPath, 'hosts: [unclosed\n');
    const run = await pks(h, ['auth', 'status']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`^Warning: ${h.hostsPath.replace(/[.]/g, '\\.')} is not valid YAML \\(.+\\); treating as empty\\.\n`),
    );
    for (const text of ['- a\n', 'hosts: 3\n', 'hosts:\n  x.example: nope\n']) {
      writeFileSync(h.hostsPath, text);
      expect(await pks(h, ['auth', 'status'])).toMatchObject({
        code: 1,
        stderr: 'You are not logged into any hosts.\n',
      });
    }
  });
});

describe('auth login: device flow against pksd (§16.4 step 3)', () => {
  let srv: TestServer;
  let identity: Identity;
  let session: string;
  beforeAll(async () => {
    srv = await startTestServer();
    identity = await openIdentity(srv.config, pino({ level: 'silent' }), { background: false });
    const { user } = await identity.users.upsertFromIdp({
      provider: 'github',
      providerUserId: 'id-alice',
      login: 'alice',
      email: 'alice@example.org',
      name: 'alice',
      avatar: '',
    });
    session = identity.sessions.issue(user);
  });
  afterAll(async () => {
    await identity.close();
    await srv.close();
  });

  const sessionPost = (url: string, body: unknown) =>
    srv.fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const userCodeOf = (stderr: string) => /and enter the code: {2}([A-Z0-9]{4}-[A-Z0-9]{4})\n/.exec(stderr)?.[1];

  it('approved in the browser session: stores the minted PAT and prints its spec', async () => {
    writeConfig(h, `server_url: ${srv.url}\n`);
    const run = spawnPks(h, [
      'auth',
      'login',
      '--no-browser',
      '--scopes',
      ' wiki:read, papers:read,wiki:read,',
      '--expires-days',
      '30',
      '--token-name',
      'laptop',
    ]);
    await waitForOutput(run, (o) => userCodeOf(o.stderr) !== undefined);
    const { stderr } = run.output();
    const userCode = userCodeOf(stderr)!;
    const host = new URL(srv.url).host;
    expect(stderr).toContain(
      `To finish logging in, open this URL in a browser:\n  ${srv.url}/device\nand enter the code:  ${userCode}\n`,
    );
    expect(stderr).toContain(`${srv.url}/device?user_code=${userCode}`);
    expect(stderr).toContain('Waiting for approval (up to 600s, polling every 5s)…\n');
    const pending = await srv.fetch(`/api/oauth/device/code?user_code=${userCode}`, {
      headers: { authorization: `Bearer ${session}` },
    });
    expect(await pending.json()).toMatchObject({
      name: 'laptop',
      scopes: ['wiki:read', 'papers:read'],
      expires_in_days: 30,
    });
    expect(
      (await sessionPost('/api/oauth/device/approve', { user_code: userCode, scopes: ['wiki:read'] })).status,
    ).toBe(200);
    const result = await run.done;
    expect(result.code).toBe(0);
    const token = /token: (pat_\S+)\n/.exec(readText(h.hostsPath))?.[1];
    expect(token).toBeDefined();
    expect(result.stderr).toContain(
      `✓ Logged in to ${host} (stored at ${h.hostsPath})\n  Token:   ${token!.slice(0, 8)}********\n  Name:    laptop\n  Scopes:  wiki:read\n  Expires: `,
    );
    expect(result.stderr).toMatch(/ {2}Expires: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
    // The stored PAT works for what it was granted.
    expect((await srv.fetch('/api/pages', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  }, 30_000);

  it('denied in the browser → exit 1; the default name is pks-cli-<hostname>-<UTC date>; the browser is opened', async () => {
    writeConfig(h, `server_url: ${srv.url}/\n`);
    const bin = path.join(h.home, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > "${h.home}/opened"\n`);
    chmodSync(path.join(bin, 'xdg-open'), 0o755);
    const run = spawnPks(h, ['auth', 'login', '-s', new URL(srv.url).host], {
      env: { PATH: `${bin}:${process.env['PATH']}` },
    });
    await waitForOutput(run, (o) => userCodeOf(o.stderr) !== undefined);
    const userCode = userCodeOf(run.output().stderr)!;
    const pending = await (
      await srv.fetch(`/api/oauth/device/code?user_code=${userCode}`, {
        headers: { authorization: `Bearer ${session}` },
      })
    ).json();
    const expectedHost = hostname().toLowerCase().replace(/[.:]/g, '-').slice(0, 32);
    expect(pending.name).toBe(`pks-cli-${expectedHost}-${new Date().toISOString().slice(0, 10)}`);
    expect(pending.expires_in_days).toBe(90);
    expect(pending.scopes).toEqual([]);
    expect((await sessionPost('/api/oauth/device/deny', { user_code: userCode })).status).toBe(200);
    expect(await run.done).toMatchObject({ code: 1 });
    expect((await run.done).stderr).toContain('Error: Authorization denied in the browser.\n');
    expect(readFileSync(path.join(h.home, 'opened'), 'utf8')).toBe(`${srv.url}/device?user_code=${userCode}\n`);
  }, 30_000);
});

describe('auth login: device flow outcomes (scripted server)', () => {
  let double: ServerDouble;
  beforeEach(async () => {
    double = await startServerDouble();
    writeConfig(h, `server_url: ${double.baseUrl}\n`);
  });
  afterEach(() => double.close());

  const start = (interval: number, expires_in = 600) =>
    double.on('POST', '/api/oauth/device/code', {
      status: 200,
      body: {
        device_code: 'd'.repeat(43),
        user_code: 'ABCD-EFGH',
        verification_uri: `${double.baseUrl}/device`,
        verification_uri_complete: `${double.baseUrl}/device?user_code=ABCD-EFGH`,
        expires_in,
        interval,
      },
    });
  const polls = (...errors: string[]) =>
    double.on('POST', '/api/oauth/device/token', ...errors.map((error) => ({ status: 400, body: { error } })));
  const minted = {
    status: 200,
    body: {
      access_token: 'pat_minted_1234567',
      token_type: 'Bearer',
      expires_in: 86400,
      pat_id: 'p1',
      name: 'n1',
      prefix: 'pat_mint',
      plaintext: 'pat_minted_1234567',
      scopes: [],
      expires_at: '2026-06-01T00:00:00Z',
    },
  };

  it('authorization_pending keeps polling; slow_down adds 5 s to the interval; success stores the PAT', async () => {
    start(1);
    double.on(
      'POST',
      '/api/oauth/device/token',
      { status: 400, body: { error: 'authorization_pending' } },
      { status: 400, body: { error: 'slow_down' } },
      minted,
    );
    const run = await pks(h, ['auth', 'login', '--no-browser']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('  Scopes:  (none)\n  Expires: 2026-06-01T00:00:00Z\n');
    const times = double.times('POST', '/api/oauth/device/token');
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(900);
    expect(times[1]! - times[0]!).toBeLessThan(5_000);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(5_900); // 1 s + 5 s after slow_down
    const body = JSON.parse(double.calls('POST', '/api/oauth/device/token')[0]!.body.toString());
    expect(body).toEqual({ device_code: 'd'.repeat(43) });
    expect(readText(h.hostsPath)).toContain('token: pat_minted_1234567\n');
  }, 30_000);

  it.each([
    ['expired_token', 'Error: Device code expired before approval.'],
    ['access_denied', 'Error: Authorization denied in the browser.'],
    ['invalid_grant', 'Error: server rejected device-code poll: invalid_grant'],
  ])('%s → exit 1', async (error, message) => {
    start(1);
    polls(error);
    const run = await pks(h, ['auth', 'login', '--no-browser']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${message}\n`);
  });

  it('the wait is min(--timeout, expires_in); at the deadline → exit 1', async () => {
    start(1, 2);
    polls('authorization_pending');
    const run = await pks(h, ['auth', 'login', '--no-browser', '--timeout', '600']);
    expect(run.stderr).toContain('Waiting for approval (up to 2s, polling every 1s)…\n');
    expect(run).toMatchObject({ code: 1 });
    expect(run.stderr).toContain('Error: Device flow timed out after 2s without an approve/deny.\n');
    start(5, 600);
    const short = await pks(h, ['auth', 'login', '--no-browser', '--timeout', '1']);
    expect(short.stderr).toContain('Error: Device flow timed out after 1s without an approve/deny.\n');
  }, 30_000);

  it('the base is https://<host> when the login host is not the configured server', async () => {
    start(1);
    const host = new URL(double.baseUrl).host;
    writeConfig(h, 'server_url: http://elsewhere.example\n');
    const run = await pks(h, ['auth', 'login', '--no-browser', '-s', host]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Request failed: /); // TLS to a plain-HTTP port
    expect(double.calls('POST', '/api/oauth/device/code')).toHaveLength(0);
  });
});
