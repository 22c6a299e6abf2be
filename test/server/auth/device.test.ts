import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { normalizeUserCode } from '../../../src/server/auth/device.js';
import { SCOPES } from '../../../src/shared/scopes.js';
import { authHarness, bearer, SYSTEM_PAT, T0, type AuthHarness } from './harness.js';
import { sql } from '../../support/user-db.js';

const SPEC = { name: 'pks-cli-host-2026-05-01', expires_in_days: 90, scopes: ['wiki:read'] };

describe('device authorization flow', () => {
  let h: AuthHarness;
  let alice: Awaited<ReturnType<AuthHarness['login']>>;

  const start = async (payload: object = SPEC, headers: Record<string, string> = {}) => {
    const res = await h.inject({ method: 'POST', url: '/api/oauth/device/code', payload, headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as {
      device_code: string;
      user_code: string;
      verification_uri: string;
      verification_uri_complete: string;
    };
  };
  const poll = (device_code: unknown) =>
    h.inject({
      method: 'POST',
      url: '/api/oauth/device/token',
      payload: device_code === undefined ? {} : { device_code },
    });
  const approve = (payload: object, token = alice.token) =>
    h.inject({ method: 'POST', url: '/api/oauth/device/approve', headers: bearer(token), payload });
  const deny = (user_code: string, token = alice.token) =>
    h.inject({ method: 'POST', url: '/api/oauth/device/deny', headers: bearer(token), payload: { user_code } });
  const lookup = (user_code: string, token = alice.token) =>
    h.inject({
      method: 'GET',
      url: `/api/oauth/device/code?user_code=${encodeURIComponent(user_code)}`,
      headers: bearer(token),
    });

  beforeEach(async () => {
    h = await authHarness({ SVC_PUBLIC_URL: 'https://pks.example.org' });
    alice = await h.login('alice');
  });
  afterEach(() => h.close());

  it('created: POST device/code returns the codes (state pending)', async () => {
    const res = await h.inject({ method: 'POST', url: '/api/oauth/device/code', payload: SPEC });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_code: expect.stringMatching(/^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{4}-[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{4}$/),
      verification_uri: 'https://pks.example.org/device',
      verification_uri_complete: `https://pks.example.org/device?user_code=${body.user_code}`,
      expires_in: 600,
      interval: 5,
    });
    const [row] = await sql(h.identity.db, 'SELECT * FROM device_requests');
    expect(row!['status']).toBe('pending');
    expect(JSON.stringify(row)).not.toContain(body.device_code); // stored only as sha256
  });

  it('pending + token poll → 400 authorization_pending', async () => {
    const { device_code } = await start();
    const res = await poll(device_code);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'authorization_pending' });
  });

  it('pending + token poll faster than interval → 400 slow_down (the poll counts and restarts the interval)', async () => {
    const { device_code } = await start();
    await poll(device_code);
    h.clock.advance(4_499);
    expect((await poll(device_code)).json()).toEqual({ error: 'slow_down' });
    h.clock.advance(4_499);
    expect((await poll(device_code)).json()).toEqual({ error: 'slow_down' });
    h.clock.advance(4_500);
    expect((await poll(device_code)).json()).toEqual({ error: 'authorization_pending' });
  });

  it('pending + approve → approved; the next poll mints the PAT with the overridden spec, for the approver, exactly once', async () => {
    const { device_code, user_code } = await start();
    const res = await approve({
      user_code: user_code.toLowerCase().replace('-', ' '),
      name: 'edited',
      scopes: ['graph:read', 'papers:write'],
      expires_in_days: 7,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      status: 'approved',
      user_code,
      name: 'edited',
      scopes: ['graph:read', 'papers:write'],
      expires_in_days: 7,
    });
    h.clock.advance(30_000); // expiry counts from mint time
    const token = await poll(device_code);
    expect(token.statusCode).toBe(200);
    const body = token.json();
    expect(body).toEqual({
      access_token: body.plaintext,
      token_type: 'Bearer',
      expires_in: 7 * 86_400,
      pat_id: expect.stringMatching(/^[a-z0-9]{15}$/),
      name: 'edited',
      prefix: body.plaintext.slice(0, 12),
      plaintext: expect.stringMatching(/^pat_[A-Za-z0-9]{32}$/),
      scopes: ['graph:read', 'papers:write'],
      expires_at: new Date(T0 + 30_000 + 7 * 86_400_000).toISOString().replace('.000', ''),
    });
    expect(await h.identity.pats.verify(body.plaintext, false)).toMatchObject({
      userId: alice.user.id,
      scopes: ['graph:read', 'papers:write'],
    });
    h.clock.advance(5_000);
    expect((await poll(device_code)).json()).toEqual({ error: 'invalid_grant' }); // consumed
    expect((await lookup(user_code)).json().status).toBe('consumed');
  });

  it('approve without overrides keeps the seeded spec', async () => {
    const { device_code, user_code } = await start();
    expect((await approve({ user_code })).statusCode).toBe(200);
    const body = (await poll(device_code)).json();
    expect(body).toMatchObject({ name: SPEC.name, scopes: SPEC.scopes, expires_in: 90 * 86_400 });
  });

  it('pending + deny → denied; the next poll → 400 access_denied', async () => {
    const { device_code, user_code } = await start();
    const res = await deny(user_code);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, status: 'denied', user_code });
    const polled = await poll(device_code);
    expect(polled.statusCode).toBe(400);
    expect(polled.json()).toEqual({ error: 'access_denied' });
    expect((await approve({ user_code })).statusCode).toBe(409);
  });

  it('pending + lifetime elapses → expired_token; approve/deny then 410; lookup reports expired', async () => {
    const { device_code, user_code } = await start();
    h.clock.advance(600_000);
    expect((await lookup(user_code)).json()).toMatchObject({ status: 'expired' });
    const res = await approve({ user_code });
    expect(res.statusCode).toBe(410);
    expect(res.json()).toEqual({ detail: 'device code expired' });
    expect((await deny(user_code)).statusCode).toBe(410);
    const polled = await poll(device_code);
    expect(polled.statusCode).toBe(400);
    expect(polled.json()).toEqual({ error: 'expired_token' });
  });

  it('more than 150 polls → expired_token', async () => {
    const { device_code } = await start();
    for (let i = 0; i < 150; i++) {
      h.clock.advance(1_000); // before the 600 s lifetime: 150 polls at 1 s spacing → slow_down after the first
      await poll(device_code);
    }
    expect((await poll(device_code)).json()).toEqual({ error: 'expired_token' });
  });

  it.each([
    ['unknown', 'A'.repeat(43)],
    ['missing', undefined],
    ['malformed', 'not a code'],
    ['non-string', 42],
  ])('any + %s device_code → 400 invalid_grant', async (_label, code) => {
    await start();
    const res = await poll(code);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_grant' });
  });

  it('accepts the RFC 8628 form body', async () => {
    const { device_code, user_code } = await start();
    await approve({ user_code });
    const res = await h.inject({
      method: 'POST',
      url: '/api/oauth/device/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `device_code=${device_code}&grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().token_type).toBe('Bearer');
  });

  it('accepts the client authentication fields every RFC 8628 client sends (client_id, client_secret)', async () => {
    const { device_code, user_code } = await start();
    const form = (extra: string) =>
      h.inject({
        method: 'POST',
        url: '/api/oauth/device/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `device_code=${device_code}&grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code${extra}`,
      });
    expect((await form('&client_id=pks-cli')).json()).toEqual({ error: 'authorization_pending' });
    h.clock.advance(5_000);
    await approve({ user_code });
    const json = await h.inject({
      method: 'POST',
      url: '/api/oauth/device/token',
      payload: {
        device_code,
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        client_id: 'pks-cli',
        client_secret: '',
      },
    });
    expect(json.statusCode).toBe(200);
    expect(json.json().token_type).toBe('Bearer');
    // A field no OAuth client sends is still refused, in the contract's `{detail}` shape.
    const odd = await h.inject({
      method: 'POST',
      url: '/api/oauth/device/token',
      payload: { device_code, colour: 'red' },
    });
    expect(odd.statusCode).toBe(400);
    expect(odd.json()).toEqual({ detail: "unknown field 'colour'" });
  });

  it('a token request the body parser or schema refuses answers `{detail}`, not a poll error', async () => {
    const send = (payload: string, type: string) =>
      h.inject({ method: 'POST', url: '/api/oauth/device/token', headers: { 'content-type': type }, payload });
    const broken = await send('{"device_code":', 'application/json');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().detail).toMatch(/^parse body: /);
    const list = await send('[1]', 'application/json');
    expect(list.statusCode).toBe(400);
    expect(list.json()).toEqual({ detail: 'body: must be object' });
    const text = await send('device_code=x', 'text/plain');
    expect(text.statusCode).toBe(400);
    expect(text.json()).toEqual({ detail: 'body: must be object' });
  });

  it('device/code validates the PAT spec like POST /api/pat and caps the body at 16 KiB', async () => {
    const bad = await h.inject({ method: 'POST', url: '/api/oauth/device/code', payload: { ...SPEC, scopes: ['*'] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ detail: 'wildcard scope is not allowed' });
    const unknown = await h.inject({ method: 'POST', url: '/api/oauth/device/code', payload: { ...SPEC, extra: 1 } });
    expect(unknown.json()).toEqual({ detail: "unknown field 'extra'" });
    const big = await h.inject({
      method: 'POST',
      url: '/api/oauth/device/code',
      payload: { ...SPEC, description: 'x'.repeat(17_000) },
    });
    expect(big.statusCode).toBe(413);
  });

  it('verification_uri falls back to Host, and to X-Forwarded-Proto/-Host from a trusted proxy only', async () => {
    const forwarded = { host: 'internal', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'pks.example.net' };
    const startWith = async (h: AuthHarness, headers: Record<string, string>) =>
      (await h.inject({ method: 'POST', url: '/api/oauth/device/code', payload: SPEC, headers })).json();
    const direct = await authHarness();
    try {
      expect((await startWith(direct, { host: 'pks.local:4200' })).verification_uri).toBe(
        'http://pks.local:4200/device',
      );
      // The peer (127.0.0.1) is no trusted proxy: its forwarded headers are not believed.
      expect((await startWith(direct, forwarded)).verification_uri).toBe('http://internal/device');
    } finally {
      await direct.close();
    }
    const proxied = await authHarness({ SVC_TRUSTED_PROXIES: '127.0.0.0/8' });
    try {
      const b = await startWith(proxied, forwarded);
      expect(b.verification_uri_complete).toBe(`https://pks.example.net/device?user_code=${b.user_code}`);
    } finally {
      await proxied.close();
    }
  });

  it('GET device/code?user_code= shows the pending request with the vocabulary', async () => {
    const startedAt = h.clock.now();
    const { user_code } = await start({ ...SPEC, description: 'my laptop' });
    const res = await lookup(user_code.replace('-', ''));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      user_code,
      name: SPEC.name,
      description: 'my laptop',
      scopes: ['wiki:read'],
      expires_in_days: 90,
      status: 'pending',
      available_scopes: SCOPES.map((s) => s.name),
      scope_descriptions: Object.fromEntries(SCOPES.map((s) => [s.name, s.description])),
      max_expiry_days: 365,
      expires_at: new Date(startedAt + 600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
  });

  it('user codes: malformed → 400 invalid user_code, unknown → 404; overrides validated as PAT create', async () => {
    const { user_code } = await start();
    expect((await lookup('ABCD-EFG0')).json()).toEqual({ detail: 'invalid user_code' });
    const unknown = await lookup('ABCD-EFGH');
    expect(unknown.statusCode).toBe(user_code === 'ABCD-EFGH' ? 200 : 404);
    const bad = await approve({ user_code, expires_in_days: 400 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ detail: 'expires_in_days exceeds maximum of 365 (one year)' });
    expect((await approve({ user_code, scopes: ['nope'] })).json()).toEqual({ detail: 'unknown scope "nope"' });
    expect((await lookup(user_code)).json().status).toBe('pending'); // a bad override changes nothing
  });

  it('device session routes refuse PATs and the system PAT (403) and anonymous callers (401)', async () => {
    const { user_code } = await start();
    const pat = await h.identity.pats.mint(alice.user.id, {
      name: 'p',
      description: '',
      expiresInDays: 1,
      scopes: ['wiki:read'],
    });
    for (const token of [pat.plaintext, SYSTEM_PAT]) {
      expect((await lookup(user_code, token)).statusCode).toBe(403);
      expect((await approve({ user_code }, token)).statusCode).toBe(403);
      expect((await deny(user_code, token)).statusCode).toBe(403);
    }
    expect(
      (await h.inject({ method: 'POST', url: '/api/oauth/device/approve', payload: { user_code } })).statusCode,
    ).toBe(401);
  });

  it('5 failed user-code attempts per minute per session; the 6th and every further device request → 429', async () => {
    const { user_code } = await start();
    expect((await lookup('ZZZZ-ZZZZ')).statusCode).toBe(404);
    expect((await lookup('bad')).statusCode).toBe(400);
    expect((await approve({ user_code: 'YYYY-YYYY' })).statusCode).toBe(404);
    expect((await deny('XXXX-XXXX')).statusCode).toBe(404);
    expect((await approve({ user_code: '' })).statusCode).toBe(400);
    const sixth = await lookup('WWWW-WWWW');
    expect(sixth.statusCode).toBe(429);
    expect(sixth.headers['retry-after']).toBe('60');
    expect(sixth.json().detail).toMatch(/^rate limit exceeded: at most 5 requests per minute for .+; retry in 60 s$/);
    expect((await lookup(user_code)).statusCode).toBe(429); // even a valid code, within the window
    expect((await lookup(user_code, (await h.login('bob')).token)).statusCode).toBe(200); // per user
    h.clock.advance(60_000);
    expect((await lookup(user_code)).statusCode).toBe(200);
  });

  it('POST device/code: 30 per minute per client IP', async () => {
    for (let i = 0; i < 30; i++) await start();
    const res = await h.inject({ method: 'POST', url: '/api/oauth/device/code', payload: SPEC });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('60');
    const other = await h.inject({
      method: 'POST',
      url: '/api/oauth/device/code',
      payload: SPEC,
      remoteAddress: '10.1.2.3',
    });
    expect(other.statusCode).toBe(200);
  });

  it('cleanup deletes requests expired for more than a day', async () => {
    await start();
    h.clock.advance(600_000 + 86_400_000);
    await start();
    expect(await h.identity.devices.cleanup()).toBe(0);
    h.clock.advance(1);
    expect(await h.identity.devices.cleanup()).toBe(1);
  });
});

describe('normalizeUserCode', () => {
  it.each([
    ['abcd-efgh', 'ABCDEFGH'],
    [' ABCD EFGH ', 'ABCDEFGH'],
    ['ab.cd_ef-gh', 'ABCDEFGH'],
    ['ABCD-EFG0', null],
    ['ABCD-EFGI', null],
    ['ABCD-EFG', null],
    ['ABCD-EFGHJ', null],
  ])('%s → %s', (raw, expected) => {
    expect(normalizeUserCode(raw)).toBe(expected);
  });
});
