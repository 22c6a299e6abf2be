/**
 * Faults lose nothing (issue 10): bad result zips (truncated, `../` entries) are fatal and store nothing;
 * failed parser answers of each class; a `done` without a result URL and an unreachable zip are retryable; an
 * invalid token is fatal; a redirect loop is fatal; no staged file is left behind.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../../../src/server/storage/object-store.js';
import { makeZip } from '../papers/zip.js';
import { DONE, resultZip } from '../../support/upstreams/mineru.js';
import { OffsetClock, until } from './support/clocks.js';
import { accessEnv, type Doubles } from './support/harness.js';
import { addPaper, pollJson, type Body } from './support/papers.js';
import { startAccessServer, startAccessStack, stopAccessStack, type AccessServer } from './support/server.js';

let d: Doubles;
let s: AccessServer;
const clock = new OffsetClock();

beforeAll(async () => {
  ({ d, s } = await startAccessStack({}, { clock }));
});
afterAll(() => stopAccessStack({ d, s }));

/** Triggers the markdown of a fresh paper (with a task script) and waits for the job to end failed. */
async function failedConversion(id: string, script: Parameters<typeof d.mineru.scripts.set>[1]): Promise<Body> {
  addPaper(d.arxiv, id.slice(0, -2));
  d.mineru.scripts.set(id, script);
  await s.get(`/api/papers/${id}/markdown`);
  return pollJson(s.get, `/api/papers/${id}/markdown/status`, (b) => b.state === 'failed' || b.state === 'cached');
}

async function nothingStored(id: string): Promise<void> {
  const store = s.store;
  const [yymm, stem] = [id.slice(0, 4), id];
  expect(await store.head(`markdown/${yymm}/${stem}.md`)).toBeNull();
  expect(await collect(store.list(`images/${yymm}/${stem}/`))).toEqual([]);
  expect(await readdir(path.join(s.config.dataDir, 'tmp'))).toEqual([]);
}

/** Waits out the 10 s resubmission delay of a retryable failure by jumping the server's clock until it resubmits. */
async function skipResubmitWait(id: string): Promise<void> {
  await until(
    'the second submission',
    () => {
      clock.advance(10_000);
      return d.mineru.creations.filter((c) => c.dataId === id).length >= 2;
    },
    20_000,
    20,
  );
}

describe('result zips that fail validation are fatal and store nothing', () => {
  it('a truncated zip', async () => {
    const zip = resultZip('# t\n', { 'a.png': Buffer.from('png') });
    const failed = await failedConversion('2506.00001v1', { states: ['done'], zip: zip.subarray(0, zip.length - 30) });
    expect(failed).toMatchObject({ state: 'failed', kind: 'fatal', phase: 'error_converting', pdf_ready: true });
    expect(failed.detail).toMatch(/^conversion failed: result zip rejected: unreadable zip: /);
    await nothingStored('2506.00001v1');
  });

  it('a zip with ../ entries', async () => {
    const zip = makeZip([
      { name: 'r/full.md', content: '# evil\n' },
      { name: 'r/images/../../../escape.png', content: 'x' },
    ]);
    const failed = await failedConversion('2506.00002v1', { states: ['done'], zip });
    expect(failed).toMatchObject({ state: 'failed', kind: 'fatal' });
    expect(failed.detail).toBe(
      'conversion failed: result zip rejected: unsafe entry name in zip: "r/images/../../../escape.png" (contains a .. segment)',
    );
    await nothingStored('2506.00002v1');
  });
});

describe('failed parser answers, by class', () => {
  it('fatal err_msg → fatal, one submission', async () => {
    const failed = await failedConversion('2506.00003v1', { states: ['running', 'failed'], errMsg: '页数超过限制' });
    expect(failed).toMatchObject({ kind: 'fatal', detail: 'conversion failed: 页数超过限制' });
    expect(d.mineru.creations.filter((c) => c.dataId === '2506.00003v1').length).toBe(1);
  });

  it('daily-limit err_msg → the token cools down and the next one succeeds', async () => {
    addPaper(d.arxiv, '2506.00004');
    d.mineru.scripts.set('2506.00004v1', [{ states: ['failed'], errMsg: 'daily quota reached, try tomorrow' }, DONE]);
    await s.get('/api/papers/2506.00004v1/markdown');
    const done = await pollJson(s.get, '/api/papers/2506.00004v1/markdown/status', (b) =>
      ['cached', 'failed', 'cooldown'].includes(String(b.state)),
    );
    expect(done.state).toBe('cached');
    const tokens = d.mineru.creations.filter((c) => c.dataId === '2506.00004v1').map((c) => c.token);
    expect(tokens.length).toBe(2);
    expect(new Set(tokens)).toEqual(new Set(['tok-a', 'tok-b']));
    clock.advance(25 * 3600_000); // past 00:01 tomorrow: the cooled token recovers for the next tests
  });

  it('unclassified create error (queue full) twice → failed/retryable after two submissions', async () => {
    addPaper(d.arxiv, '2506.00005');
    d.mineru.failNextCreate({ code: -60009, msg: 'queue full' });
    await s.get('/api/papers/2506.00005v1/markdown');
    await until('the first create to be refused', () => d.mineru.creations.some((c) => c.dataId === '2506.00005v1'));
    d.mineru.failNextCreate({ code: -60009, msg: 'queue full' });
    await skipResubmitWait('2506.00005v1');
    const failed = await pollJson(s.get, '/api/papers/2506.00005v1/markdown/status', (b) => b.state === 'failed');
    expect(failed).toMatchObject({
      kind: 'retryable',
      detail: 'conversion failed: parser: HTTP 200 code -60009 queue full',
    });
    expect(d.mineru.creations.filter((c) => c.dataId === '2506.00005v1').length).toBe(2);
  });

  it('done without a full_zip_url, then a zip host answering 500: retryable; nothing stored', async () => {
    addPaper(d.arxiv, '2506.00006');
    d.mineru.scripts.set('2506.00006v1', { states: ['done'], noZipUrl: true });
    await s.get('/api/papers/2506.00006v1/markdown');
    await until('the first submission', () => d.mineru.creations.some((c) => c.dataId === '2506.00006v1'));
    d.mineru.scripts.set('2506.00006v1', { states: ['done'], zipAnswer: { status: 500, body: 'oops' } });
    await skipResubmitWait('2506.00006v1');
    const failed = await pollJson(s.get, '/api/papers/2506.00006v1/markdown/status', (b) => b.state === 'failed');
    expect(failed).toMatchObject({
      kind: 'retryable',
      detail: 'conversion failed: result zip download failed: HTTP 500',
    });
    await nothingStored('2506.00006v1');
  });

  it('an invalid token (A0202) is fatal', async () => {
    const env = { ...accessEnv(d), PARSER_API_TOKENS: 'not-a-token' };
    const bad = await startAccessServer(env);
    try {
      addPaper(d.arxiv, '2506.00007');
      await bad.get('/api/papers/2506.00007v1/markdown');
      const failed = await pollJson(bad.get, '/api/papers/2506.00007v1/markdown/status', (b) => b.state === 'failed');
      expect(failed).toMatchObject({
        kind: 'fatal',
        detail: 'conversion failed: parser: HTTP 200 code A0202 token invalid',
      });
    } finally {
      await bad.close();
    }
  });
});

describe('arXiv faults', () => {
  it('a redirect loop is fatal after 5 redirects', async () => {
    addPaper(d.arxiv, '2506.00008');
    const loop = { status: 302, headers: { location: '/pdf/2506.00008v1' } };
    d.arxiv.answerNext('pdf', loop, loop, loop, loop, loop, loop);
    await s.get('/api/papers/2506.00008v1/pdf');
    const failed = await pollJson(s.get, '/api/papers/2506.00008v1/pdf/status', (b) => b.state === 'failed');
    expect(failed).toMatchObject({ kind: 'fatal', phase: 'error_fetching' });
    expect(failed.detail).toMatch(/^arXiv redirected more than 5 times for /);
    expect(d.arxiv.requestsTo('pdf').filter((r) => r.url === '/pdf/2506.00008v1').length).toBe(6);
  });

  it('HTML instead of a PDF stores nothing and leaves no staged file', async () => {
    addPaper(d.arxiv, '2506.00009');
    d.arxiv.answerNext('pdf', { status: 200, headers: { 'content-type': 'text/html' }, body: '<!DOCTYPE html>' });
    await s.get('/api/papers/2506.00009v1/pdf');
    await pollJson(s.get, '/api/papers/2506.00009v1/pdf/status', (b) => b.state === 'failed');
    expect(await s.store.head('pdf/2506/2506.00009v1.pdf')).toBeNull();
    expect(await readdir(path.join(s.config.dataDir, 'tmp'))).toEqual([]);
  });
});
