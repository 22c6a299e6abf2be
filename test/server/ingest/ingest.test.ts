/**
 * CONTRACT §10: ingest tasks against a running pksd and the upstream doubles — submission rules, every task and
 * step state of §10.3, the continue rules of §10.4, lists, the stage catalogue and persistence (§10.6).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/server/logger.js';
import { LogCapture } from '../../support/server.js';
import { fakePdf } from '../../support/upstreams/arxiv.js';
import { OffsetClock, until } from '../access/support/clocks.js';
import { accessEnv, type Doubles } from '../access/support/harness.js';
import { addPaper } from '../access/support/papers.js';
import {
  AUTH,
  composeServer,
  startAccessServer,
  startAccessStack,
  stopAccessStack,
  type AccessServer,
} from '../access/support/server.js';
import { DEFAULT_OPTIONS } from './support/options.js';

type Task = Record<string, unknown> & {
  task_id: string;
  status: string;
  message: string;
  preprint_id: string;
  options: Record<string, unknown>;
  steps: Record<'fetch' | 'parse', Record<string, unknown> & { status: string; error: string | null; message: string }>;
};

let d: Doubles;
let s: AccessServer;
const clock = new OffsetClock();

beforeAll(async () => {
  ({ d, s } = await startAccessStack({}, { clock }));
});
afterAll(() => stopAccessStack({ d, s }));

const post = (server: AccessServer, url: string, body: unknown) =>
  server.fetch(url, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

async function submit(body: Record<string, unknown>, server = s): Promise<string> {
  const res = await post(server, '/api/ingest/paper', body);
  expect(res.status).toBe(202);
  return ((await res.json()) as { task_id: string }).task_id;
}

async function task(id: string, server = s): Promise<Task> {
  return (await (await server.get(`/api/ingest/${id}`)).json()) as Task;
}

const FINISHED = ['succeeded', 'partial', 'failed', 'cancelled'];
async function finished(id: string, server = s): Promise<Task> {
  let last: Task | null = null;
  await until('the task to finish', async () => FINISHED.includes((last = await task(id, server)).status), 30_000, 20);
  return last!;
}

describe('submit (§10.1)', () => {
  it('202 with Location and the accepted body; papers:write required', async () => {
    addPaper(d.arxiv, '2507.00001');
    const res = await post(s, '/api/ingest/paper', { preprint_id: '2507.00001v1', stop_after: 'fetch' });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { task_id: string };
    expect(body.task_id).toMatch(/^[0-9a-f]{8}$/);
    expect(body).toEqual({
      task_id: body.task_id,
      status: 'queued',
      message: `ingest queued; poll GET /api/ingest/${body.task_id}`,
      status_url: `/api/ingest/${body.task_id}`,
    });
    expect(res.headers.get('location')).toBe(`/api/ingest/${body.task_id}`);
    await finished(body.task_id);
    const anonymous = await s.fetch('/api/ingest/paper', {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(anonymous.status).toBe(401);
  });

  it.each([
    [{ preprint_id: 'nope' }, 'invalid preprint_id: "nope"'],
    [{ preprint_id: '10.1000/x' }, 'invalid preprint_id: "10.1000/x"'],
    [{ preprint_id: '2507.00001', parser: 'other' }, "unsupported parser 'other'; only 'pdfparser' is available"],
    [{ preprint_id: '2507.00001', stages: [] }, 'no ingest stages selected'],
    [{ preprint_id: '2507.00001', bogus: 1 }, "unknown field 'bogus'"],
  ])('400 for %j', async (body, detail) => {
    const res = await post(s, '/api/ingest/paper', body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(detail);
  });

  it("the original clients' names (§19): arxiv_id, parser 'mineru', mineru_no_cache", async () => {
    addPaper(d.arxiv, '2507.00009');
    const viaAlias = await task(
      await submit({ arxiv_id: '2507.00009v1', parser: 'mineru', mineru_no_cache: true, stop_after: 'fetch' }),
    );
    const viaContract = await task(
      await submit({ preprint_id: '2507.00009v1', parser: 'pdfparser', no_cache: true, stop_after: 'fetch' }),
    );
    expect(viaAlias.preprint_id).toBe('2507.00009v1');
    expect(viaAlias.options).toEqual(viaContract.options);
    expect(viaAlias.options).toMatchObject({ parser: 'pdfparser', no_cache: true });
    await finished(viaAlias.task_id);
    await finished(viaContract.task_id);
  });

  it.each([
    [{}, "preprint_id: must have required property 'preprint_id'"],
    [
      { preprint_id: '2507.00001', arxiv_id: '2507.00001' },
      "send 'preprint_id' or its deprecated name 'arxiv_id', not both",
    ],
    [
      { arxiv_id: '2507.00001', no_cache: true, mineru_no_cache: false },
      "send 'no_cache' or its deprecated name 'mineru_no_cache', not both",
    ],
    [{ arxiv_id: 'nope' }, 'invalid preprint_id: "nope"'],
  ])('§19 names: 400 for %j', async (body, detail) => {
    const res = await post(s, '/api/ingest/paper', body);
    expect([res.status, await res.json()]).toEqual([400, { detail }]);
  });

  it('a wrong type or stage name is a schema 400', async () => {
    for (const body of [{ preprint_id: '2507.00001', stop_after: 'convert' }, { preprint_id: 2507 }]) {
      expect((await post(s, '/api/ingest/paper', body)).status).toBe(400);
    }
  });
});

describe('task and step states (§10.3)', () => {
  it('running while a step runs (fetch progress: waiting → download), then succeeded with results', async () => {
    addPaper(d.arxiv, '2507.00002', 2);
    d.arxiv.pdfGate.close();
    const id = await submit({ preprint_id: '2507.00002' });
    try {
      await until('the fetch step to run', async () => (await task(id)).steps.fetch.status === 'running', 10_000, 20);
      const running = await task(id);
      expect(running.status).toBe('running');
      expect(running.steps.fetch['progress']).toMatchObject({ max_attempts: 4 });
      expect(running.steps.parse.status).toBe('pending');
    } finally {
      d.arxiv.pdfGate.open();
    }
    const done = await finished(id);
    expect(done).toMatchObject({
      status: 'succeeded',
      preprint_id: '2507.00002v2',
      requested_id: '2507.00002',
      defaults_applied: ['version=v2 (no version specified; latest published version used)'],
      requester: 'system-pat',
      options: DEFAULT_OPTIONS,
    });
    expect(done.steps.fetch).toMatchObject({
      status: 'succeeded',
      message: 'PDF stored',
      error: null,
      progress: { phase: 'complete', max_attempts: 4 },
      result: { pdf_path: 'pdf/2507/2507.00002v2.pdf', pdf_bytes: fakePdf('2507.00002v2').length, reused: false },
    });
    expect(done.steps.parse).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      result: {
        markdown_path: 'markdown/2507/2507.00002v2.md',
        image_count: 1,
        parser: 'pdfparser',
        reused: false,
        parser_task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    });
    for (const f of ['submitted_at', 'started_at', 'finished_at', 'updated_at']) expect(done[f]).toMatch(/Z$/);
    // The trailing-slash spelling answers the same document.
    expect(await (await s.get(`/api/ingest/${id}/`)).json()).toEqual(done);
  });

  it('not-selected stages are skipped; stored artifacts are reused', async () => {
    const fetchOnly = await finished(await submit({ preprint_id: '2507.00002v2', stop_after: 'fetch' }));
    expect(fetchOnly.status).toBe('succeeded');
    expect(fetchOnly.steps.fetch).toMatchObject({
      status: 'succeeded',
      message: 'PDF already stored; reused',
      result: { reused: true },
    });
    expect(fetchOnly.steps.parse).toMatchObject({ status: 'skipped', message: 'not selected', error: null });
    const parseOnly = await finished(await submit({ preprint_id: '2507.00002v2', stages: ['parse', 'parse'] }));
    expect(parseOnly.options['stages']).toEqual(['parse']);
    expect(parseOnly.steps.fetch.status).toBe('skipped');
    expect(parseOnly.steps.parse).toMatchObject({
      status: 'succeeded',
      message: 'markdown already stored; reused',
      result: { reused: true, image_count: 1, markdown_path: 'markdown/2507/2507.00002v2.md' },
    });
  });

  it('partial: fetch succeeded, parse failed', async () => {
    addPaper(d.arxiv, '2507.00003');
    d.mineru.scripts.set('2507.00003v1', { states: ['failed'], errMsg: 'exceeds page limit' });
    const done = await finished(await submit({ preprint_id: '2507.00003v1' }));
    expect(done.status).toBe('partial');
    expect(done.steps.fetch.status).toBe('succeeded');
    expect(done.steps.parse).toMatchObject({ status: 'failed', error: 'conversion failed: exceeds page limit' });
    expect(done.message).toBe('ingest partial: parse: conversion failed: exceeds page limit');
  });

  it('failed: fetch failed, parse skipped because fetch failed', async () => {
    const done = await finished(await submit({ preprint_id: '2507.99999v1' }));
    expect(done.status).toBe('failed');
    expect(done.steps.fetch).toMatchObject({ status: 'failed', error: 'arXiv has no paper 2507.99999v1 (HTTP 404)' });
    expect(done.steps.parse).toMatchObject({ status: 'skipped', error: 'skipped because fetch failed' });
  });

  it('failed: id resolution failed — the message says why, the steps stay pending', async () => {
    const done = await finished(await submit({ preprint_id: '2507.99998' }));
    expect(done).toMatchObject({
      status: 'failed',
      preprint_id: '2507.99998',
      message: 'could not resolve 2507.99998: arXiv has no paper 2507.99998',
    });
    expect([done.steps.fetch.status, done.steps.parse.status]).toEqual(['pending', 'pending']);
  });

  it('parse without a stored PDF (fetch not selected) fails', async () => {
    addPaper(d.arxiv, '2507.00004');
    const done = await finished(await submit({ preprint_id: '2507.00004v1', stages: ['parse'] }));
    expect(done.steps.parse).toMatchObject({ status: 'failed', error: 'no PDF stored; run the fetch stage first' });
    expect(done.status).toBe('failed');
  });

  it('force_fetch re-downloads and overwrites; force_parse and no_cache convert again outside the shared job', async () => {
    addPaper(d.arxiv, '2507.00005');
    await finished(await submit({ preprint_id: '2507.00005v1' }));
    const newer = fakePdf('2507.00005v1 re-issued');
    d.arxiv.papers.set('2507.00005', { latestVersion: 1, pdfs: new Map([[1, newer]]) });
    const refetched = await finished(
      await submit({ preprint_id: '2507.00005v1', stop_after: 'fetch', force_fetch: true }),
    );
    expect(refetched.steps.fetch).toMatchObject({
      status: 'succeeded',
      result: { reused: false, pdf_bytes: newer.length },
    });
    const stored = await s.get('/api/papers/2507.00005v1/pdf');
    expect(Buffer.from(await stored.arrayBuffer())).toEqual(newer);

    const before = d.mineru.creations.filter((c) => c.dataId === '2507.00005v1').length;
    const reparsed = await finished(
      await submit({ preprint_id: '2507.00005v1', stages: ['parse'], force_parse: true, no_cache: true }),
    );
    expect(reparsed.steps.parse).toMatchObject({ status: 'succeeded', result: { reused: false } });
    expect(d.mineru.creations.filter((c) => c.dataId === '2507.00005v1').length).toBe(before + 1);
    const last = [...d.mineru.tasks.values()].filter((t) => t.request['data_id'] === '2507.00005v1').at(-1)!;
    expect(last.request['no_cache']).toBe(true);
  });

  it('every parser token at its daily limit: the parse step fails daily_limit with retry_after_iso', async () => {
    addPaper(d.arxiv, '2507.00006');
    d.mineru.quota.set('tok-a', 0);
    d.mineru.quota.set('tok-b', 0);
    try {
      const done = await finished(await submit({ preprint_id: '2507.00006v1' }));
      expect(done.status).toBe('partial');
      expect(done.steps.parse.error).toMatch(
        /^daily_limit: server quota exhausted: all 2 parser API tokens have reached today's daily limit; service resumes at /,
      );
      expect(done.steps.parse['retry_after_iso']).toMatch(/Z$/);
    } finally {
      d.mineru.quota.clear();
      clock.advance(25 * 3600_000); // past 00:01 of the next day: the tokens recover
    }
  });

  it('without parser tokens the parse step fails: server-side parsing unavailable', async () => {
    const cacheOnly = await startAccessServer({ ...accessEnv(d), PARSER_API_TOKENS: '' });
    try {
      addPaper(d.arxiv, '2507.00007');
      const done = await finished(await submit({ preprint_id: '2507.00007v1' }, cacheOnly), cacheOnly);
      expect(done.status).toBe('partial');
      expect(done.steps.parse.error).toBe('server-side parsing unavailable: PARSER_API_TOKENS unset; cache-only mode');
    } finally {
      await cacheOnly.close();
    }
  });
});

describe('continue (§10.4)', () => {
  it('runs the stages after the last succeeded step, bounded by stop_after; inherits options', async () => {
    addPaper(d.arxiv, '2507.00010');
    const source = await finished(await submit({ preprint_id: '2507.00010', stop_after: 'fetch', no_cache: true }));
    expect(source.status).toBe('succeeded');
    const nothing = await post(s, `/api/ingest/${source.task_id}/continue`, {});
    expect(nothing.status).toBe(400);
    expect(await nothing.json()).toEqual({ detail: `no ingest stages remaining for task ${source.task_id}` });

    const res = await s.fetch(`/api/ingest/${source.task_id}/continue`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ stop_after: 'parse' }),
    });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as { task_id: string; message: string };
    expect(accepted.message).toBe(`ingest continuation queued; poll GET /api/ingest/${accepted.task_id}`);
    const next = await finished(accepted.task_id);
    expect(next).toMatchObject({
      status: 'succeeded',
      preprint_id: '2507.00010v1',
      options: { stages: ['parse'], stop_after: 'parse', no_cache: true, source_task_id: source.task_id },
    });
    expect(next.steps.fetch.status).toBe('skipped');
  });

  it('a failed task continues from its failed step; explicit stages win', async () => {
    addPaper(d.arxiv, '2507.00011');
    d.mineru.scripts.set('2507.00011v1', { states: ['failed'], errMsg: 'number of pages exceeds 600' });
    const source = await finished(await submit({ preprint_id: '2507.00011v1' }));
    expect(source.status).toBe('partial');
    d.mineru.scripts.delete('2507.00011v1');
    const cont = (await (await post(s, `/api/ingest/${source.task_id}/continue`, {})).json()) as { task_id: string };
    expect((await finished(cont.task_id)).options['stages']).toEqual(['parse']);
    const explicit = (await (
      await post(s, `/api/ingest/${source.task_id}/continue`, { stages: ['fetch'] })
    ).json()) as {
      task_id: string;
    };
    expect((await finished(explicit.task_id)).options['stages']).toEqual(['fetch']);
  });

  it('unknown source → 404; a running source → 409; a bad body → 400', async () => {
    const unknown = await post(s, '/api/ingest/deadbeef/continue', {});
    expect([unknown.status, await unknown.json()]).toEqual([404, { detail: 'ingest task not found' }]);
    addPaper(d.arxiv, '2507.00012');
    d.arxiv.pdfGate.close();
    try {
      const id = await submit({ preprint_id: '2507.00012v1' });
      const busy = await post(s, `/api/ingest/${id}/continue`, {});
      expect([busy.status, await busy.json()]).toEqual([409, { detail: `task ${id} is still running` }]);
      const bad = await post(s, `/api/ingest/${id}/continue`, { preprint_id: 'x' });
      expect([bad.status, await bad.json()]).toEqual([400, { detail: "unknown field 'preprint_id'" }]);
    } finally {
      d.arxiv.pdfGate.open();
    }
    expect((await s.get('/api/ingest/deadbeef')).status).toBe(404);
  });
});

describe('lists, catalogue, persistence (§10.5, §10.6)', () => {
  it('GET /api/ingests lists newest first with the total; limit is clamped', async () => {
    const all = (await (await s.get('/api/ingests')).json()) as { total: number; tasks: Task[] };
    expect(all.total).toBeGreaterThan(5);
    const stamps = all.tasks.map((t) => String(t['submitted_at']));
    expect([...stamps].sort().reverse()).toEqual(stamps);
    const one = (await (await s.get('/api/ingests?limit=0')).json()) as { total: number; tasks: Task[] };
    expect([one.total, one.tasks.length]).toEqual([all.total, 1]);
    expect((await s.get('/api/ingests?limit=x')).status).toBe(400);
  });

  it('GET /api/ingest/stages (with and without the slash)', async () => {
    for (const url of ['/api/ingest/stages', '/api/ingest/stages/']) {
      expect(await (await s.get(url)).json()).toEqual({
        order: ['fetch', 'parse'],
        stages: [
          { name: 'fetch', description: 'download the PDF from arXiv into the pdf bucket', can_stop_after: true },
          {
            name: 'parse',
            description: 'convert the stored PDF to markdown and images with the MinerU cloud API',
            can_stop_after: true,
          },
        ],
        parsers: ['pdfparser'],
        default_parser: 'pdfparser',
        controls: {
          stop_after: 'run stages up to and including this one',
          stages: 'explicit list of stages to run',
          force_fetch: 're-download even if stored',
          force_parse: 're-convert even if stored',
          no_cache: "bypass the parser provider's cache",
          continue: 'POST /api/ingest/{task_id}/continue runs the remaining stages',
        },
      });
    }
  });

  it('each task is a JSON file under <SVC_DATA_DIR>/ingests/; a stop cancels unfinished tasks, which a restart keeps', async () => {
    const dir = path.join(s.config.dataDir, 'ingests');
    const list = (await (await s.get('/api/ingests?limit=500')).json()) as { tasks: Task[] };
    // A finished task: a running one's progress moves ahead of its file between step changes.
    const finished = list.tasks.find((t) => ['succeeded', 'partial', 'failed', 'cancelled'].includes(t.status));
    expect(finished).toBeDefined();
    const onDisk = JSON.parse(await readFile(path.join(dir, `${finished!.task_id}.json`), 'utf8'));
    expect(onDisk).toEqual(finished);

    addPaper(d.arxiv, '2507.00013');
    d.arxiv.pdfGate.close();
    const id = await submit({ preprint_id: '2507.00013v1' });
    await until('the task to run', async () => (await task(id)).status === 'running', 10_000, 20);
    await s.stop();
    d.arxiv.pdfGate.open();
    const saved = JSON.parse(await readFile(path.join(dir, `${id}.json`), 'utf8'));
    expect(saved).toMatchObject({
      status: 'cancelled',
      message: 'server restarted before the task finished; use continue',
    });
    const again = await composeServer(s.config, createLogger('warn', new LogCapture()));
    try {
      const after = (await (await fetch(`${again.url}/api/ingest/${id}`, { headers: AUTH })).json()) as Task;
      expect(after.status).toBe('cancelled');
      const cont = await fetch(`${again.url}/api/ingest/${id}/continue`, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(cont.status).toBe(202);
    } finally {
      await again.close();
    }
  });
});
