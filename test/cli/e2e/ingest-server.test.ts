/**
 * `pks ingest …` (CONTRACT §16.3 ingest rows) against a real pksd (§10) with paper access on and the arXiv, OpenAlex
 * and MinerU doubles: submit and poll to `succeeded`, `failed` and `partial`, `--no-poll`, `--timeout`,
 * `continue` (remaining stages, a running source, nothing left) and `status`. A `cancelled` task needs a server
 * restart in the middle of a task, so that row stays on the scripted double in ingest.test.ts.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestServer } from '../../support/server.js';
import { defaultMarkdown } from '../../support/upstreams/mineru.js';
import type { Doubles } from '../../server/access/support/harness.js';
import { addPaper } from '../../server/access/support/papers.js';
import { startAccessServer } from '../support/access-server.js';
import { loggedInHome, pks, type PksHome } from '../support/pks.js';

const PAT = 'cli-ingest-system-pat-0123456789';
const POLL = ['--poll-interval', '0.1'];

let d: Doubles;
let srv: TestServer;
let close: (() => Promise<void>) | undefined;
let h: PksHome;
beforeAll(async () => ({ d, srv, close } = await startAccessServer(PAT)));
afterAll(() => close?.());
beforeEach(async () => (h = await loggedInHome(srv.url, PAT)));
afterEach(() => {
  d.mineru.frozen = false;
  h.cleanup();
});

interface Task {
  task_id: string;
  status: string;
  preprint_id: string;
  message: string;
  options: Record<string, unknown>;
  steps: Record<
    string,
    { status: string; message: string; error: string | null; result: Record<string, unknown> | null }
  >;
  [field: string]: unknown;
}
const taskOf = (stdout: string) => JSON.parse(stdout) as Task;

/** Polls `GET /api/ingest/<id>` until the task is no longer queued or running. */
async function settled(taskId: string): Promise<Task> {
  for (let i = 0; i < 600; i++) {
    const res = await srv.fetch(`/api/ingest/${taskId}`, { headers: { Authorization: `Bearer ${PAT}` } });
    const task = (await res.json()) as Task;
    if (task.status !== 'queued' && task.status !== 'running') return task;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`ingest task ${taskId} did not finish`);
}

describe('ingest <id> → continue → status', () => {
  it('fetch only (a default applied), then continue runs parse; status shows the task; exit 0 each', async () => {
    addPaper(d.arxiv, '2501.00030');
    const first = await pks(h, ['ingest', '2501.00030', '--stop-after', 'fetch', ...POLL]);
    expect(first.code, first.stderr).toBe(0);
    const fetched = taskOf(first.stdout);
    expect(fetched).toMatchObject({
      status: 'succeeded',
      preprint_id: '2501.00030v1',
      requested_id: '2501.00030',
      defaults_applied: ['version=v1 (no version specified; latest published version used)'],
      options: { parser: 'pdfparser', stages: ['fetch'], stop_after: 'fetch', source_task_id: null },
    });
    expect(fetched.task_id).toMatch(/^[0-9a-f]{8}$/);
    expect(fetched.steps['fetch']).toMatchObject({ status: 'succeeded', message: 'PDF stored', error: null });
    expect(fetched.steps['fetch']!.result).toMatchObject({ pdf_path: 'pdf/2501/2501.00030v1.pdf', reused: false });
    expect(fetched.steps['parse']).toMatchObject({ status: 'skipped', message: 'not selected' });
    const lines = first.stderr.split('\n').filter(Boolean);
    expect(lines.at(-1)).toMatch(new RegExp(`^ingest ${fetched.task_id}: succeeded — `));

    // The continuation inherits stop_after=fetch: nothing is left until it is widened.
    expect(await pks(h, ['ingest', 'continue', fetched.task_id])).toMatchObject({
      code: 1,
      stderr: `Request failed: HTTP 400 Bad Request: no ingest stages remaining for task ${fetched.task_id}\n`,
    });
    const cont = await pks(h, ['ingest', 'continue', fetched.task_id, '--stop-after', 'parse', ...POLL]);
    expect(cont.code, cont.stderr).toBe(0);
    const parsed = taskOf(cont.stdout);
    expect(parsed.task_id).not.toBe(fetched.task_id);
    expect(parsed).toMatchObject({
      status: 'succeeded',
      preprint_id: '2501.00030v1',
      options: { stages: ['parse'], stop_after: 'parse', source_task_id: fetched.task_id },
    });
    expect(parsed.steps['parse']).toMatchObject({ status: 'succeeded', message: 'markdown stored' });
    expect(parsed.steps['parse']!.result).toMatchObject({ parser: 'pdfparser', reused: false, image_count: 1 });
    const md = await srv.fetch('/api/papers/2501.00030v1/markdown', { headers: { Authorization: `Bearer ${PAT}` } });
    expect(await md.text()).toBe(defaultMarkdown('2501.00030v1'));

    const status = await pks(h, ['ingest', 'status', fetched.task_id]);
    expect(status.code).toBe(0);
    expect(taskOf(status.stdout)).toEqual(fetched);
  }, 60_000);

  it('a second ingest of a stored paper reuses both (succeeded, exit 0)', async () => {
    addPaper(d.arxiv, '2501.00031');
    expect((await pks(h, ['ingest', '2501.00031v1', ...POLL])).code).toBe(0);
    const again = await pks(h, ['ingest', '2501.00031v1', ...POLL, '--quiet-progress']);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    const task = taskOf(again.stdout);
    expect(task.steps['fetch']).toMatchObject({ status: 'succeeded', message: 'PDF already stored; reused' });
    expect(task.steps['parse']).toMatchObject({ status: 'succeeded', message: 'markdown already stored; reused' });
    expect(task).not.toHaveProperty('requested_id');
  }, 60_000);
});

describe('terminal failures → the task JSON, exit 1', () => {
  it('failed: arXiv has no such PDF (the parse step is skipped)', async () => {
    const run = await pks(h, ['ingest', '2501.99998v1', ...POLL]);
    expect(run.code).toBe(1);
    const task = taskOf(run.stdout);
    expect(task.status).toBe('failed');
    expect(task.steps['fetch']).toMatchObject({
      status: 'failed',
      error: 'arXiv has no paper 2501.99998v1 (HTTP 404)',
    });
    expect(task.steps['parse']).toMatchObject({ status: 'skipped', error: 'skipped because fetch failed' });
    expect(run.stderr.split('\n').filter(Boolean).at(-1)).toMatch(new RegExp(`^ingest ${task.task_id}: failed — `));
  }, 60_000);

  it('failed: an id arXiv does not know (resolution fails; the steps stay pending)', async () => {
    const run = await pks(h, ['ingest', '2501.99997', ...POLL, '--quiet-progress']);
    expect(run).toMatchObject({ code: 1, stderr: '' });
    const task = taskOf(run.stdout);
    expect(task).toMatchObject({
      status: 'failed',
      message: 'could not resolve 2501.99997: arXiv has no paper 2501.99997',
    });
    expect([task.steps['fetch']!.status, task.steps['parse']!.status]).toEqual(['pending', 'pending']);
  }, 60_000);

  it('partial: the PDF is stored, the parser fails fatally', async () => {
    addPaper(d.arxiv, '2501.00032');
    d.mineru.scripts.set('2501.00032v1', { states: ['pending', 'failed'], errMsg: 'number of pages exceeds 600' });
    const run = await pks(h, ['ingest', '2501.00032v1', ...POLL, '--quiet-progress']);
    expect(run.code).toBe(1);
    const task = taskOf(run.stdout);
    expect(task.status).toBe('partial');
    expect(task.steps['fetch']!.status).toBe('succeeded');
    expect(task.steps['parse']!.status).toBe('failed');
    expect(task.steps['parse']!.error).toContain('number of pages exceeds 600');
  }, 60_000);
});

describe('while a task runs', () => {
  it('--no-poll → the 202 answer, exit 0; continue of the running task → 409, exit 1; --timeout → exit 1', async () => {
    addPaper(d.arxiv, '2501.00033');
    d.mineru.frozen = true;
    const submitted = await pks(h, ['ingest', '2501.00033v1', '--no-poll']);
    expect(submitted.code).toBe(0);
    const accepted = JSON.parse(submitted.stdout) as { task_id: string };
    expect(accepted).toEqual({
      task_id: accepted.task_id,
      status: 'queued',
      message: `ingest queued; poll GET /api/ingest/${accepted.task_id}`,
      status_url: `/api/ingest/${accepted.task_id}`,
    });

    expect(await pks(h, ['ingest', 'continue', accepted.task_id])).toMatchObject({
      code: 1,
      stderr: `Request failed: HTTP 409 Conflict: task ${accepted.task_id} is still running\n`,
    });

    const waited = await pks(h, [
      'ingest',
      '2501.00033v1',
      '--stages',
      'parse',
      '--timeout',
      '1',
      ...POLL,
      '--quiet-progress',
    ]);
    expect(waited.code).toBe(1);
    const task = taskOf(waited.stdout);
    expect(waited.stderr).toBe(`Timed out waiting for ingest task ${task.task_id}\n`);
    expect(['queued', 'running']).toContain(task.status);

    d.mineru.frozen = false;
    expect((await settled(accepted.task_id)).status).toBe('succeeded');
    expect((await settled(task.task_id)).status).toBe('succeeded');
  }, 60_000);

  it('status of an unknown task → 404 rendered, exit 1', async () => {
    expect(await pks(h, ['ingest', 'status', '0000000a'])).toMatchObject({
      code: 1,
      stderr: 'ingest status failed: HTTP 404 Not Found\n{\n  "detail": "ingest task not found"\n}\n',
    });
  });
});
