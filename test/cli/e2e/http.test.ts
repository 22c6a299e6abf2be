/** HTTP behaviour of every server call (CONTRACT §16.2): headers, the version check, 429 retries, TLS. */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pks, writeConfig, type PksHome } from '../support/pks.js';
import { snapshot, loggedInDouble, type Reply, type ServerDouble } from '../support/server-double.js';

let h: PksHome;
let api: ServerDouble;
let close: () => Promise<void>;
beforeEach(async () => ({ h, api, close } = await loggedInDouble('pat_writer_123456')));
afterEach(() => close());

const ID = '2501.00010v1';
const STATUS = `/api/papers/${ID}/markdown/status`;
const refusal = (server: string) =>
  `ERROR: server version ${server} is newer than client 0.1.0. Upgrade pks (npm install -g pks).\n`;
const warning = (server: string) =>
  `WARNING: server version ${server} is newer than client 0.1.0. Upgrade pks (npm install -g pks).\n`;

describe('version check (§8.3, §16.2)', () => {
  it('a write to a newer (major, minor) server: learns the version from /api/server/info, sends nothing, exit 4', async () => {
    api.version = '0.2.0';
    const run = await pks(h, ['ingest', '2501.00010']);
    expect(run).toMatchObject({ code: 4, stderr: refusal('0.2.0'), stdout: '' });
    expect(api.calls('GET', '/api/server/info')).toHaveLength(1);
    expect(api.calls('POST', '/api/ingest/paper')).toHaveLength(0);
    const pdf = path.join(h.cwd, 'p.pdf');
    writeFileSync(pdf, '%PDF-1.7\n');
    expect(await pks(h, ['contrib', 'pdf', ID, '--pdf', pdf])).toMatchObject({ code: 4, stderr: refusal('0.2.0') });
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('a version learned from an earlier read of the run is used (read warns, the write is refused)', async () => {
    await pks(h, ['config', 'set', 'parser_api_tokens'], { stdin: 'tok-1234567890\n' });
    api.on('GET', '/api/papers/needs-parser', {
      status: 200,
      body: { papers: [{ preprint_id: ID }], returned: 1, total_unclaimed: 1, total_claimed: 0, available: true },
      headers: { 'x-svc-server-version': '1.0.0' },
    });
    const run = await pks(h, ['contrib', 'parser']);
    expect(run.code).toBe(4);
    expect(run.stderr).toBe(`parser key ring: 1 key(s) loaded\n${warning('1.0.0')}${refusal('1.0.0')}`);
    expect(api.calls('GET', '/api/server/info')).toHaveLength(0);
    expect(api.calls('POST', `/api/papers/${ID}/parser-claim`)).toHaveLength(0);
  });

  it.each([
    ['0.1.9', 'a newer patch level'],
    ['0.0.5', 'an older server'],
    ['dev-build', 'an unparseable version'],
  ])('%s (%s) → no warning, writes go through', async (version) => {
    api.version = version;
    api.on('POST', '/api/ingest/paper', { status: 202, body: { task_id: 'ab12cd34', status: 'queued' } });
    const run = await pks(h, ['ingest', '2501.00010', '--no-poll']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
  });

  it('reads from a newer server warn once per distinct version and go on', async () => {
    const md = `/api/papers/${ID}/markdown`;
    const v = (version: string) => ({ 'x-svc-server-version': version, 'retry-after': '1' });
    api.on(
      'GET',
      md,
      { status: 202, body: snapshot('queued'), headers: v('0.2.0') },
      {
        status: 200,
        body: '# md\n',
        headers: v('0.3.1'),
      },
    );
    api.on(
      'GET',
      STATUS,
      { status: 200, body: snapshot('running'), headers: v('0.2.0') },
      { status: 200, body: snapshot('running'), headers: v('0.3.0') },
      { status: 200, body: snapshot('cached', { md_ready: true }), headers: v('0.3.0') },
    );
    const run = await pks(h, ['paper', 'get', 'markdown', ID, '--quiet-progress']);
    expect(run).toMatchObject({ code: 0, stdout: '# md\n' });
    expect(run.stderr).toBe(`${warning('0.2.0')}${warning('0.3.0')}${warning('0.3.1')}`);
  });
});

describe('429 with Retry-After', () => {
  const limited = (seconds?: string): Reply => ({
    status: 429,
    body: { detail: 'rate limit exceeded' },
    headers: seconds === undefined ? {} : { 'retry-after': seconds },
  });

  it('is retried after the delay, at most 3 times', async () => {
    api.on('GET', STATUS, limited('1'), limited('1'), { status: 200, body: snapshot('none') });
    const run = await pks(h, ['paper', 'status', ID]);
    expect(run.code).toBe(0);
    const times = api.times('GET', STATUS);
    expect(times).toHaveLength(3);
    expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(1900);
  });

  it('a fourth 429 counts as the answer', async () => {
    api.on('GET', STATUS, limited('0'));
    const run = await pks(h, ['paper', 'status', ID]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('markdown status failed: HTTP 429 Too Many Requests\n');
    expect(api.calls('GET', STATUS)).toHaveLength(4);
  });

  it.each([['121'], [undefined]])('Retry-After %s → not retried', async (seconds) => {
    api.on('GET', STATUS, limited(seconds));
    expect((await pks(h, ['paper', 'status', ID])).code).toBe(1);
    expect(api.calls('GET', STATUS)).toHaveLength(1);
  });

  it('an upload is sent again in full', async () => {
    const pdf = path.join(h.cwd, 'p.pdf');
    writeFileSync(pdf, '%PDF-1.7\nsame bytes twice\n');
    const upload = `/api/papers/${ID}/upload-pdf`;
    api.on('POST', upload, limited('0'), { status: 201, body: { preprint_id: ID, unchanged: false } });
    expect((await pks(h, ['contrib', 'pdf', ID, '--pdf', pdf])).code).toBe(0);
    const [first, second] = api.calls('POST', upload);
    expect(second!.body).toEqual(first!.body);
    expect(first!.body.includes(Buffer.from('%PDF-1.7\nsame bytes twice\n'))).toBe(true);
  });
});

describe('TLS', () => {
  it('verifies certificates unless insecure is set; then warns once per run', async () => {
    const dir = h.home;
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-days',
        '1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    let hits = 0;
    const server = https.createServer(
      { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
      (req, res) => {
        hits++;
        const cached = hits > 1;
        res.writeHead(cached ? 200 : 202, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify(cached ? snapshot('cached', { md_ready: true }) : snapshot('queued')));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      writeConfig(h, `server_url: ${url}\n`);
      const strict = await pks(h, ['paper', 'status', ID]);
      expect(strict.code).toBe(1);
      expect(strict.stderr).toMatch(/^Request failed: .*(self[- ]signed|certificate)/i);
      writeConfig(h, `server_url: ${url}\ninsecure: true\n`);
      const run = await pks(h, ['paper', 'get', 'markdown', ID, '--quiet-progress']);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('Warning: TLS certificate verification is disabled.\n');
      expect(hits).toBeGreaterThanOrEqual(3);
    } finally {
      server.close();
    }
  });
});
