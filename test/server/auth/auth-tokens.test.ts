import { describe, expect, it } from 'vitest';
import { AuthTokenIssuer } from '../../../src/server/auth/auth-tokens.js';
import { decodeJwtUnverified, signJwt } from '../../../src/server/auth/jwt.js';
import { TestClock, T0 } from './harness.js';

const SECRET = Buffer.alloc(32, 7);
/** Tokens that are not renewed: one lifetime, no sign-in time. */
const fixed = (lifetimeSeconds: number) => ({ lifetimeSeconds, maxAgeSeconds: null });

describe('the one PocketBase-style token issuer (sessions and superusers)', () => {
  const clock = new TestClock();
  const holders = new Map([['u1', { id: 'u1', tokenKey: 'key-1' }]]);
  const holderOf = async (id: string) => holders.get(id) ?? null;
  const users = new AuthTokenIssuer('_pb_users_auth_', fixed(1_209_600), SECRET, clock.now, holderOf);
  const admins = new AuthTokenIssuer('pbc_3142635823', fixed(86_400), SECRET, clock.now, holderOf);

  it('issues HS256 tokens with the PocketBase claims and the collection lifetime', async () => {
    const token = users.issue(holders.get('u1')!);
    const iat = Math.floor(T0 / 1000);
    expect(decodeJwtUnverified(token)).toEqual({
      id: 'u1',
      type: 'auth',
      collectionId: '_pb_users_auth_',
      refreshable: true,
      iat,
      exp: iat + 1_209_600,
    });
    expect(decodeJwtUnverified(admins.issue(holders.get('u1')!))!['exp']).toBe(iat + 86_400);
    expect(await users.verify(token)).toEqual(holders.get('u1'));
  });

  it('a token of one collection is no token of another', async () => {
    expect(await admins.verify(users.issue(holders.get('u1')!))).toBeNull();
    expect(await users.verify(admins.issue(holders.get('u1')!))).toBeNull();
  });

  it('refuses expired, tampered, foreign-keyed and revoked tokens', async () => {
    const local = new TestClock();
    const issuer = new AuthTokenIssuer('c', fixed(60), SECRET, local.now, async (id) => holders.get(id) ?? null);
    const token = issuer.issue(holders.get('u1')!);
    local.advance(59_000);
    expect(await issuer.verify(token)).not.toBeNull();
    local.advance(1_000);
    expect(await issuer.verify(token)).toBeNull();

    const fresh = issuer.issue(holders.get('u1')!);
    const [h, p] = fresh.split('.');
    expect(await issuer.verify(`${h}.${p}.${'A'.repeat(43)}`)).toBeNull();
    const claims = decodeJwtUnverified(fresh)!;
    expect(await issuer.verify(signJwt(claims, Buffer.alloc(32, 8)))).toBeNull();
    expect(await issuer.verify(signJwt({ ...claims, id: 'nobody' }, SECRET))).toBeNull();
    holders.set('u1', { id: 'u1', tokenKey: 'rotated' });
    expect(await issuer.verify(fresh)).toBeNull();
  });

  it('renewable tokens carry the sign-in time and never outlive it by more than the absolute lifetime', async () => {
    const local = new TestClock();
    const holder = { id: 's1', tokenKey: 'k' };
    const issuer = new AuthTokenIssuer(
      's',
      { lifetimeSeconds: 100, maxAgeSeconds: 250 },
      SECRET,
      local.now,
      async () => holder,
    );
    const first = issuer.issue(holder);
    const signedIn = Math.floor(T0 / 1000);
    expect(decodeJwtUnverified(first)).toMatchObject({ iat: signedIn, exp: signedIn + 100, auth_time: signedIn });
    local.advance(90_000);
    const second = issuer.issue(holder, (await issuer.verifyToken(first))!.authTime);
    expect(decodeJwtUnverified(second)).toMatchObject({ exp: signedIn + 190, auth_time: signedIn });
    local.advance(90_000);
    const third = issuer.issue(holder, (await issuer.verifyToken(second))!.authTime);
    expect(decodeJwtUnverified(third)).toMatchObject({ exp: signedIn + 250, auth_time: signedIn }); // capped
    local.advance(69_000);
    expect(await issuer.verify(third)).toEqual(holder);
    local.advance(1_000);
    expect(await issuer.verify(third)).toBeNull();
    // A forged later exp does not help: the sign-in time still ends it (the signature is checked too).
    const claims = decodeJwtUnverified(third)!;
    expect(
      await issuer.verify(signJwt({ ...claims, exp: signedIn + 10_000 }, Buffer.concat([SECRET, Buffer.from('k')]))),
    ).toBeNull();
  });
});
