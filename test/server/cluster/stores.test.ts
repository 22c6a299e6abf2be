/**
 * Ingest tasks and parser claims across two `pksd serve` instances on one PostgreSQL, no graph (CONTRACT §5.1,
 * §10.6, §21, issue 24): a task submitted on A is answered — status, list, result — by B; a claim taken through A is
 * refused (409) and released through B; an instance starting never cancels the other's running task, and an
 * instance restarting after a crash cancels what it left unfinished at once. Each fails on a single-process design
 * (tasks and claims in each instance's own files): B does not know A's task, and B hands out a second claim.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../support/cluster.js';
import { addPaper } from '../access/support/papers.js';

let c: Cluster;
let pat: string;
beforeAll(async () => {
  c = await startCluster({ upstreams: true });
  pat = await c.superuserPat();
});
afterAll(() => c?.stop());

const A = 0;
const B = 1;

const call = (index: number, pathname: string, init: RequestInit = {}): Promise<Response> =>
  fetch(c.instances[index]!.url + pathname, {
    ...init,
    headers: { Authorization: `Bearer ${pat}`, 'Content-Type': 'application/json', ...init.headers },
  });

type Task = { task_id: string; status: string; message: string; steps: Record<string, Record<string, unknown>> };

async function submit(index: number, body: Record<string, unknown>): Promise<string> {
  const res = await call(index, '/api/ingest/paper', { method: 'POST', body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { task_id: string }).task_id;
}

async function taskOn(index: number, id: string): Promise<Task> {
  const res = await call(index, `/api/ingest/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Task;
}

/** Polls instance `index` until the task's status is one of `statuses`; returns the task. */
async function taskReaches(index: number, id: string, statuses: readonly string[]): Promise<Task> {
  let last: Task | undefined;
  await expect
    .poll(async () => (last = await taskOn(index, id)).status, { timeout: 60_000, interval: 50 })
    .toSatisfy((s: string) => statuses.includes(s));
  return last!;
}

describe('cluster: ingest tasks and parser claims in PostgreSQL', () => {
  it("a task submitted on A is answered by B's status and list routes, through to its result", async () => {
    addPaper(c.upstreams!.arxiv, '2509.00001');
    const id = await submit(A, { preprint_id: '2509.00001v1', stop_after: 'fetch' });
    const done = await taskReaches(B, id, ['succeeded', 'partial', 'failed', 'cancelled']);
    expect(done).toMatchObject({
      task_id: id,
      status: 'succeeded',
      steps: { fetch: { status: 'succeeded', result: { pdf_path: 'pdf/2509/2509.00001v1.pdf', reused: false } } },
    });
    expect(await taskOn(A, id)).toEqual(done);
    const list = (await (await call(B, '/api/ingests?limit=500')).json()) as { total: number; tasks: Task[] };
    expect(list.tasks.find((t) => t.task_id === id)).toEqual(done);
    expect((await call(B, '/api/ingest/deadbeef')).status).toBe(404);
    // B continues A's task: the source is read from the shared table, the continuation is B's and A answers it.
    const none = await call(B, `/api/ingest/${id}/continue`, { method: 'POST', body: '{}' });
    expect([none.status, await none.json()]).toEqual([400, { detail: `no ingest stages remaining for task ${id}` }]);
    const cont = await call(B, `/api/ingest/${id}/continue`, { method: 'POST', body: '{"stages":["fetch"]}' });
    expect(cont.status).toBe(202);
    const next = ((await cont.json()) as { task_id: string }).task_id;
    expect(await taskReaches(A, next, ['succeeded'])).toMatchObject({
      options: { source_task_id: id },
      steps: { fetch: { status: 'succeeded', message: 'PDF already stored; reused' } },
    });
  });

  it('a claim taken through A is refused through B (409), and released through B (§5.2, §5.3)', async () => {
    addPaper(c.upstreams!.arxiv, '2509.00002');
    await taskReaches(B, await submit(A, { preprint_id: '2509.00002v1', stop_after: 'fetch' }), ['succeeded']);
    const claimed = await call(A, '/api/papers/2509.00002v1/parser-claim', { method: 'POST' });
    expect(claimed.status).toBe(201);
    const claim = (await claimed.json()) as { claim_id: string; expires_at: string; requester: string };
    expect(claim.requester).toBe('root');
    const refused = await call(B, '/api/papers/2509.00002v1/parser-claim', { method: 'POST' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      detail: '2509.00002v1 is already claimed',
      claim_id: claim.claim_id,
      claim_expires_at: claim.expires_at,
      claim_requester: 'root',
    });
    const wrong = await call(B, `/api/papers/2509.00002v1/parser-claim/${'f'.repeat(32)}`, { method: 'DELETE' });
    expect([wrong.status, await wrong.json()]).toEqual([409, { detail: 'claim_id does not match the active claim' }]);
    const released = await call(B, `/api/papers/2509.00002v1/parser-claim/${claim.claim_id}`, { method: 'DELETE' });
    expect(released.status).toBe(204);
    const again = await call(A, '/api/papers/2509.00002v1/parser-claim', { method: 'POST' });
    expect(again.status).toBe(201);
  });

  it("B restarting leaves A's running task alone; A restarting after a crash cancels it at once", async () => {
    const arxiv = c.upstreams!.arxiv;
    addPaper(arxiv, '2509.00003');
    arxiv.pdfGate.close();
    try {
      const id = await submit(A, { preprint_id: '2509.00003v1', stop_after: 'fetch' });
      await expect.poll(() => arxiv.pdfGate.held, { timeout: 60_000 }).toBeGreaterThan(0);
      await c.restart(B);
      expect((await taskOn(B, id)).status).toBe('running');
      await c.kill9(A);
      // A's lease still runs: B keeps answering the task as running.
      expect((await taskOn(B, id)).status).toBe('running');
      await c.restart(A);
      expect(await taskOn(B, id)).toMatchObject({
        status: 'cancelled',
        message: 'server restarted before the task finished; use continue',
        steps: { fetch: { status: 'failed', error: 'server stopped while the step ran' } },
      });
    } finally {
      arxiv.pdfGate.open();
    }
  });
});
