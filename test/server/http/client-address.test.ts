/**
 * The client address and origin (CONTRACT §1.2 `SVC_TRUSTED_PROXIES`): forwarded headers count only from trusted
 * proxies, for rate-limit keys and the public base URL alike; IPv6 clients are keyed by their /64; forwarded
 * protocols other than http/https are ignored; pending device requests have a global cap.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PENDING_REQUESTS } from '../../../src/server/auth/device.js';
import { clientKey, proxyTrust } from '../../../src/server/http/client.js';
import { authHarness, type AuthHarness } from '../auth/harness.js';
import { sql } from '../../support/user-db.js';

const SPEC = { name: 'laptop', expires_in_days: 30, scopes: ['wiki:read'] };

describe('client keys and proxy trust', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::99', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002:ffff::1%eth0', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8::1.2.3.4', '2001:db8:0:0::/64'],
  ])('%s → %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });

  it('trusts exactly the configured addresses and networks, IPv4-mapped peers included', () => {
    const trust = proxyTrust(['10.0.0.0/8', '192.0.2.1/32', 'fd00::/16']);
    expect([
      trust('10.20.30.40'),
      trust('::ffff:10.1.1.1'),
      trust('192.0.2.1'),
      trust('192.0.2.2'),
      trust('fd00:1::5'),
      trust('fe80::1'),
      trust('not an address'),
      trust(undefined),
    ]).toEqual([true, true, true, false, true, false, false, false]);
    expect(proxyTrust([])('127.0.0.1')).toBe(false);
  });
});

describe('forwarded headers', () => {
  let h: AuthHarness;
  afterEach(() => h?.close());

  const start = (remoteAddress: string, headers: Record<string, string> = {}) =>
    h.inject({ method: 'POST', url: '/api/oauth/device/code', payload: SPEC, remoteAddress, headers });

  /** Starts until the device-code limit (30 per minute per client) answers 429; how many got through. */
  async function allowance(requests: () => Promise<{ statusCode: number }>[]): Promise<number> {
    let ok = 0;
    for (const request of requests()) {
      const status = (await request).statusCode;
      if (status === 429) break;
      expect(status).toBe(200);
      ok++;
    }
    return ok;
  }

  it('without trusted proxies, X-Forwarded-For does not change the rate-limit key', async () => {
    h = await authHarness();
    const spoofed = () =>
      Array.from({ length: 31 }, (_, i) => start('198.51.100.1', { 'x-forwarded-for': `203.0.113.${i}` }));
    expect(await allowance(spoofed)).toBe(30);
  });

  it('behind a trusted proxy, each forwarded client has its own window; the proxy hop itself is skipped', async () => {
    h = await authHarness({ SVC_TRUSTED_PROXIES: '10.0.0.0/8' });
    for (let i = 0; i < 30; i++) {
      expect((await start('10.0.0.2', { 'x-forwarded-for': '203.0.113.1' })).statusCode).toBe(200);
    }
    expect((await start('10.0.0.3', { 'x-forwarded-for': '203.0.113.1' })).statusCode).toBe(429);
    // A client-supplied entry left of the real client is not believed: the key is the proxy's view.
    expect((await start('10.0.0.2', { 'x-forwarded-for': '198.51.100.9, 203.0.113.1' })).statusCode).toBe(429);
    expect((await start('10.0.0.2', { 'x-forwarded-for': '203.0.113.2' })).statusCode).toBe(200);
    // An untrusted peer's header is ignored: the peer is the client.
    expect((await start('192.0.2.50', { 'x-forwarded-for': '203.0.113.3' })).statusCode).toBe(200);
  });

  it('IPv6 clients share one window per /64', async () => {
    h = await authHarness();
    const sameNetwork = () => Array.from({ length: 31 }, (_, i) => start(`2001:db8:7:7::${(i + 1).toString(16)}`));
    expect(await allowance(sameNetwork)).toBe(30);
    expect((await start('2001:db8:7:8::1')).statusCode).toBe(200);
  });

  it('the public base URL believes X-Forwarded-Proto/-Host from a trusted proxy only, and only http/https', async () => {
    h = await authHarness({ SVC_TRUSTED_PROXIES: '10.0.0.0/8' });
    const uri = async (remoteAddress: string, headers: Record<string, string>) =>
      (await start(remoteAddress, headers)).json().verification_uri as string;
    const forwarded = { host: 'internal:4200', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'pks.example.org' };
    expect(await uri('10.1.2.3', forwarded)).toBe('https://pks.example.org/device');
    expect(await uri('192.0.2.9', forwarded)).toBe('http://internal:4200/device');
    for (const proto of ['javascript', 'ftp', 'https:', 'https://evil.example']) {
      expect(await uri('10.1.2.3', { ...forwarded, 'x-forwarded-proto': proto })).toBe('http://pks.example.org/device');
    }
    // Several proxies append: the entry nearest the server counts.
    expect(await uri('10.1.2.3', { ...forwarded, 'x-forwarded-proto': 'http, HTTPS' })).toBe(
      'https://pks.example.org/device',
    );
    // A forwarded host that is no host name is ignored.
    expect(await uri('10.1.2.3', { ...forwarded, 'x-forwarded-host': 'evil.example/path?x' })).toBe(
      'https://internal:4200/device',
    );
  });

  it(`at most ${MAX_PENDING_REQUESTS} pending device requests exist at once, whoever asks`, async () => {
    h = await authHarness();
    const expiresAt = h.clock.now() + 300_000;
    // One statement that both SQLite and PostgreSQL run: MAX_PENDING_REQUESTS - 1 pending requests.
    await sql(
      h.identity.db,
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO device_requests (id, device_code_hash, user_code, name, scopes, expires_in_days, status, created, expires_at)
       SELECT 'r' || i, 'h' || i, 'C' || (10000000 + i), 'n', '[]', 1, 'pending', ?, ? FROM n`,
      MAX_PENDING_REQUESTS - 2,
      h.clock.now(),
      expiresAt,
    );
    expect((await start('192.0.2.1')).statusCode).toBe(200); // the last place
    const full = await start('192.0.2.2');
    expect(full.statusCode).toBe(429);
    expect(full.json()).toEqual({
      detail: `too many pending device authorizations (at most ${MAX_PENDING_REQUESTS}); retry in 300 s`,
    });
    expect(full.headers['retry-after']).toBe('300');
    h.clock.advance(300_000); // the prefilled requests expire
    expect((await start('192.0.2.2')).statusCode).toBe(200);
  });
});
