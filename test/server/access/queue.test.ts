/**
 * CONTRACT §11.6 queue estimate: with PARSER_MAX_CONCURRENT_JOBS=2 and 10 markdown jobs, 2 convert and 8 wait
 * with positions 1..8 (FIFO by submitted_at, ties by id) and eta = ⌈(ahead_of_me + running_count + 1) /
 * max_concurrent⌉ × avg; avg is PARSER_TIMEOUT / 2 without history, else the mean of the last conversions.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OffsetClock, until } from './support/clocks.js';
import type { Doubles } from './support/harness.js';
import { addPaper, jsonOf, pollJson, type Body } from './support/papers.js';
import { startAccessStack, stopAccessStack, type AccessServer } from './support/server.js';

let d: Doubles;
let s: AccessServer;
const clock = new OffsetClock();

beforeAll(async () => {
  ({ d, s } = await startAccessStack({ PARSER_MAX_CONCURRENT_JOBS: '2', PARSER_TIMEOUT: '600' }, { clock }));
});
afterAll(() => stopAccessStack({ d, s }));

const ids = (prefix: string) => Array.from({ length: 10 }, (_, i) => `${prefix}${String(i + 1).padStart(2, '0')}v1`);
const statusOf = async (id: string) => jsonOf(await s.get(`/api/papers/${id}/markdown/status`));

async function queueUp(list: readonly string[]): Promise<Body[]> {
  for (const id of list) addPaper(d.arxiv, id.slice(0, -2));
  for (const id of list) expect((await s.get(`/api/papers/${id}/markdown`)).status).toBe(202);
  await until('2 conversions running and 8 waiting', async () => {
    const all = await Promise.all(list.map(statusOf));
    return (
      all.filter((b) => b.state === 'running' && b.phase === 'converting_md').length === 2 &&
      all.filter((b) => b.state === 'queued' && b.phase === 'converting_md').length === 8
    );
  });
  return Promise.all(list.map(statusOf));
}

it('no history: positions 1..8, avg = PARSER_TIMEOUT / 2, ETAs by the formula', async () => {
  d.mineru.frozen = true;
  const list = ids('2505.000');
  const all = await queueUp(list);
  const waiting = all.filter((b) => b.state === 'queued');
  expect(waiting.map((b) => b.preprint_id)).toEqual(list.slice(2));
  expect(waiting.map((b) => b.queue)).toEqual(
    waiting.map((_, i) => ({
      position: i + 1,
      ahead_of_me: i,
      running_count: 2,
      max_concurrent: 2,
      eta_seconds: Math.ceil((i + 2 + 1) / 2) * 300,
      avg_duration_seconds: 300,
      eta_basis: 'default_no_history',
    })),
  );
  for (const b of all.filter((x) => x.state === 'running')) {
    expect(b.queue).toEqual({
      running_count: 2,
      max_concurrent: 2,
      avg_duration_seconds: 300,
      eta_basis: 'default_no_history',
    });
  }
  d.mineru.frozen = false;
  await Promise.all(
    list.map((id) => pollJson(s.get, `/api/papers/${id}/markdown/status`, (b) => b.state === 'cached')),
  );
});

it('with history: avg = the rounded mean of the last conversions (slot taken → markdown stored)', async () => {
  // Two conversions that each take 100 s of server time.
  const slow = ['2505.10001v1', '2505.10002v1'];
  d.mineru.frozen = true;
  for (const id of slow) {
    addPaper(d.arxiv, id.slice(0, -2));
    await s.get(`/api/papers/${id}/markdown`);
  }
  await until('both slow conversions to run', async () =>
    (await Promise.all(slow.map(statusOf))).every((b) => b.state === 'running' && b.phase === 'converting_md'),
  );
  clock.advance(100_000);
  d.mineru.frozen = false;
  await Promise.all(
    slow.map((id) => pollJson(s.get, `/api/papers/${id}/markdown/status`, (b) => b.state === 'cached')),
  );

  d.mineru.frozen = true;
  const all = await queueUp(ids('2505.200'));
  const waiting = all.filter((b) => b.state === 'queued');
  // The ring holds the 10 quick conversions of the first test (≈ 0 s) and the 2 slow ones (≈ 100 s).
  const avg = Math.round((2 * 100) / 12);
  expect(waiting.map((b) => b.queue)).toEqual(
    waiting.map((_, i) => ({
      position: i + 1,
      ahead_of_me: i,
      running_count: 2,
      max_concurrent: 2,
      eta_seconds: Math.ceil((i + 2 + 1) / 2) * avg,
      avg_duration_seconds: avg,
      eta_basis: 'observed_avg_of_12_jobs',
    })),
  );
  d.mineru.frozen = false;
});
