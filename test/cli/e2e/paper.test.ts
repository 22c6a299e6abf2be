/**
 * `pks paper get | status` (CONTRACT §16.6) against a scripted double of the paper-access routes (§11), every
 * row of the decision table, the notes, the eta line and the exit codes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pks, spawnPks, type PksHome } from '../support/pks.js';
import { snapshot, loggedInDouble, type Reply, type ServerDouble } from '../support/server-double.js';

let h: PksHome;
let api: ServerDouble;
let close: () => Promise<void>;
const ID = '2501.00010v1';
const MD = `/api/papers/${ID}/markdown`;
const MD_STATUS = `${MD}/status`;
const accepted = (extra: Record<string, unknown> = {}): Reply => ({
  status: 202,
  body: snapshot('queued', {
    phase: 'fetching_pdf',
    detail: 'conversion in progress',
    operation: { status_url: MD_STATUS, next_poll_after_iso: '2026-05-01T12:00:05Z' },
    ...extra,
  }),
  headers: { 'operation-location': MD_STATUS, 'retry-after': '1' },
});
const markdown: Reply = {
  status: 200,
  body: '# Paper\n\nbody\n',
  headers: { 'content-type': 'text/markdown; charset=utf-8' },
};
const status = (state: string, extra: Record<string, unknown> = {}): Reply => ({
  status: 200,
  body: snapshot(state, extra),
});

beforeEach(async () => ({ h, api, close } = await loggedInDouble('pat_reader_123456')));
afterEach(() => close());

describe('paper get: first answer', () => {
  it('200 → the bytes on stdout, exit 0; the request carries the client headers and the token', async () => {
    api.on('GET', MD, markdown);
    const run = await pks(h, ['paper', 'get', 'markdown', ID]);
    expect(run).toMatchObject({ code: 0, stdout: '# Paper\n\nbody\n', stderr: '' });
    const req = api.calls('GET', MD)[0]!;
    expect(req.headers['user-agent']).toBe('pks/0.1.0');
    expect(req.headers['x-svc-client-version']).toBe('0.1.0');
    expect(req.headers['authorization']).toBe('Bearer pat_reader_123456');
  });

  it('-o FILE writes the file atomically (no partial file left)', async () => {
    const pdf = Buffer.from('%PDF-1.7\n%binary\xff\xfe\n');
    api.on('GET', `/api/papers/${ID}/pdf`, { status: 200, body: pdf, headers: { 'content-type': 'application/pdf' } });
    const out = path.join(h.cwd, 'paper.pdf');
    const run = await pks(h, ['paper', 'get', 'pdf', ID, '-o', out]);
    expect(run.code).toBe(0);
    expect(readFileSync(out)).toEqual(pdf);
    expect(readdirSync(h.cwd)).toEqual(['paper.pdf']);
    expect(run.stdout).toBe('');
  });

  it('the id is trimmed, a leading / dropped, and percent-encoded except / and :', async () => {
    const old = '/api/papers/quant-ph/9508027 v1:x%/markdown';
    api.on('GET', old, markdown);
    await pks(h, ['paper', 'get', 'markdown', '  /quant-ph/9508027 v1:x% ']);
    expect(api.calls('GET', old)[0]!.url).toBe('/api/papers/quant-ph/9508027%20v1:x%25/markdown');
  });

  it.each([
    [400, { detail: 'invalid id' }],
    [404, { detail: 'arXiv has no paper 2501.00010', requested_id: '2501.00010' }],
    [502, { state: 'failed', kind: 'fatal', detail: 'x' }],
    [503, { state: 'unavailable', detail: 'markdown not cached and server-side conversion is disabled: no tokens' }],
  ])('%i → rendered error (sorted JSON) on stderr, exit 1', async (code, body) => {
    api.on('GET', MD, { status: code, body });
    const run = await pks(h, ['paper', 'get', 'markdown', ID]);
    expect(run.code).toBe(1);
    const reason = { 400: 'Bad Request', 404: 'Not Found', 502: 'Bad Gateway', 503: 'Service Unavailable' }[code];
    const sorted = Object.fromEntries(Object.entries(body).sort(([a], [b]) => (a < b ? -1 : 1)));
    expect(run.stderr).toBe(`markdown fetch failed: HTTP ${code} ${reason}\n${JSON.stringify(sorted, null, 2)}\n`);
  });

  it('a non-JSON error body is shown as text', async () => {
    api.on('GET', MD, { status: 500, body: 'upstream exploded' });
    expect((await pks(h, ['paper', 'get', 'markdown', ID])).stderr).toBe(
      'markdown fetch failed: HTTP 500 Internal Server Error\nupstream exploded\n',
    );
  });

  it('202 + --no-wait → the snapshot on stdout (indent 2), exit 0; the eta line on stderr', async () => {
    api.on('GET', MD, accepted({ fetch: { bytes_received: 100, bytes_total: 500 } }));
    const run = await pks(h, ['paper', 'get', 'markdown', ID, '--no-wait']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ state: 'queued', operation: { status_url: MD_STATUS } });
    expect(run.stdout).toContain('\n  "preprint_id": ');
    expect(run.stderr).toBe('async operation started: queued fetching_pdf fetch=100/500B\n');
    expect(api.calls('GET', MD_STATUS)).toHaveLength(0);
    expect((await pks(h, ['paper', 'get', 'markdown', ID, '--no-wait', '--quiet-progress'])).stderr).toBe('');
  });

  it('-o together with --no-wait, an unknown kind or a bad --max-wait → exit 2', async () => {
    expect((await pks(h, ['paper', 'get', 'markdown', ID, '-o', 'x', '--no-wait'])).code).toBe(2);
    expect(existsSync(path.join(h.cwd, 'x'))).toBe(false);
    expect((await pks(h, ['paper', 'get', 'html', ID])).code).toBe(2);
    expect((await pks(h, ['paper', 'get', 'markdown', ID, '--max-wait', 'soon'])).code).toBe(2);
    expect(api.requests).toHaveLength(0);
  });
});

describe('paper get: the decision table while polling', () => {
  it('queued/running (even with pdf_ready) keep polling; cached + md_ready → GET again → bytes, exit 0', async () => {
    api.on('GET', MD, accepted(), markdown);
    api.on(
      'GET',
      MD_STATUS,
      status('running', { phase: 'fetching_pdf', fetch: { bytes_received: 1048576, bytes_total: null } }),
      status('running', {
        phase: 'converting_md',
        pdf_ready: true,
        convert: { stage: 'running', polled_count: 7 },
        queue: { running_count: 4, max_concurrent: 4 },
      }),
      status('queued', {
        phase: 'converting_md',
        pdf_ready: true,
        fetch: { bytes_received: 100, bytes_total: 500 },
        convert: { stage: 'submitting' },
        queue: { position: 3, ahead_of_me: 2, running_count: 4, max_concurrent: 4, eta_seconds: 240 },
      }),
      status('cached', { phase: 'ready', pdf_ready: true, md_ready: true, markdown_url: MD }),
    );
    const run = await pks(h, ['paper', 'get', 'markdown', ID]);
    expect(run).toMatchObject({ code: 0, stdout: '# Paper\n\nbody\n' });
    expect(run.stderr).toBe(
      [
        'async operation started: queued fetching_pdf',
        '... waiting: running fetching_pdf fetch=1048576B',
        '... waiting: running converting_md convert.running polls=7',
        '... waiting: queued converting_md fetch=100/500B convert.submitting queue=#3(2ahead,4/4slot) eta=240s',
        '',
      ].join('\n'),
    );
    expect(api.calls('GET', MD_STATUS)).toHaveLength(4);
  }, 20_000);

  it('polls at the Retry-After interval (at least 1 s)', async () => {
    api.on('GET', MD, { ...accepted(), headers: { 'retry-after': '0' } }, markdown);
    api.on('GET', MD_STATUS, status('running'), status('cached', { md_ready: true }));
    const run = await pks(h, ['paper', 'get', 'markdown', ID, '--quiet-progress']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const [first, second] = api.times('GET', MD_STATUS);
    const [trigger] = api.times('GET', MD);
    expect(first! - trigger!).toBeGreaterThanOrEqual(950);
    expect(second! - first!).toBeGreaterThanOrEqual(950);
  });

  it('cached, but the post-cache GET fails → "(post-cache GET)" error, exit 1', async () => {
    api.on('GET', MD, accepted(), { status: 404, body: { detail: 'gone' } });
    api.on('GET', MD_STATUS, status('cached', { md_ready: true }));
    const run = await pks(h, ['paper', 'get', 'markdown', ID, '--quiet-progress']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('markdown (post-cache GET): HTTP 404 Not Found\n{\n  "detail": "gone"\n}\n');
  });

  it.each([
    [
      'cooldown',
      'job ended in terminal state (cooldown):',
      { kind: 'daily_limit', retry_after_iso: '2026-05-02T00:01:00Z' },
    ],
    ['failed', 'job ended in terminal state (failed):', { kind: 'fatal', detail: 'arXiv has no paper' }],
    ['failed', 'job ended in terminal state (failed):', { kind: 'retryable', retry_after_iso: '2026-05-01T12:01:00Z' }],
    ['unavailable', 'server-side fetch/convert unavailable:', { detail: 'server-side conversion disabled' }],
  ])('%s → %s + the body (sorted keys), exit 1, no further polls', async (state, title, extra) => {
    api.on('GET', MD, accepted());
    api.on('GET', MD_STATUS, status(state, extra));
    const run = await pks(h, ['paper', 'get', 'markdown', ID, '--quiet-progress']);
    expect(run.code).toBe(1);
    const body = JSON.stringify(
      Object.fromEntries(Object.entries(snapshot(state, extra)).sort(([a], [b]) => (a < b ? -1 : 1))),
      null,
      2,
    );
    expect(run.stderr).toBe(`${title}\n${body}\n`);
    expect(api.calls('GET', MD_STATUS)).toHaveLength(1);
  });

  it('none → the trigger GET is issued again once, then polling goes on', async () => {
    api.on('GET', MD, accepted(), accepted(), markdown);
    api.on('GET', MD_STATUS, status('none'), status('none'), status('cached', { md_ready: true }));
    const run = await pks(h, ['paper', 'get', 'markdown', ID, '--quiet-progress']);
    expect(run.code).toBe(0);
    expect(api.calls('GET', MD)).toHaveLength(3); // first trigger, one re-trigger, the post-cache GET
    expect(api.calls('GET', MD_STATUS)).toHaveLength(3);
  }, 20_000);

  it('timeout → "timed out after <max_wait>s; last state=<state>", exit 1', async () => {
    api.on('GET', MD, accepted());
    api.on('GET', MD_STATUS, status('running', { phase: 'converting_md' }));
    const run = await pks(h, ['paper', 'get', 'markdown', ID, '--max-wait', '2', '--quiet-progress']);
    expect(run).toMatchObject({ code: 1, stderr: 'timed out after 2s; last state=running\n' });
  });

  it('a poll that cannot reach the server → "poll request failed: …", exit 1', async () => {
    api.on('GET', MD, accepted());
    const run = spawnPks(h, ['paper', 'get', 'markdown', ID, '--quiet-progress']);
    await vi.waitFor(() => expect(api.calls('GET', MD)).toHaveLength(1), { timeout: 10_000 });
    await api.close(); // gone before the first poll (Retry-After: 1)
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^poll request failed: .*ECONNREFUSED/);
  });

  it('the status URL falls back to Operation-Location, then to <resource>/status', async () => {
    const other = '/api/elsewhere/status';
    api.on(
      'GET',
      MD,
      { status: 202, body: snapshot('queued'), headers: { 'operation-location': other, 'retry-after': '1' } },
      markdown,
    );
    api.on('GET', other, status('cached', { md_ready: true }));
    expect((await pks(h, ['paper', 'get', 'markdown', ID])).code).toBe(0);
    api.on('GET', MD, { status: 202, body: snapshot('queued'), headers: { 'retry-after': '1' } }, markdown);
    api.on('GET', MD_STATUS, status('cached', { md_ready: true }));
    expect((await pks(h, ['paper', 'get', 'markdown', ID])).code).toBe(0);
    expect(api.calls('GET', MD_STATUS)).toHaveLength(1);
  });
});

describe('notes on defaults the server applied', () => {
  const headers = {
    'x-svc-requested-id': '9508027',
    'x-svc-resolved-id': 'quant-ph/9508027v2',
    'x-svc-defaults-applied':
      'category=quant-ph (no category prefix; server default for bare old-style numbers); version=v2 (no version specified; latest published version used)',
  };
  it('prints the note (once per text) unless --quiet-notes', async () => {
    const resolved = '/api/papers/9508027/markdown';
    api.on('GET', resolved, { ...markdown, headers: { ...markdown.headers, ...headers } });
    const run = await pks(h, ['paper', 'get', 'markdown', '9508027']);
    expect(run.stderr).toBe(
      'Note (server applied defaults): 9508027 -> quant-ph/9508027v2; category=quant-ph (no category prefix; server default for bare old-style numbers); version=v2 (no version specified; latest published version used)\n',
    );
    expect((await pks(h, ['paper', 'get', 'markdown', '9508027', '--quiet-notes'])).stderr).toBe('');
  });
});

describe('paper status', () => {
  it('2xx → the snapshot (indent 2) on stdout, exit 0; --kind pdf reads the pdf status', async () => {
    api.on('GET', MD_STATUS, status('none', { detail: 'not cached' }));
    const run = await pks(h, ['paper', 'status', ID]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${JSON.stringify(snapshot('none', { detail: 'not cached' }), null, 2)}\n`);
    api.on('GET', `/api/papers/${ID}/pdf/status`, status('cached', { pdf_ready: true }));
    expect(JSON.parse((await pks(h, ['paper', 'status', ID, '--kind', 'pdf'])).stdout).state).toBe('cached');
  });

  it('404 and other errors → rendered error, exit 1; a bad --kind → exit 2', async () => {
    api.on('GET', MD_STATUS, { status: 404, body: { detail: 'arXiv has no paper 2501.00010' } });
    expect(await pks(h, ['paper', 'status', ID])).toMatchObject({
      code: 1,
      stderr: 'markdown status failed: HTTP 404 Not Found\n{\n  "detail": "arXiv has no paper 2501.00010"\n}\n',
    });
    expect((await pks(h, ['paper', 'status', ID, '--kind', 'html'])).code).toBe(2);
  });

  it('a server that cannot be reached → Request failed, exit 1', async () => {
    await pks(h, ['config', 'set', 'server_url', 'http://127.0.0.1:9']);
    const run = await pks(h, ['paper', 'status', ID]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Request failed: .*ECONNREFUSED/);
  });
});
