import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generatePatPlaintext } from '../../../src/server/auth/pats.js';
import { randomString } from '../../../src/server/auth/random.js';
import { sql, TEST_USER_DB } from '../../support/user-db.js';
import { authHarness, bearer, settle, T0, type AuthHarness } from './harness.js';

const DAY = 86_400_000;
const spec = { name: 'ci', description: '', expiresInDays: 30, scopes: ['wiki:read'] as const };

describe('PAT plaintext', () => {
  it('is pat_ + 32 base62 characters, uniformly drawn', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      const p = generatePatPlaintext();
      expect(p).toMatch(/^pat_[A-Za-z0-9]{32}$/);
      for (const c of p.slice(4)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    // 64 000 draws over 62 symbols: ~1032 each; a modulo bias would push the first 8 symbols ~25% higher.
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(850);
      expect(n).toBeLessThan(1230);
    }
  });

  it('rejection sampling never yields characters outside the alphabet', () => {
    expect(randomString('ABC', 300)).toMatch(/^[ABC]{300}$/);
  });
});

describe('PatService', () => {
  let h: AuthHarness;
  beforeEach(async () => {
    h = await authHarness();
  });
  afterEach(() => h.close());

  it('stores only an HMAC of the plaintext, with the prefix and a mandatory expiry', async () => {
    const { user } = await h.login('alice');
    const pat = await h.identity.pats.mint(user.id, { ...spec, scopes: ['wiki:read'] });
    expect(pat.prefix).toBe(pat.plaintext.slice(0, 12));
    expect(pat.expiresAt).toBe(T0 + 30 * DAY);
    const [row] = await sql(h.identity.db, 'SELECT * FROM pat_tokens WHERE id = ?', pat.id);
    expect(row!['token_hash']).toBe(h.identity.pats.hash(pat.plaintext));
    expect(row!['token_hash']).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(pat.plaintext);
    expect(row!['id']).toMatch(/^[a-z0-9]{15}$/);
  });

  it('verifies to a pat principal with the stored scopes; expired, revoked and unknown tokens fail', async () => {
    const { user } = await h.login('alice');
    const pat = await h.identity.pats.mint(user.id, { ...spec, scopes: ['wiki:read', 'graph:read'] });
    expect(await h.identity.pats.verify(pat.plaintext, false)).toEqual({
      source: 'pat',
      userId: user.id,
      login: 'alice',
      scopes: ['wiki:read', 'graph:read'],
    });
    expect(await h.identity.pats.verify('pat_' + 'x'.repeat(32), false)).toBeNull();
    expect(await h.identity.pats.verify('pat_short', false)).toBeNull();
    h.clock.advance(30 * DAY); // expiry re-checked on a cache hit
    expect(await h.identity.pats.verify(pat.plaintext, false)).toBeNull();
    const other = await h.identity.pats.mint(user.id, spec);
    expect(await h.identity.pats.verify(other.plaintext, false)).not.toBeNull();
    await h.identity.pats.revoke(other.id);
    expect(await h.identity.pats.verify(other.plaintext, false)).toBeNull(); // cache purged on revoke
  });

  it('a corrupt, null or non-list stored scope value means no scopes (never an error)', async () => {
    const { user } = await h.login('alice');
    for (const raw of ['{not json', 'null', '"wiki:read"', '{"a":1}', null]) {
      const pat = await h.identity.pats.mint(user.id, spec);
      await sql(h.identity.db, 'UPDATE pat_tokens SET scopes = ? WHERE id = ?', raw, pat.id);
      expect((await h.identity.pats.verify(pat.plaintext, false))?.scopes).toEqual([]);
    }
  });

  it('unknown stored scopes cover nothing and are dropped', async () => {
    const { user } = await h.login('alice');
    const pat = await h.identity.pats.mint(user.id, spec);
    await sql(h.identity.db, 'UPDATE pat_tokens SET scopes = ? WHERE id = ?', '["admin","*","papers:read"]', pat.id);
    expect((await h.identity.pats.verify(pat.plaintext, false))?.scopes).toEqual(['papers:read']);
  });

  it('updates last_used_at asynchronously, not updated, and not at all when touch is false', async () => {
    const { user } = await h.login('alice');
    const pat = await h.identity.pats.mint(user.id, spec);
    h.clock.advance(5_000);
    await h.identity.pats.verify(pat.plaintext, false);
    await settle();
    expect((await h.identity.pats.get(pat.id))!.lastUsedAt).toBeNull();
    await h.identity.pats.verify(pat.plaintext, true);
    // The write is a database round trip of its own (on PostgreSQL more than one turn of the event loop).
    await expect.poll(async () => (await h.identity.pats.get(pat.id))!.lastUsedAt).toBe(T0 + 5_000);
    const after = (await h.identity.pats.get(pat.id))!;
    expect(after.updated).toBe(T0);
  });

  it('serves repeated checks from the cache (one database lookup per minute)', async () => {
    const { user } = await h.login('alice');
    const pat = await h.identity.pats.mint(user.id, spec);
    expect(await h.identity.pats.verify(pat.plaintext, false)).not.toBeNull();
    // Delete behind the service's back: the cached entry still answers until its 60 s TTL lapses. (PostgreSQL's
    // credential revision moves on any delete, this connection's too, so there the entry goes at once.)
    await sql(h.identity.db, 'DELETE FROM pat_tokens WHERE id = ?', pat.id);
    const cached = await h.identity.pats.verify(pat.plaintext, false);
    if (h.identity.db.backend === 'sqlite') expect(cached).not.toBeNull();
    else expect(cached).toBeNull();
    h.clock.advance(60_000);
    expect(await h.identity.pats.verify(pat.plaintext, false)).toBeNull();
  });

  it('deleting a user removes its PATs and purges them from the cache', async () => {
    const { user } = await h.login('alice');
    const pat = await h.identity.pats.mint(user.id, spec);
    expect(await h.identity.pats.verify(pat.plaintext, false)).not.toBeNull();
    expect(await h.identity.deleteUser(user.id)).toBe(true);
    expect(await h.identity.pats.verify(pat.plaintext, false)).toBeNull();
    expect(await h.identity.pats.get(pat.id)).toBeNull();
  });
});

describe('instance binding', () => {
  it('a PAT and a session minted on instance A are 401 on instance B', async () => {
    const a = await authHarness();
    const b = await authHarness();
    try {
      const { user, token } = await a.login('alice');
      await b.login('alice'); // same IdP identity, same user id, different token key and secret
      const pat = await a.identity.pats.mint(user.id, { ...spec, scopes: ['wiki:read'] });
      for (const t of [pat.plaintext, token]) {
        const res = await b.inject({ method: 'GET', url: '/api/pat', headers: bearer(t) });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ detail: 'invalid or expired credential' });
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
      expect((await a.inject({ method: 'GET', url: '/api/pat', headers: bearer(token) })).statusCode).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  // The embedded database's key is a file beside it; in PostgreSQL the key is in the database every instance shares.
  it.skipIf(TEST_USER_DB === 'postgres')(
    "a copy of instance A's SQLite database on instance B does not make A's PATs valid there",
    async () => {
      const dirA = mkdtempSync(path.join(os.tmpdir(), 'pksd-auth-a-'));
      const dirB = mkdtempSync(path.join(os.tmpdir(), 'pksd-auth-b-'));
      try {
        const a = await authHarness({}, { dir: dirA });
        const { user } = await a.login('alice');
        const pat = await a.identity.pats.mint(user.id, { ...spec, scopes: ['wiki:read'] });
        await a.close();
        // B was set up from the same origin: its database is a copy of A's, but it has its own instance key.
        mkdirSync(path.join(dirB, 'pb_data'), { recursive: true });
        copyFileSync(path.join(dirA, 'pb_data', 'pksd.db'), path.join(dirB, 'pb_data', 'pksd.db'));
        const b = await authHarness({}, { dir: dirB });
        try {
          expect(await b.identity.pats.get(pat.id)).not.toBeNull();
          const res = await b.inject({ method: 'GET', url: '/api/pages', headers: bearer(pat.plaintext) });
          expect(res.statusCode).toBe(401);
        } finally {
          await b.close();
        }
      } finally {
        rmSync(dirA, { recursive: true, force: true });
        rmSync(dirB, { recursive: true, force: true });
      }
    },
  );

  it('the same database directory keeps its secret across restarts', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pksd-auth-'));
    try {
      const a = await authHarness({}, { dir });
      const { user } = await a.login('alice');
      const pat = await a.identity.pats.mint(user.id, spec);
      await a.close();
      const b = await authHarness({}, { dir });
      expect((await b.identity.pats.verify(pat.plaintext, false))?.userId).toBe(user.id);
      await b.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
