/**
 * `pks paper get | status` (CONTRACT §16.6) against a real pksd with paper access on (§11) and the arXiv, OpenAlex
 * and MinerU doubles: every row of the decision table the real routes reach — cached, queued → running → cached,
 * failed (fatal, arXiv 404), failed (retryable), cooldown (daily limit), timeout — plus the first-answer errors
 * (404/503 of a failed or disabled job) and the defaults notes. The rows a real server cannot be driven into on
 * demand stay on the scripted double in paper.test.ts: `none` while polling (a job leaves the map only when its
 * one-minute cooldown ends), `unavailable` while polling (conversion is switched off only at start), a post-cache
 * GET that fails, an unreachable status URL and the status-URL fallbacks (the real server always sends
 * `operation.status_url`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { defaultMarkdown } from '../../support/upstreams/mineru.js';
import { accessEnv, type Doubles } from '../../server/access/support/harness.js';
import { addPaper } from '../../server/access/support/papers.js';
import { startAccessServer } from '../support/access-server.js';
import { loggedInHome, pks, spawnPks, waitForOutput, type PksHome } from '../support/pks.js';

const PAT = 'cli-paper-access-system-pat-0123456789';

const sorted = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sorted)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, v]) => [k, sorted(v)]),
        )
      : value;

/** The rendered body of a terminal state: a title line, then the JSON (indent 2, keys sorted at every level). */
function terminal(stderr: string, title: string): Record<string, unknown> {
  expect(stderr.startsWith(`${title}\n`), stderr).toBe(true);
  const text = stderr.slice(title.length + 1);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(text).toBe(`${JSON.stringify(sorted(body), null, 2)}\n`);
  return body;
}

let h: PksHome;
afterEach(() => h.cleanup());

describe('paper access on, parser tokens set', () => {
  let d: Doubles;
  let srv: TestServer;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => ({ d, srv, close } = await startAccessServer(PAT)));
  afterAll(() => close?.());
  beforeEach(async () => (h = await loggedInHome(srv.url, PAT)));
  afterEach(() => {
    d.mineru.frozen = false;
    d.arxiv.pdfGate.open();
  });

  it('queued → running (converting) → cached: polls, then GETs the markdown; later a cache hit (200 at once)', async () => {
    const id = '2501.00020v1';
    addPaper(d.arxiv, '2501.00020');
    d.mineru.frozen = true;
    const run = spawnPks(h, ['paper', 'get', 'markdown', id]);
    await waitForOutput(run, (o) => o.stderr.includes('... waiting: running converting_md'), 30_000);
    d.mineru.frozen = false;
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe(defaultMarkdown(id));
    const lines = done.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/^async operation started: (queued|running) fetching_pdf/);
    expect(lines.slice(1).every((l) => l.startsWith('... waiting: '))).toBe(true);
    expect(lines.at(-1)).toMatch(/^\.\.\. waiting: running converting_md fetch=\d+\/\d+B convert\.pending polls=\d+$/);

    const out = path.join(h.cwd, 'paper.md');
    expect(await pks(h, ['paper', 'get', 'markdown', id, '-o', out])).toMatchObject({
      code: 0,
      stderr: `Wrote ${Buffer.byteLength(defaultMarkdown(id))} bytes to ${out}\n`,
    });
    expect(readFileSync(out, 'utf8')).toBe(defaultMarkdown(id));
    const status = await pks(h, ['paper', 'status', id]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      preprint_id: id,
      state: 'cached',
      phase: 'ready',
      md_ready: true,
      markdown_url: `/api/papers/${id}/markdown`,
    });
  }, 60_000);

  it('a PDF by a bare old-style number: the defaults note, then the bytes once fetched', async () => {
    const pdfs = addPaper(d.arxiv, 'quant-ph/9508027', 2);
    const out = path.join(h.cwd, 'paper.pdf');
    const run = await pks(h, ['paper', 'get', 'pdf', '9508027', '-o', out, '--quiet-progress']);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(out)).toEqual(pdfs.get(2));
    expect(run.stderr).toBe(
      'Note (server applied defaults): 9508027 -> quant-ph/9508027v2; category=quant-ph (no category prefix; server default for bare old-style numbers); version=v2 (no version specified; latest published version used)\n',
    );
    const quiet = await pks(h, ['paper', 'status', '9508027', '--kind', 'pdf', '--quiet-notes']);
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(quiet.stdout)).toMatchObject({
      preprint_id: 'quant-ph/9508027v2',
      state: 'cached',
      requested_id: '9508027',
      resolved_id: 'quant-ph/9508027v2',
    });
  }, 60_000);

  it('failed (fatal): arXiv has no such PDF → "job ended in terminal state (failed)", exit 1; then 404 at once', async () => {
    const id = '2501.99999v1';
    d.arxiv.pdfGate.close();
    const run = spawnPks(h, ['paper', 'get', 'markdown', id]);
    await waitForOutput(run, (o) => o.stderr.includes('async operation started: '));
    d.arxiv.pdfGate.open();
    const done = await run.done;
    expect(done.code).toBe(1);
    const title = 'job ended in terminal state (failed):';
    const body = terminal(done.stderr.slice(done.stderr.indexOf(title)), title);
    expect(body).toMatchObject({
      preprint_id: id,
      state: 'failed',
      phase: 'error_fetching',
      kind: 'fatal',
      pdf_ready: false,
      md_ready: false,
      detail: 'arXiv has no paper 2501.99999v1 (HTTP 404)',
    });

    const again = await pks(h, ['paper', 'get', 'markdown', id]);
    expect(again.code).toBe(1);
    expect(terminal(again.stderr, 'markdown fetch failed: HTTP 404 Not Found')).toMatchObject({
      state: 'failed',
      kind: 'fatal',
    });
  }, 60_000);

  it('failed (retryable): arXiv keeps answering 503 → the failed snapshot with retry_after_iso, exit 1', async () => {
    const id = '2501.00023v1';
    addPaper(d.arxiv, '2501.00023');
    const busy = { status: 503, headers: { 'retry-after': '0' }, body: 'busy' };
    d.arxiv.answerNext('pdf', busy, busy, busy, busy);
    d.arxiv.pdfGate.close();
    const run = spawnPks(h, ['paper', 'get', 'pdf', id, '-o', path.join(h.cwd, 'x.pdf')]);
    await waitForOutput(run, (o) => o.stderr.includes('async operation started: '));
    d.arxiv.pdfGate.open();
    const done = await run.done;
    expect(done.code).toBe(1);
    const title = 'job ended in terminal state (failed):';
    const body = terminal(done.stderr.slice(done.stderr.indexOf(title)), title);
    expect(body).toMatchObject({ preprint_id: id, state: 'failed', phase: 'error_fetching', kind: 'retryable' });
    expect(body['retry_after_iso']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(d.arxiv.requestsTo('pdf').filter((r) => r.url === `/pdf/${id}`)).toHaveLength(4);
    const again = await pks(h, ['paper', 'get', 'pdf', id, '--no-wait']);
    expect(again.code).toBe(1);
    expect(terminal(again.stderr, 'pdf fetch failed: HTTP 502 Bad Gateway')).toMatchObject({ kind: 'retryable' });
  }, 60_000);

  it('timeout: the conversion does not finish within --max-wait → "timed out after 2s; last state=running"', async () => {
    addPaper(d.arxiv, '2501.00024');
    d.mineru.frozen = true;
    const run = await pks(h, ['paper', 'get', 'markdown', '2501.00024v1', '--max-wait', '2', '--quiet-progress']);
    expect(run).toMatchObject({ code: 1, stdout: '', stderr: 'timed out after 2s; last state=running\n' });
  }, 60_000);

  it('--no-wait → the 202 snapshot on stdout, exit 0', async () => {
    addPaper(d.arxiv, '2501.00025');
    d.mineru.frozen = true;
    const run = await pks(h, ['paper', 'get', 'markdown', '2501.00025v1', '--no-wait']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      preprint_id: '2501.00025v1',
      detail: 'conversion in progress',
      operation: { status_url: '/api/papers/2501.00025v1/markdown/status' },
    });
    expect(run.stderr).toMatch(/^async operation started: (queued|running) /);
  });
});

describe('paper access on, every parser token at its daily limit', () => {
  let d: Doubles;
  let srv: TestServer;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ d, srv, close } = await startAccessServer(PAT));
    for (const token of d.mineru.tokens) d.mineru.quota.set(token, 0);
  });
  afterAll(() => close?.());
  beforeEach(async () => (h = await loggedInHome(srv.url, PAT)));

  it('cooldown (daily_limit) → "job ended in terminal state (cooldown)" with retry_after_iso, exit 1; then 503', async () => {
    const id = '2501.00026v1';
    addPaper(d.arxiv, '2501.00026');
    const run = await pks(h, ['paper', 'get', 'markdown', id]);
    expect(run.code).toBe(1);
    const title = 'job ended in terminal state (cooldown):';
    expect(run.stderr).toMatch(/^async operation started: (queued|running) /);
    const body = terminal(run.stderr.slice(run.stderr.indexOf(title)), title);
    expect(body).toMatchObject({ preprint_id: id, state: 'cooldown', kind: 'daily_limit', pdf_ready: true });
    expect(body['detail']).toMatch(
      /^server quota exhausted: all 2 parser API tokens have reached today's daily limit; service resumes at /,
    );
    expect(body['retry_after_iso']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(d.mineru.creations.map((c) => c.accepted)).toEqual([false, false]);

    const again = await pks(h, ['paper', 'get', 'markdown', id]);
    expect(again.code).toBe(1);
    expect(terminal(again.stderr, 'markdown fetch failed: HTTP 503 Service Unavailable')).toMatchObject({
      state: 'cooldown',
      kind: 'daily_limit',
    });
  }, 60_000);
});

describe('paper access on, conversion disabled (no parser tokens)', () => {
  let d: Doubles;
  let srv: TestServer;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ d, srv, close } = await startAccessServer(PAT, (doubles) => ({
      ...accessEnv(doubles, []),
      PARSER_API_TOKENS: '',
    })));
  });
  afterAll(() => close?.());
  beforeEach(async () => (h = await loggedInHome(srv.url, PAT)));

  it('markdown → 503 unavailable at once (rendered, exit 1); status says unavailable (exit 0)', async () => {
    addPaper(d.arxiv, '2501.00027');
    const run = await pks(h, ['paper', 'get', 'markdown', '2501.00027v1']);
    expect(run.code).toBe(1);
    expect(terminal(run.stderr, 'markdown fetch failed: HTTP 503 Service Unavailable')).toMatchObject({
      state: 'unavailable',
      detail: 'markdown not cached and server-side conversion is disabled: PARSER_API_TOKENS unset; cache-only mode',
    });
    const status = await pks(h, ['paper', 'status', '2501.00027v1']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      state: 'unavailable',
      detail: 'server-side conversion disabled: PARSER_API_TOKENS unset; cache-only mode',
    });
    expect(d.arxiv.requestsTo('pdf')).toHaveLength(0);
  });
});
