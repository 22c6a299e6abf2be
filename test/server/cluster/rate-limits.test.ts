/**
 * The rate limits of CONTRACT §7.7 count across every instance (§21, issue 24): requests alternating between two
 * `pksd serve` on one PostgreSQL hit the limit at the same total as one instance would. On a single-process design
 * each instance would allow the full limit (20 PATs a minute instead of 10).
 */
import { describe, expect, it } from 'vitest';
import { useCluster } from '../../support/cluster.js';

const cluster = useCluster();

const PAT_LIMIT = 10;
const DEVICE_CODE_LIMIT = 30;
const DEVICE_REQUEST = JSON.stringify({ name: 'cli', expires_in_days: 30, scopes: ['wiki:read'] });

describe('cluster: §7.7 rate limits are counted across instances', () => {
  it('POST /api/pat alternating A, B: ten succeed, the eleventh is 429 whichever instance gets it', async () => {
    const { session } = await cluster().signIn('alice');
    const statuses: number[] = [];
    let refusal: { body: unknown; retryAfter: string | null } | undefined;
    for (let n = 0; n < PAT_LIMIT + 2; n++) {
      const instance = cluster().instances[n % 2]!;
      const res = await fetch(`${instance.url}/api/pat`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${session}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `pat ${n}`, expires_in_days: 1, scopes: [] }),
      });
      statuses.push(res.status);
      if (res.status === 429) refusal ??= { body: await res.json(), retryAfter: res.headers.get('retry-after') };
      else await res.arrayBuffer();
    }
    expect(statuses).toEqual([...Array<number>(PAT_LIMIT).fill(201), 429, 429]);
    expect(refusal!.body).toEqual({
      detail: expect.stringMatching(
        /^rate limit exceeded: at most 10 requests per minute for POST \/api\/pat; retry in \d+ s$/,
      ) as unknown,
    });
    expect(Number(refusal!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refusal!.retryAfter)).toBeLessThanOrEqual(60);
    // Ten tokens exist, not twenty.
    const identity = await cluster().identity();
    const alice = (await identity.users.find('alice'))[0]!;
    expect(await identity.pats.list(alice.id)).toHaveLength(PAT_LIMIT);
  });

  it('POST /api/oauth/device/code through the proxy: the client address it forwards is one key on both instances', async () => {
    // The proxy appends the test's address to this X-Forwarded-For; both hops are trusted, so the client is
    // 203.0.113.7 on whichever instance the round robin picks.
    const from = (address: string) => ({ 'X-Forwarded-For': address, 'Content-Type': 'application/json' });
    const statuses: number[] = [];
    const verificationUris = new Set<string>();
    for (let n = 0; n < DEVICE_CODE_LIMIT + 1; n++) {
      const res = await fetch(`${cluster().proxyUrl}/api/oauth/device/code`, {
        method: 'POST',
        headers: from('203.0.113.7'),
        body: DEVICE_REQUEST,
      });
      statuses.push(res.status);
      if (res.status === 200)
        verificationUris.add(((await res.json()) as { verification_uri: string }).verification_uri);
      else await res.arrayBuffer();
    }
    // The public base is the proxy's (X-Forwarded-Host believed from the trusted proxy), on both instances.
    expect([...verificationUris]).toEqual([`${cluster().proxyUrl}/device`]);
    expect(statuses.slice(0, DEVICE_CODE_LIMIT).every((s) => s === 200)).toBe(true);
    expect(statuses[DEVICE_CODE_LIMIT]).toBe(429);
    // Another client is not limited by that one's window.
    const other = await fetch(`${cluster().proxyUrl}/api/oauth/device/code`, {
      method: 'POST',
      headers: from('203.0.113.8'),
      body: DEVICE_REQUEST,
    });
    expect(other.status).toBe(200);
  });
});
