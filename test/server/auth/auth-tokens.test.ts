import { describe, expect, it } from 'vitest';
import { AuthTokenIssuer } from '../../../src/server/auth/auth-tokens.js';
import { decodeJwtUnverified, signJwt } from '../../../src/server/auth/jwt.js';
import { TestClock, T0 } from './harness.js';

const SECRET = Buffer.alloc(32, 7);

describe('the one PocketBase-style token issuer (sessions and superusers)', () => {
  const clock = new TestClock();
  const holders = new Map([['u1', { id: 'u1', tokenKey: 'key-1' }]]);
  const users = new AuthTokenIssuer('_pb_users_auth_', 1_209_600, SECRET, clock.now, (id) => holders.get(id) ?? null);
  const admins = new AuthTokenIssuer('pbc_3142635823', 86_400, SECRET, clock.now, (id) => holders.get(id) ?? null);

  it('issues HS256 tokens with the PocketBase claims and the collection lifetime', () => {
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
    expect(users.verify(token)).toEqual(holders.get('u1'));
  });

  it('a token of one collection is no token of another', () => {
    expect(admins.verify(users.issue(holders.get('u1')!))).toBeNull();
    expect(users.verify(admins.issue(holders.get('u1')!))).toBeNull();
  });

  it('refuses expired, tampered, foreign-keyed and revoked tokens', () => {
    const local = new TestClock();
    const issuer = new AuthTokenIssuer('c', 60, SECRET, local.now, (id) => holders.get(id) ?? null);
    const token = issuer.issue(holders.get('u1')!);
    local.advance(59_000);
    expect(issuer.verify(token)).not.toBeNull();
    local.advance(1_000);
    expect(issuer.verify(token)).toBeNull();

    const fresh = issuer.issue(holders.get('u1')!);
    const [h, p] = fresh.split('.');
    expect(issuer.verify(`${h}.${p}.${'A'.repeat(43)}`)).toBeNull();
    const claims = decodeJwtUnverified(fresh)!;
    expect(issuer.verify(signJwt(claims, Buffer.alloc(32, 8)))).toBeNull();
    expect(issuer.verify(signJwt({ ...claims, id: 'nobody' }, SECRET))).toBeNull();
    holders.set('u1', { id: 'u1', tokenKey: 'rotated' });
    expect(issuer.verify(fresh)).toBeNull();
  });
});
