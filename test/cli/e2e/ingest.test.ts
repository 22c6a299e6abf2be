/** `pks ingest …` (CONTRACT §16.3 ingest rows) against a scripted double of the ingest routes (§10). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pks, type PksHome } from '../support/pks.js';
import { loggedInDouble, type Reply, type ServerDouble } from '../support/server-double.js';

let h: PksHome;
let api: ServerDouble;
let close: () => Promise<void>;
beforeEach(async () => ({ h, api, close } = await loggedInDouble('pat_writer_123456')));
afterEach(() => close());

const accepted = (taskId: string, message = `ingest queued; poll GET /api/ingest/${taskId}`): Reply => ({
  status: 202,
  body: { task_id: taskId, status: 'queued', message, status_url: `/api/ingest/${taskId}` },
  headers: { location: `/api/ingest/${taskId}` },
});
const task = (taskId: string, status: string, extra: Record<string, unknown> = {}): Reply => ({
  status: 200,
  body: {
    task_id: taskId,
    preprint_id: '2501.00010v2',
    status,
    message: `${status} message`,
    steps: {
      fetch: { status: 'succeeded', progress: { phase: 'complete', bytes_downloaded: 812345, bytes_total: 812345 } },
      parse: {
        status: status === 'succeeded' ? 'succeeded' : 'running',
        progress: { extracted_pages: 3, total_pages: 12 },
      },
    },
    ...extra,
  },
});
const bodyOf = (method: string, path: string, i = 0) => JSON.parse(api.calls(method, path)[i]!.body.toString());

describe('ingest <id>', () => {
  it('sends only the fields given (flags as true); --no-poll prints the 202 answer, exit 0', async () => {
    api.on('POST', '/api/ingest/paper', accepted('3f9a1c2b'));
    const run = await pks(h, ['ingest', '2501.00010', '--no-poll']);
    expect(run).toMatchObject({ code: 0 });
    expect(JSON.parse(run.stdout)).toEqual({
      task_id: '3f9a1c2b',
      status: 'queued',
      message: 'ingest queued; poll GET /api/ingest/3f9a1c2b',
      status_url: '/api/ingest/3f9a1c2b',
    });
    expect(bodyOf('POST', '/api/ingest/paper')).toEqual({ preprint_id: '2501.00010' });
    const req = api.calls('POST', '/api/ingest/paper')[0]!;
    expect(req.headers['authorization']).toBe('Bearer pat_writer_123456');
    expect(req.headers['content-type']).toBe('application/json');
    await pks(h, [
      'ingest',
      '2501.00010',
      '--no-poll',
      '--parser',
      'pdfparser',
      '--stop-after',
      'fetch',
      '--stages',
      'parse, fetch',
      '--force-fetch',
      '--force-parse',
      '--no-cache',
    ]);
    expect(bodyOf('POST', '/api/ingest/paper', 1)).toEqual({
      preprint_id: '2501.00010',
      parser: 'pdfparser',
      stop_after: 'fetch',
      stages: ['parse', 'fetch'],
      force_fetch: true,
      force_parse: true,
      no_cache: true,
    });
  });

  it.each([
    ['succeeded', 0],
    ['failed', 1],
    ['partial', 1],
    ['cancelled', 1],
  ])('polls until %s → the task JSON on stdout, exit %i', async (terminal, code) => {
    api.on('POST', '/api/ingest/paper', accepted('aa11bb22'));
    api.on(
      'GET',
      '/api/ingest/aa11bb22',
      task('aa11bb22', 'queued'),
      task('aa11bb22', 'running'),
      task('aa11bb22', terminal),
    );
    const run = await pks(h, ['ingest', '2501.00010', '--poll-interval', '0.2']);
    expect(run.code).toBe(code);
    expect(JSON.parse(run.stdout)).toMatchObject({ task_id: 'aa11bb22', status: terminal });
    expect(api.calls('GET', '/api/ingest/aa11bb22')).toHaveLength(3);
    // Not a terminal: one plain line per change of state.
    expect(run.stderr.split('\n').filter(Boolean)).toEqual([
      'ingest aa11bb22: queued — queued message (fetch succeeded 812345/812345B; parse running 3/12 pages)',
      'ingest aa11bb22: running — running message (fetch succeeded 812345/812345B; parse running 3/12 pages)',
      expect.stringMatching(new RegExp(`^ingest aa11bb22: ${terminal} — `)),
    ]);
  });

  it('--timeout → "Timed out waiting for ingest task <id>" and the last JSON, exit 1', async () => {
    api.on('POST', '/api/ingest/paper', accepted('cc33dd44'));
    api.on('GET', '/api/ingest/cc33dd44', task('cc33dd44', 'running'));
    const run = await pks(h, [
      'ingest',
      '2501.00010',
      '--poll-interval',
      '0.5',
      '--timeout',
      '1.2',
      '--quiet-progress',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Timed out waiting for ingest task cc33dd44\n');
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'running' });
  });

  it('a rejected request → Request failed with the detail, exit 1', async () => {
    api.on('POST', '/api/ingest/paper', {
      status: 400,
      body: { detail: "unsupported parser 'x'; only 'pdfparser' is available" },
    });
    expect(await pks(h, ['ingest', '2501.00010', '--parser', 'x'])).toMatchObject({
      code: 1,
      stderr: "Request failed: HTTP 400 Bad Request: unsupported parser 'x'; only 'pdfparser' is available\n",
    });
  });

  it.each([
    ['--stop-after', 'index'],
    ['--stages', 'fetch,index'],
    ['--poll-interval', '0'],
    ['--timeout', 'never'],
  ])('%s %s → exit 2 before any request', async (flag, value) => {
    const run = await pks(h, ['ingest', '2501.00010', flag, value]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Invalid input: /);
    expect(api.requests).toHaveLength(0);
  });
});

describe('ingest continue | status', () => {
  it('continue POSTs the given fields to …/continue and follows the new task', async () => {
    api.on('POST', '/api/ingest/aa11bb22/continue', accepted('ee55ff66', 'ingest continuation queued'));
    api.on('GET', '/api/ingest/ee55ff66', task('ee55ff66', 'succeeded'));
    const run = await pks(h, ['ingest', 'continue', 'aa11bb22', '--force-parse', '--poll-interval', '0.2']);
    expect(run.code).toBe(0);
    expect(bodyOf('POST', '/api/ingest/aa11bb22/continue')).toEqual({ force_parse: true });
    expect(JSON.parse(run.stdout).task_id).toBe('ee55ff66');
    expect((await pks(h, ['ingest', 'continue', 'aa11bb22', '--no-poll'])).code).toBe(0);
    expect(bodyOf('POST', '/api/ingest/aa11bb22/continue', 1)).toEqual({});
  });

  it('continue of a running task → Request failed (409), exit 1', async () => {
    api.on('POST', '/api/ingest/aa11bb22/continue', {
      status: 409,
      body: { detail: 'task aa11bb22 is still running' },
    });
    expect(await pks(h, ['ingest', 'continue', 'aa11bb22'])).toMatchObject({
      code: 1,
      stderr: 'Request failed: HTTP 409 Conflict: task aa11bb22 is still running\n',
    });
  });

  it('status: one GET, the JSON, exit 0; unknown task (404) → exit 1', async () => {
    api.on('GET', '/api/ingest/aa11bb22', task('aa11bb22', 'running'));
    const run = await pks(h, ['ingest', 'status', 'aa11bb22']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ task_id: 'aa11bb22', status: 'running' });
    expect(api.calls('GET', '/api/ingest/aa11bb22')).toHaveLength(1);
    api.on('GET', '/api/ingest/00000000', { status: 404, body: { detail: 'ingest task not found' } });
    expect(await pks(h, ['ingest', 'status', '00000000'])).toMatchObject({
      code: 1,
      stderr: 'ingest status failed: HTTP 404 Not Found\n{\n  "detail": "ingest task not found"\n}\n',
    });
  });
});
