/**
 * Client hardening (issue 20, docs/decisions.md "Client hardening"), through the built `bin/pks` against a scripted
 * server and a recording listener on another loopback origin: the token never leaves the server's origin, the
 * version probe carries it, server text reaches the terminal without control sequences, and a non-JSON body is
 * a one-line error naming the status.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHttpDouble, type HttpDouble } from '../../support/upstreams/http-double.js';
import { pks, type PksHome } from '../support/pks.js';
import { loggedInDouble, snapshot, type Reply, type ServerDouble } from '../support/server-double.js';

const TOKEN = 'pat_hardening_1234567';
const ID = '2501.00010v1';
const MD = `/api/papers/${ID}/markdown`;
const PDF = `/api/papers/${ID}/pdf`;

let h: PksHome;
let api: ServerDouble;
let close: () => Promise<void>;
let foreign: HttpDouble;
beforeEach(async () => {
  ({ h, api, close } = await loggedInDouble(TOKEN));
  foreign = await startHttpDouble((req, res) => {
    const body = req.url.endsWith('.pdf')
      ? '%PDF-1.7 served elsewhere\n'
      : JSON.stringify(snapshot('cached', { md_ready: true }));
    res.writeHead(200, { 'content-type': req.url.endsWith('.pdf') ? 'application/pdf' : 'application/json' });
    res.end(body);
  });
});
afterEach(async () => {
  await close();
  await foreign.close();
});

/** Every control character a terminal would act on (what `terminalText` removes). */
// eslint-disable-next-line no-control-regex -- the assertion is about control characters
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE =
  'bad\x1b[2J\x1b[H\x1b]0;pwned\x07 \x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ \u202eexe.txt\x9b31m!';
const HOSTILE_SHOWN = 'bad link exe.txt!';

describe('the token stays on the server origin', () => {
  it.each([
    [
      'operation.status_url',
      (url: string): Reply => ({ status: 202, body: snapshot('queued', { operation: { status_url: url } }) }),
    ],
    [
      'Operation-Location',
      (url: string): Reply => ({ status: 202, body: snapshot('queued'), headers: { 'operation-location': url } }),
    ],
  ])('a %s on another origin is refused at once; that origin sees no request', async (_name, accepted) => {
    api.on('GET', MD, accepted(`${foreign.baseUrl}${MD}/status`));
    const run = await pks(h, ['paper', 'get', 'markdown', ID, '--quiet-progress']);
    expect(run).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        `poll request failed: refusing to follow ${foreign.baseUrl} (not the configured server ${api.baseUrl}); ` +
        'the token is sent to the server only\n',
    });
    expect(foreign.requests).toEqual([]);
    expect(api.calls('GET', `${MD}/status`)).toEqual([]);
  });

  it('an absolute status URL on the server origin is polled, with the token', async () => {
    api.on(
      'GET',
      MD,
      {
        status: 202,
        body: snapshot('queued', { operation: { status_url: `${api.baseUrl}/elsewhere/status` } }),
        headers: { 'retry-after': '1' },
      },
      { status: 200, body: '# md\n' },
    );
    api.on('GET', '/elsewhere/status', { status: 200, body: snapshot('cached', { md_ready: true }) });
    const run = await pks(h, ['paper', 'get', 'markdown', ID, '--quiet-progress']);
    expect(run).toMatchObject({ code: 0, stdout: '# md\n' });
    expect(api.calls('GET', '/elsewhere/status')[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a redirect to another origin is followed without the Authorization header', async () => {
    api.on('GET', PDF, { status: 302, headers: { location: `${foreign.baseUrl}/bucket/paper.pdf` } });
    const run = await pks(h, ['paper', 'get', 'pdf', ID]);
    expect(run).toMatchObject({ code: 0, stdout: '%PDF-1.7 served elsewhere\n' });
    expect(api.calls('GET', PDF)[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(foreign.requests.map((r) => r.url)).toEqual(['/bucket/paper.pdf']);
    expect(foreign.requests[0]!.headers).not.toHaveProperty('authorization');
  });

  it('the version probe GET /api/server/info carries the stored token', async () => {
    api.on('POST', '/api/ingest/paper', { status: 202, body: { task_id: 'ab12cd34', status: 'queued' } });
    const run = await pks(h, ['ingest', '2501.00010', '--no-poll']);
    expect(run.code).toBe(0);
    const [probe] = api.calls('GET', '/api/server/info');
    expect(probe!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(probe!.headers['x-svc-client-version']).toBe('0.1.0');
  });
});

describe('server text reaches the terminal without control sequences', () => {
  const clean = (run: { stdoutBytes: Buffer; stderr: string }) => {
    expect(run.stdoutBytes.includes(0x1b)).toBe(false);
    expect(Buffer.from(run.stderr).includes(0x1b)).toBe(false);
    expect(run.stdoutBytes.toString('utf8')).not.toMatch(TERMINAL_CONTROL);
    expect(run.stderr).not.toMatch(TERMINAL_CONTROL);
  };

  it('a detail in an error answer (Request failed: …), folded to one line', async () => {
    api.on('POST', '/api/ingest/paper', { status: 400, body: { detail: `${HOSTILE}\nsecond line` } });
    const run = await pks(h, ['ingest', '2501.00010']);
    expect(run).toMatchObject({
      code: 1,
      stderr: `Request failed: HTTP 400 Bad Request: ${HOSTILE_SHOWN} second line\n`,
    });
    clean(run);
  });

  it('a rendered error body, the progress lines and a terminal job body', async () => {
    api.on('GET', MD, {
      status: 202,
      body: snapshot(`queued${HOSTILE}`, { phase: HOSTILE }),
      headers: { 'retry-after': '1' },
    });
    api.on('GET', `${MD}/status`, { status: 200, body: snapshot('failed', { error: { detail: HOSTILE } }) });
    const run = await pks(h, ['paper', 'get', 'markdown', ID]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`async operation started: queued${HOSTILE_SHOWN} ${HOSTILE_SHOWN}\n`);
    expect(run.stderr).toContain('job ended in terminal state (failed):\n');
    clean(run);

    api.on('GET', `${MD}/status`, { status: 404, body: { detail: HOSTILE } });
    const status = await pks(h, ['paper', 'status', ID]);
    expect(status).toMatchObject({
      code: 1,
      stderr: `markdown status failed: HTTP 404 Not Found\n{\n  "detail": "bad\\u001b[2J\\u001b[H\\u001b]0;pwned\\u0007 \\u001b]8;;http://evil.example\\u001b\\\\link\\u001b]8;;\\u001b\\\\ exe.txt!"\n}\n`,
    });
    clean(status);
  });

  it('JSON printed on stdout (C1 controls and bidi overrides are not escaped by JSON)', async () => {
    api.on('GET', `${MD}/status`, { status: 200, body: snapshot('queued', { title: 'evil\u202etxt.exe\u009b2J' }) });
    const run = await pks(h, ['paper', 'status', ID]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ title: 'eviltxt.exe' });
    clean(run);
  });

  it('markdown written to a pipe or a file stays byte for byte', async () => {
    const markdown = '# T\x1b[31m\n\u202e\n';
    api.on('GET', MD, { status: 200, body: markdown });
    const run = await pks(h, ['paper', 'get', 'markdown', ID]);
    expect(run.code).toBe(0);
    expect(run.stdoutBytes).toEqual(Buffer.from(markdown));
  });

  it('wiki text printed by a command', async () => {
    const dir = path.join(h.cwd, 'pks-wiki', 'concepts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'qubit.md'),
      `---\nid: qubit\ntitle: "Qubit\\e]0;t\\a"\ntype: concept\nstatus: draft\ntags: []\n---\n# Qubit\n\x1b[2JBody \u202etext\n`,
    );
    const run = await pks(h, ['wiki', 'show', 'qubit', '--raw']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('# Qubit\nBody text\n');
    clean(run);
    const shown = await pks(h, ['wiki', 'show', 'qubit']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^Title: +Qubit$/m);
    clean(shown);
  });
});

describe('a non-JSON body where JSON is expected', () => {
  const html = (status: number): Reply => ({
    status,
    body: '<html>\n<head><title>Bad gateway</title></head>\n<body>nginx</body>\n</html>\n',
    headers: { 'content-type': 'text/html; charset=utf-8' },
  });

  it.each([
    ['ingest (a 502 page)', 'POST', '/api/ingest/paper', html(502), ['ingest', '2501.00010', '--no-poll'], 502],
    ['ingest status', 'GET', '/api/ingest/ab12cd34', html(200), ['ingest', 'status', 'ab12cd34'], 200],
    ['ingest polling', 'GET', '/api/ingest/ab12cd34', html(200), ['ingest', '2501.00010', '--quiet-progress'], 200],
    ['paper status', 'GET', `${MD}/status`, html(200), ['paper', 'status', ID], 200],
    ['paper get (202)', 'GET', MD, html(202), ['paper', 'get', 'markdown', ID, '--quiet-progress'], 202],
  ] as const)('%s → one line naming the status, exit 1', async (_name, method, route, reply, argv, status) => {
    api.on('POST', '/api/ingest/paper', { status: 202, body: { task_id: 'ab12cd34', status: 'queued' } });
    api.on(method, route, reply);
    const run = await pks(h, [...argv]);
    expect(run).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `Request failed: server answered ${status} with a non-JSON body (text/html)\n`,
    });
  });

  it('contrib pdf: a 201 that is not JSON', async () => {
    const pdf = path.join(h.cwd, 'p.pdf');
    writeFileSync(pdf, '%PDF-1.7\n');
    api.on('POST', `/api/papers/${ID}/upload-pdf`, {
      status: 201,
      body: 'created',
      headers: { 'content-type': 'text/plain' },
    });
    const run = await pks(h, ['contrib', 'pdf', ID, '--pdf', pdf]);
    expect(run).toMatchObject({
      code: 1,
      stderr: 'Request failed: server answered 201 with a non-JSON body (text/plain)\n',
    });
  });

  it('a JSON answer that is not an object', async () => {
    api.on('GET', '/api/ingest/ab12cd34', {
      status: 200,
      body: 'null',
      headers: { 'content-type': 'application/json' },
    });
    const run = await pks(h, ['ingest', 'status', 'ab12cd34']);
    expect(run).toMatchObject({
      code: 1,
      stderr: 'Request failed: server answered 200 with JSON that is not an object\n',
    });
  });
});
