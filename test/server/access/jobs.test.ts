/**
 * CONTRACT §18.2 `GET /api/papers/jobs?state=`: the jobs this instance holds, listed while they run (the doubles'
 * gates hold them), each a §11.2 snapshot with its `asset`, oldest first; `state` filters (a comma-separated list;
 * an unknown state is a 400 naming it); `queued`/`running` count every job held. Ended jobs stay listed for an hour.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OffsetClock, until } from './support/clocks.js';
import type { Doubles } from './support/harness.js';
import { addPaper, pollJson } from './support/papers.js';
import { AUTH, startAccessStack, stopAccessStack, type AccessServer } from './support/server.js';

type Job = Record<string, unknown> & { preprint_id: string; state: string; asset: string; submitted_at: string };
interface Jobs {
  jobs: Job[];
  queued: number;
  running: number;
}

let d: Doubles;
let s: AccessServer;
const clock = new OffsetClock();

beforeAll(async () => {
  ({ d, s } = await startAccessStack(
    { SVC_PREPRINT_FETCH_CONCURRENT: '2', PARSER_MAX_CONCURRENT_JOBS: '1' },
    { clock },
  ));
});
afterAll(() => stopAccessStack({ d, s }));

async function jobs(query = ''): Promise<Jobs> {
  const res = await s.get(`/api/papers/jobs${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Jobs;
}

async function fetchItems(items: string[], kind: 'markdown' | 'pdf'): Promise<void> {
  const res = await s.fetch('/api/papers/fetch', {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify({ items, kind }),
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { enqueued: number }).enqueued).toBe(items.length);
}

const ids = (list: Job[]) => list.map((j) => j.preprint_id).sort();

it('lists the jobs while they run, oldest first, with their asset; state filters them', async () => {
  expect(await jobs()).toEqual({ jobs: [], queued: 0, running: 0 });
  const markdown = ['2507.00001v1', '2507.00002v1', '2507.00003v1'];
  for (const id of [...markdown, '2507.00004v1']) addPaper(d.arxiv, id.slice(0, -2));
  let all: Jobs = { jobs: [], queued: 0, running: 0 };
  d.arxiv.pdfGate.close();
  try {
    await fetchItems(markdown, 'markdown');
    await fetchItems(['2507.00004v1'], 'pdf');
    // Two downloads hold the fetch slots (at the closed gate), two wait for one.
    await until('2 downloads running and 2 queued', async () => {
      const all = await jobs();
      return all.running === 2 && all.queued === 2;
    });
    all = await jobs();
    expect(ids(all.jobs)).toEqual([...markdown, '2507.00004v1']);
    // Oldest first (the wire shows seconds; the server orders by its milliseconds, ties by id).
    const submitted = all.jobs.map((j) => j.submitted_at);
    expect(submitted).toEqual([...submitted].sort());
    for (const job of all.jobs) {
      const asset = job.preprint_id === '2507.00004v1' ? 'pdf' : 'markdown';
      expect(job).toMatchObject({
        asset,
        phase: 'fetching_pdf',
        pdf_ready: false,
        md_ready: false,
        submitted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      });
      expect(['queued', 'running']).toContain(job.state);
      // A markdown job in progress shows its place among the conversions (§11.2); a PDF job has none.
      if (asset === 'markdown') expect(job['queue']).toMatchObject({ max_concurrent: 1 });
      else expect(job['queue']).toBeUndefined();
      // A download held at the gate has received nothing yet.
      if (job.state === 'running') expect(job['fetch']).toMatchObject({ bytes_received: 0, bytes_total: null });
    }

    const running = await jobs('?state=running');
    expect(running.jobs.map((j) => j.state)).toEqual(['running', 'running']);
    expect([running.queued, running.running]).toEqual([2, 2]);
    const queued = await jobs('?state=queued');
    expect(queued.jobs.map((j) => j.state)).toEqual(['queued', 'queued']);
    expect(ids([...running.jobs, ...queued.jobs])).toEqual(ids(all.jobs));
    expect((await jobs('?state=queued,running')).jobs).toHaveLength(4);
    expect(await jobs('?state=failed')).toEqual({ jobs: [], queued: 2, running: 2 });
    expect((await jobs('?state=')).jobs).toHaveLength(4);

    const bad = await s.get('/api/papers/jobs?state=queued,bogus');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      detail:
        'state: unknown state "bogus" (one or more of cached, queued, running, failed, cooldown, none, unavailable, ' +
        'comma-separated)',
    });

    // Conversions: the PDFs are stored, one parser slot; the others wait in the parser queue.
    d.mineru.frozen = true;
    d.arxiv.pdfGate.open();
    await until('one conversion running, two waiting for the parser', async () => {
      const list = (await jobs('?state=queued,running')).jobs;
      return (
        list.length === 3 &&
        list.every((j) => j.asset === 'markdown' && j['phase'] === 'converting_md' && j['pdf_ready'] === true) &&
        list.filter((j) => j.state === 'running').length === 1
      );
    });
    const converting = await jobs('?state=queued');
    expect(converting.jobs.map((j) => (j['queue'] as Record<string, unknown>)['position'])).toEqual([1, 2]);
  } finally {
    d.arxiv.pdfGate.open();
    d.mineru.frozen = false;
  }
  await until('every job stored', async () => (await jobs('?state=queued,running')).jobs.length === 0);
  // Ended jobs stay listed (cached, with their asset's URL), so a client watching them sees them end.
  const ended = await jobs('?state=cached');
  expect([ended.queued, ended.running]).toEqual([0, 0]);
  expect(ended.jobs.map((j) => [j.preprint_id, j.asset, j.state, j['phase']])).toEqual(
    all.jobs.map((j) => [j.preprint_id, j.asset, 'cached', 'ready']),
  );
  for (const job of ended.jobs) {
    const url = `/api/papers/${job.preprint_id}/${job.asset}`;
    expect(job[job.asset === 'pdf' ? 'pdf_url' : 'markdown_url']).toBe(url);
    expect(job).toMatchObject({ pdf_ready: true, md_ready: job.asset === 'markdown' });
  }
});

it('a failed job is listed (state failed, its kind and detail); ended jobs stay listed for an hour', async () => {
  await fetchItems(['2507.09999v1'], 'pdf');
  await pollJson(s.get, '/api/papers/2507.09999v1/pdf/status', (b) => b.state === 'failed');
  const failedJob = expect.objectContaining({
    preprint_id: '2507.09999v1',
    asset: 'pdf',
    state: 'failed',
    phase: 'error_fetching',
    kind: 'fatal',
    detail: 'arXiv has no paper 2507.09999v1 (HTTP 404)',
  });
  expect(await jobs('?state=failed,cooldown')).toEqual({ jobs: [failedJob], queued: 0, running: 0 });
  expect((await jobs('?state=running')).jobs).toEqual([]);
  // After its cooldown it has ended: still listed; a new fetch starts a new job, which replaces it in the list.
  clock.advance(61_000);
  expect((await jobs('?state=failed')).jobs).toEqual([failedJob]);
  d.arxiv.pdfGate.close();
  try {
    await fetchItems(['2507.09999v1'], 'pdf');
    const listed = (await jobs()).jobs.filter((j) => j.preprint_id === '2507.09999v1');
    expect(listed).toHaveLength(1);
    expect(['queued', 'running']).toContain(listed[0]!.state);
  } finally {
    d.arxiv.pdfGate.open();
  }
  await pollJson(s.get, '/api/papers/2507.09999v1/pdf/status', (b) => b.state === 'failed');
  expect((await jobs()).jobs.length).toBe(5);
  // An hour after they ended, the ended jobs are gone.
  clock.advance(60 * 60_000);
  expect(await jobs()).toEqual({ jobs: [], queued: 0, running: 0 });
});

it('needs papers:read, and the filter is validated even with no jobs', async () => {
  expect((await s.fetch('/api/papers/jobs')).status).toBe(401);
  const bad = await s.get('/api/papers/jobs?state=done');
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { detail: string }).detail).toMatch(/^state: unknown state "done" /);
});
