/**
 * CONTRACT §11.6 token pool: round robin; a daily-limit answer (on create or while polling) cools only that
 * token down until 00:01 local time of the next day and the job resubmits at once with the next one; with every
 * token at its limit the job ends `cooldown`/`daily_limit` (503, Retry-After), and the PDF stays served.
 * TZ is fixed so the recovery instant is the contract's example.
 */
process.env['TZ'] = 'Asia/Shanghai';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OffsetClock } from './support/clocks.js';
import { accessEnv, startDoubles, type Doubles } from './support/harness.js';
import { addPaper, jsonOf, pollJson } from './support/papers.js';
import { startAccessServer, type AccessServer } from './support/server.js';

let d: Doubles;
let s: AccessServer;
const clock = new OffsetClock();

beforeAll(async () => {
  d = await startDoubles();
});
afterEach(async () => {
  await s?.close();
  d.mineru.quota.clear();
});
afterAll(() => d?.close());

const start = async () => {
  clock.set(Date.parse('2026-05-01T12:00:00Z'));
  s = await startAccessServer(accessEnv(d), { clock });
};

describe('parser token ring', () => {
  it('one token at its daily limit: the job succeeds on the other without a failed attempt, and later jobs skip it', async () => {
    await start();
    d.mineru.quota.set('tok-a', 0);
    addPaper(d.arxiv, '2504.00001');
    addPaper(d.arxiv, '2504.00002');
    await s.get('/api/papers/2504.00001v1/markdown');
    const seen = new Set<string>();
    await pollJson(s.get, '/api/papers/2504.00001v1/markdown/status', (b) => {
      seen.add(String(b.state));
      return b.state === 'cached';
    });
    expect(seen.has('failed')).toBe(false);
    expect(d.mineru.creations.filter((c) => c.dataId === '2504.00001v1')).toEqual([
      { token: 'tok-a', dataId: '2504.00001v1', accepted: false },
      { token: 'tok-b', dataId: '2504.00001v1', accepted: true },
    ]);
    await s.get('/api/papers/2504.00002v1/markdown');
    await pollJson(s.get, '/api/papers/2504.00002v1/markdown/status', (b) => b.state === 'cached');
    expect(d.mineru.creations.filter((c) => c.dataId === '2504.00002v1')).toEqual([
      { token: 'tok-b', dataId: '2504.00002v1', accepted: true },
    ]);
    expect(s.access.counters()).toMatchObject({ tokens_total: 2, tokens_cooling: 1, failed_daily_limit: 0 });
  });

  it('a daily-limit answer while polling (HTTP 429) rotates to the next token', async () => {
    await start();
    addPaper(d.arxiv, '2504.00003');
    d.mineru.failNextPoll({ code: 'quota', msg: 'too many requests' }, 429);
    await s.get('/api/papers/2504.00003v1/markdown');
    await pollJson(s.get, '/api/papers/2504.00003v1/markdown/status', (b) => b.state === 'cached');
    expect(d.mineru.creations.filter((c) => c.dataId === '2504.00003v1').map((c) => [c.token, c.accepted])).toEqual([
      ['tok-a', true],
      ['tok-b', true],
    ]);
  });

  it('every token at its limit → cooldown/daily_limit until 00:01 next local day; 503 with Retry-After; PDF served', async () => {
    await start();
    d.mineru.quota.set('tok-a', 0);
    d.mineru.quota.set('tok-b', 0);
    addPaper(d.arxiv, '2504.00004');
    await s.get('/api/papers/2504.00004v1/markdown');
    const status = await pollJson(s.get, '/api/papers/2504.00004v1/markdown/status', (b) => b.state === 'cooldown');
    const expected = {
      preprint_id: '2504.00004v1',
      state: 'cooldown',
      phase: 'error_converting',
      kind: 'daily_limit',
      pdf_ready: true,
      md_ready: false,
      detail:
        "server quota exhausted: all 2 parser API tokens have reached today's daily limit; service resumes at 2026-05-02T00:01:00+08:00",
      retry_after: 1777651260,
      retry_after_iso: '2026-05-01T16:01:00Z',
    };
    expect(status).toMatchObject(expected);
    const trigger = await s.get('/api/papers/2504.00004v1/markdown');
    expect(trigger.status).toBe(503);
    expect(await jsonOf(trigger)).toMatchObject(expected);
    const retryAfter = Number(trigger.headers.get('retry-after'));
    const expectedSeconds = Math.ceil((1777651260_000 - clock.now()) / 1000) + 1;
    expect(Math.abs(retryAfter - expectedSeconds)).toBeLessThanOrEqual(1);
    expect((await s.get('/api/papers/2504.00004v1/pdf')).status).toBe(200);
    expect(s.access.counters()).toMatchObject({ failed_daily_limit: 1, tokens_cooling: 2 });

    // After 00:01 the tokens are back and the next trigger starts a new job.
    d.mineru.quota.clear();
    clock.set(Date.parse('2026-05-01T16:01:01Z'));
    expect((await s.get('/api/papers/2504.00004v1/markdown')).status).toBe(202);
    await pollJson(s.get, '/api/papers/2504.00004v1/markdown/status', (b) => b.state === 'cached');
  });
});
