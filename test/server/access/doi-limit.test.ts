/**
 * Issue 20: DOI resolution is limited per credential, so a loop over DOIs cannot become a flood of OpenAlex
 * requests. Only lookups that reach OpenAlex count (a cached DOI, or one whose lookup is in flight, does not); past
 * the limit every paper-access route (status routes included) answers 429 with `Retry-After` and a clear detail.
 * Other credentials keep their own budget; the window ends after 60 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_RULES } from '../../../src/server/auth/rate-limit.js';
import { RateLimitedError } from '../../../src/shared/domain-errors.js';
import { arxivWork } from '../../support/upstreams/openalex.js';
import { OffsetClock, until } from './support/clocks.js';
import { addPaper, jsonOf } from './support/papers.js';
import { startAccessStack, stopAccessStack, type AccessStack } from './support/server.js';

const LIMIT = RATE_RULES.doiLookup.limit;
const clock = new OffsetClock();
let stack: AccessStack;

beforeAll(async () => {
  stack = await startAccessStack({}, { clock });
  addPaper(stack.d.arxiv, '2501.00010');
  stack.d.openalex.works.set('10.1000/known', arxivWork('10.1000/known', '2501.00010'));
});
afterAll(() => stopAccessStack(stack));

const lookups = () => stack.d.openalex.workRequests().length;

describe('DOI lookups per credential', () => {
  it(`${LIMIT} lookups a minute, then 429 on every route; cached DOIs and arXiv ids still resolve`, async () => {
    const { s } = stack;
    expect(LIMIT).toBe(30);
    const start = lookups();
    // A known DOI first: afterwards it is cached and costs nothing.
    expect((await s.get('/api/papers/10.1000/known/pdf/status')).status).toBe(200);
    for (let i = 2; i <= LIMIT; i++) {
      const res = await s.get(`/api/papers/10.5555/loop-${i}/markdown/status`);
      expect([i, res.status]).toEqual([i, 404]); // unknown to OpenAlex
    }
    expect(lookups() - start).toBe(LIMIT);

    for (const route of ['pdf/status', 'markdown/status', 'pdf', 'markdown', 'images/fig1.png']) {
      const res = await s.get(`/api/papers/10.5555/one-more/${route}`);
      expect([route, res.status]).toEqual([route, 429]);
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await res.json()).toEqual({
        detail:
          `rate limit exceeded: at most ${LIMIT} requests per minute for DOI resolutions through OpenAlex ` +
          `(cached DOIs do not count); retry in ${retryAfter} s`,
        requested_id: '10.5555/one-more',
        doi: '10.5555/one-more',
      });
    }
    expect(lookups() - start).toBe(LIMIT);

    // Cache hits (positive and negative) and arXiv ids are not DOI lookups.
    const known = await s.get('/api/papers/10.1000/known/pdf/status');
    expect([known.status, (await jsonOf(known)).resolved_id]).toEqual([200, '2501.00010v1']);
    expect((await s.get('/api/papers/10.5555/loop-2/pdf/status')).status).toBe(404);
    expect((await s.get('/api/papers/2501.00010/pdf/status')).status).toBe(200);
    expect(lookups() - start).toBe(LIMIT);

    // Another credential has its own budget.
    const other = await s.access.resolver.resolve('10.5555/from-alice', 'user:alice');
    expect(other.ok ? null : other.failure.error.message).toBe(
      'DOI 10.5555/from-alice is not known to OpenAlex or has no arXiv identifier',
    );
    expect(lookups() - start).toBe(LIMIT + 1);

    // The window ends 60 s after it started.
    clock.advance(60_000);
    expect((await s.get('/api/papers/10.5555/one-more/pdf/status')).status).toBe(404);
    expect(lookups() - start).toBe(LIMIT + 2);
  });

  it('callers joining a lookup in flight cause no request and are not counted', async () => {
    const { d, s } = stack;
    const { resolver } = s.access;
    const caller = 'user:joiner'; // a budget of its own: LIMIT lookups in this window
    const start = lookups();
    const notKnown = (doi: string) => `DOI ${doi} is not known to OpenAlex or has no arXiv identifier`;
    const messageOf = (o: Awaited<ReturnType<typeof resolver.resolve>>) => (o.ok ? null : o.failure.error.message);
    d.openalex.workGate.close();
    const together = Array.from({ length: 5 }, () => resolver.resolve('10.5555/together', caller));
    try {
      // The first caller's lookup is held upstream; the other four joined it before it could answer.
      await until('the lookup to reach OpenAlex', () => d.openalex.workGate.held === 1);
      expect(lookups() - start).toBe(1);
    } finally {
      d.openalex.workGate.open();
    }
    const answers = await Promise.all(together);
    expect(answers.map(messageOf)).toEqual(Array(5).fill(notKnown('10.5555/together')));
    expect(lookups() - start).toBe(1);

    // The five callers used one lookup of the caller's budget: LIMIT - 1 more are allowed, then 429.
    for (let i = 2; i <= LIMIT; i++) {
      const doi = `10.5555/after-${i}`;
      expect([i, messageOf(await resolver.resolve(doi, caller))]).toEqual([i, notKnown(doi)]);
    }
    const over = await resolver.resolve('10.5555/after-last', caller);
    expect(over.ok ? null : over.failure.error).toBeInstanceOf(RateLimitedError);
    expect(messageOf(over)).toMatch(
      /^rate limit exceeded: at most 30 requests per minute for DOI resolutions through OpenAlex \(cached DOIs do not count\); retry in \d+ s$/,
    );
    expect(lookups() - start).toBe(LIMIT);
  });
});
