/**
 * The user-database contract (CONTRACT §21): what every adapter of the port in src/server/db/user-database.ts must
 * do, written once and run against each adapter on a real backend (user-database.test.ts). `open` gives a fresh,
 * empty, migrated database; `reopen` a second connection to the same one (another process or instance).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeviceRow, PatRow, SuperuserRow, UserDatabase, UserRow } from '../../../src/server/db/user-database.js';
import { NEWEST_SCHEMA } from './newest-schema.js';
import type { CachedPaper } from '../../../src/server/papers/metadata/metadata-cache.js';

export interface ContractBackend {
  /** A fresh, empty database (migrated). */
  open(): Promise<UserDatabase>;
  /** Another connection to the database `db` was opened on. */
  reopen(db: UserDatabase): Promise<UserDatabase>;
}

const user = (id: string, over: Partial<UserRow> = {}): UserRow => ({
  id,
  email: `${id}@example.org`,
  name: `Name ${id}`,
  login: id,
  avatar: '',
  provider: 'github',
  providerUserId: `gh-${id}`,
  tokenKey: `key-${id}`,
  created: 1_000,
  updated: 1_000,
  ...over,
});

const pat = (id: string, userId: string, over: Partial<PatRow> = {}): PatRow => ({
  id,
  userId,
  name: `pat ${id}`,
  description: '',
  prefix: 'pat_abcdefgh',
  tokenHash: `hash-${id}`,
  scopes: '["wiki:read"]',
  expiresAt: 10_000_000,
  lastUsedAt: null,
  created: 2_000,
  updated: 2_000,
  ...over,
});

const device = (id: string, over: Partial<DeviceRow> = {}): DeviceRow => ({
  id,
  deviceCodeHash: `dch-${id}`,
  userCode: `CODE${id.padStart(4, '0')}`.slice(0, 8),
  name: 'laptop',
  description: '',
  scopes: '["papers:read"]',
  expiresInDays: 30,
  status: 'pending',
  approvedBy: null,
  patId: null,
  pollCount: 0,
  lastPollAt: null,
  created: 5_000,
  expiresAt: 605_000,
  ...over,
});

const superuser = (id: string, email: string): SuperuserRow => ({
  id,
  email,
  passwordHash: `scrypt$hash-${id}`,
  tokenKey: `su-key-${id}`,
  created: 3_000,
  updated: 3_000,
});

const paper = (id: string, over: Partial<CachedPaper['metadata']> = {}): CachedPaper => ({
  preprintId: id,
  metadata: {
    title: `Title ${id}`,
    authors: ['A. Author', 'B. Author'],
    abstract: 'An abstract.',
    published: '2025-01-02',
    doi: null,
    openalex_id: null,
    cited_by_count: null,
    source: 'arxiv',
    ...over,
  },
});

export function userDatabaseContract(name: string, backend: ContractBackend): void {
  describe(`user database contract: ${name}`, () => {
    let db: UserDatabase;
    const opened: UserDatabase[] = [];
    beforeEach(async () => {
      db = await backend.open();
      opened.push(db);
    });
    afterEach(async () => {
      for (const d of opened.splice(0)) await d.close();
    });
    const second = async () => {
      const d = await backend.reopen(db);
      opened.push(d);
      return d;
    };

    it('is migrated to the newest schema version and answers a ping', async () => {
      expect(await db.schemaVersion()).toBe(NEWEST_SCHEMA);
      await expect(db.ping()).resolves.toBeUndefined();
      expect(db.backend).toBe(name);
    });

    it('users: upsert inserts, then refreshes profile fields only; get, find, list, count, delete', async () => {
      expect(await db.users.get('u1')).toBeNull();
      const first = await db.users.upsert(user('u1', { login: 'Alice', email: 'Alice@Example.org' }));
      expect(first).toEqual({ user: user('u1', { login: 'Alice', email: 'Alice@Example.org' }), isNew: true });
      const again = await db.users.upsert(
        user('u1', {
          login: 'alice2',
          email: 'new@example.org',
          name: 'New',
          tokenKey: 'other',
          created: 9,
          updated: 5_000,
        }),
      );
      // Profile fields and `updated` change; the token key and creation time stay.
      expect(again).toEqual({
        user: user('u1', { login: 'alice2', email: 'new@example.org', name: 'New', updated: 5_000 }),
        isNew: false,
      });
      await db.users.upsert(user('u2', { created: 500, login: 'bob', email: 'shared@example.org' }));
      await db.users.upsert(user('u3', { created: 1_500, login: 'carol', email: 'SHARED@example.org' }));
      expect((await db.users.findByLoginOrEmail('ALICE2')).map((u) => u.id)).toEqual(['u1']);
      expect((await db.users.findByLoginOrEmail('shared@EXAMPLE.org')).map((u) => u.id)).toEqual(['u2', 'u3']);
      expect(await db.users.findByLoginOrEmail('nobody')).toEqual([]);
      expect((await db.users.list(null, 0)).map((u) => u.id)).toEqual(['u2', 'u1', 'u3']);
      expect((await db.users.list(1, 1)).map((u) => u.id)).toEqual(['u1']);
      expect(await db.users.count()).toBe(3);
      expect(await db.users.setTokenKey('u1', 'rotated', 6_000)).toBe(true);
      expect(await db.users.get('u1')).toMatchObject({ tokenKey: 'rotated', updated: 6_000 });
      expect(await db.users.setTokenKey('missing', 'x', 1)).toBe(false);
      expect(await db.users.delete('u1')).toBe(true);
      expect(await db.users.delete('u1')).toBe(false);
      expect(await db.users.count()).toBe(2);
    });

    it('PATs: insert, get, list newest first, credential with the login, touch, delete; a user takes its PATs', async () => {
      await db.users.upsert(user('u1'));
      await db.users.upsert(user('u2'));
      await db.pats.insert(pat('p1', 'u1'));
      await db.pats.insert(pat('p2', 'u1')); // same `created`: the later insert lists first
      await db.pats.insert(pat('p3', 'u2', { created: 1_000, scopes: null }));
      expect(await db.pats.get('p1')).toEqual(pat('p1', 'u1'));
      expect((await db.pats.list()).map((p) => p.id)).toEqual(['p2', 'p1', 'p3']);
      expect((await db.pats.list('u1')).map((p) => p.id)).toEqual(['p2', 'p1']);
      expect(await db.pats.get('p3')).toMatchObject({ scopes: null });
      expect(await db.pats.credential('hash-p1')).toEqual({
        id: 'p1',
        userId: 'u1',
        login: 'u1',
        scopes: '["wiki:read"]',
        expiresAt: 10_000_000,
      });
      expect(await db.pats.credential('hash-none')).toBeNull();
      await db.pats.touch('p1', 7_777);
      expect(await db.pats.get('p1')).toMatchObject({ lastUsedAt: 7_777, updated: 2_000 });
      expect(await db.pats.delete('p2')).toEqual(pat('p2', 'u1'));
      expect(await db.pats.delete('p2')).toBeNull();
      expect((await db.pats.tokenHashesOf('u1')).sort()).toEqual(['hash-p1']);
      await db.users.delete('u1');
      expect(await db.pats.get('p1')).toBeNull();
      expect((await db.pats.list()).map((p) => p.id)).toEqual(['p3']);
    });

    it('a token hash is unique', async () => {
      await db.users.upsert(user('u1'));
      await db.pats.insert(pat('p1', 'u1'));
      await expect(db.pats.insert(pat('p2', 'u1', { tokenHash: 'hash-p1' }))).rejects.toThrow();
    });

    it('the PAT revision moves when another connection revokes a PAT or deletes a user', async () => {
      await db.users.upsert(user('u1'));
      await db.pats.insert(pat('p1', 'u1'));
      await db.pats.insert(pat('p2', 'u1'));
      const other = await second();
      const before = await db.pats.revision();
      expect(await db.pats.revision()).toEqual(before); // stable while nothing happens
      await other.pats.delete('p1');
      const afterRevoke = await db.pats.revision();
      expect(afterRevoke).not.toEqual(before);
      await other.users.delete('u1');
      expect(await db.pats.revision()).not.toEqual(afterRevoke);
    });

    it('device requests: pending count, live user codes, atomic polls, conditional status changes', async () => {
      await db.users.upsert(user('u1'));
      await db.devices.insert(device('1'));
      await db.devices.insert(device('2', { expiresAt: 300_000 }));
      await db.devices.insert(device('3', { status: 'denied' }));
      expect(await db.devices.pending(10_000)).toEqual({ count: 2, firstExpiry: 300_000 });
      expect(await db.devices.pending(400_000)).toEqual({ count: 1, firstExpiry: 605_000 });
      expect(await db.devices.pending(700_000)).toEqual({ count: 0, firstExpiry: null });
      expect(await db.devices.userCodeLive(device('1').userCode, 10_000)).toBe(true);
      expect(await db.devices.userCodeLive(device('3').userCode, 10_000)).toBe(false); // denied
      expect(await db.devices.userCodeLive(device('1').userCode, 700_000)).toBe(false); // expired

      // A poll returns the row as it was and counts itself.
      expect(await db.devices.registerPoll('dch-1', 20_000)).toEqual(device('1'));
      expect(await db.devices.registerPoll('dch-1', 30_000)).toMatchObject({ pollCount: 1, lastPollAt: 20_000 });
      expect(await db.devices.registerPoll('dch-unknown', 30_000)).toBeNull();

      expect(await db.devices.approve('1', 'u1', 'edited', '["wiki:read"]', 7)).toBe(true);
      expect(await db.devices.approve('1', 'u1', 'again', '[]', 1)).toBe(false); // no longer pending
      expect(await db.devices.latestByUserCode(device('1').userCode)).toMatchObject({
        status: 'approved',
        approvedBy: 'u1',
        name: 'edited',
        scopes: '["wiki:read"]',
        expiresInDays: 7,
        pollCount: 2,
      });
      // Exactly one of two concurrent consumers wins.
      const wins = await Promise.all([
        db.devices.setStatus('1', 'consumed', 'approved'),
        db.devices.setStatus('1', 'consumed', 'approved'),
      ]);
      expect(wins.filter(Boolean)).toHaveLength(1);
      // A consumed request's polls are not counted.
      expect(await db.devices.registerPoll('dch-1', 40_000)).toMatchObject({ status: 'consumed', pollCount: 2 });
      expect(await db.devices.registerPoll('dch-1', 50_000)).toMatchObject({ pollCount: 2, lastPollAt: 30_000 });
      expect(await db.devices.setStatus('2', 'expired')).toBe(true);

      // Deleting the approver clears the approval; cleanup deletes by expiry.
      await db.users.delete('u1');
      expect(await db.devices.latestByUserCode(device('1').userCode)).toMatchObject({ approvedBy: null });
      expect(await db.devices.deleteExpiredBefore(400_000)).toBe(1);
      expect(await db.devices.latestByUserCode(device('2').userCode)).toBeNull();
    });

    it('consumeAndMint: an approved request is consumed and its PAT stored in one step, at most once', async () => {
      await db.users.upsert(user('u1'));
      await db.devices.insert(device('1', { status: 'approved', approvedBy: 'u1' }));
      const outcomes = await Promise.all([
        db.devices.consumeAndMint('1', pat('p1', 'u1', { tokenHash: 'hash-a' })),
        db.devices.consumeAndMint('1', pat('p2', 'u1', { tokenHash: 'hash-b' })),
      ]);
      expect(outcomes.sort()).toEqual(['minted', 'not-approved']);
      expect(await db.devices.latestByUserCode(device('1').userCode)).toMatchObject({ status: 'consumed' });
      const stored = (await db.devices.latestByUserCode(device('1').userCode))!.patId!;
      expect(['p1', 'p2']).toContain(stored);
      expect((await db.pats.list('u1')).map((p) => p.id)).toEqual([stored]);

      // Pending or denied: nothing changes, nothing is stored.
      await db.devices.insert(device('2', { status: 'pending' }));
      expect(await db.devices.consumeAndMint('2', pat('p3', 'u1', { tokenHash: 'hash-c' }))).toBe('not-approved');
      expect(await db.devices.latestByUserCode(device('2').userCode)).toMatchObject({ status: 'pending', patId: null });

      // The approver deleted: denied, no PAT (not an error).
      await db.users.upsert(user('u2'));
      await db.devices.insert(device('3', { status: 'approved', approvedBy: 'u2' }));
      await db.users.delete('u2');
      expect(await db.devices.consumeAndMint('3', pat('p4', 'u2', { tokenHash: 'hash-d' }))).toBe('approver-gone');
      expect(await db.devices.latestByUserCode(device('3').userCode)).toMatchObject({ status: 'denied', patId: null });
      expect(await db.pats.get('p4')).toBeNull();
    });

    it('a key holding NUL (which nothing stored can hold) finds nothing instead of failing', async () => {
      const nul = 'u1\u0000';
      await db.users.upsert(user('u1'));
      expect(await db.users.get(nul)).toBeNull();
      expect(await db.users.findByLoginOrEmail(nul)).toEqual([]);
      expect(await db.users.setTokenKey(nul, 'k', 1)).toBe(false);
      expect(await db.users.delete(nul)).toBe(false);
      expect(await db.pats.get(nul)).toBeNull();
      expect(await db.pats.list(nul)).toEqual([]);
      expect(await db.pats.delete(nul)).toBeNull();
      expect(await db.pats.tokenHashesOf(nul)).toEqual([]);
      expect(await db.pats.credential(nul)).toBeNull();
      expect(await db.devices.registerPoll(nul, 1)).toBeNull();
      expect(await db.devices.latestByUserCode(nul)).toBeNull();
      expect(await db.devices.userCodeLive(nul, 1)).toBe(false);
      expect(await db.devices.setStatus(nul, 'expired')).toBe(false);
      expect(await db.superusers.get(nul)).toBeNull();
      expect(await db.superusers.findByEmail('root\u0000@example.org')).toBeNull();
      expect(await db.superusers.deleteByEmail('root\u0000@example.org')).toBe(false);
      expect(await db.users.get('u1')).toMatchObject({ id: 'u1' });
    });

    it('the newest request of a user code wins', async () => {
      await db.devices.insert(device('a', { userCode: 'SAMECODE', created: 1 }));
      await db.devices.insert(device('b', { userCode: 'SAMECODE', created: 2 }));
      expect(await db.devices.latestByUserCode('SAMECODE')).toMatchObject({ id: 'b' });
    });

    it('superusers: emails are case-insensitive and unique; credentials reset; delete', async () => {
      await db.superusers.insert(superuser('s1', 'root@example.org'));
      expect(await db.superusers.findByEmail('ROOT@example.org')).toEqual(superuser('s1', 'root@example.org'));
      expect(await db.superusers.get('s1')).toEqual(superuser('s1', 'root@example.org'));
      await expect(db.superusers.insert(superuser('s2', 'Root@Example.org'))).rejects.toThrow();
      await db.superusers.setCredentials('s1', 'scrypt$new', 'new-key', 4_000);
      expect(await db.superusers.get('s1')).toMatchObject({
        passwordHash: 'scrypt$new',
        tokenKey: 'new-key',
        updated: 4_000,
      });
      expect(await db.superusers.deleteByEmail('ROOT@EXAMPLE.ORG')).toBe(true);
      expect(await db.superusers.deleteByEmail('root@example.org')).toBe(false);
      expect(await db.superusers.get('s1')).toBeNull();
    });

    it('the instance key: 32 bytes, created once, the same for every connection', async () => {
      const key = await db.instanceKey();
      expect(key).toHaveLength(32);
      expect((await db.instanceKey()).equals(key)).toBe(true);
      const other = await second();
      expect((await other.instanceKey()).equals(key)).toBe(true);
      const fresh = await backend.open();
      opened.push(fresh);
      expect((await fresh.instanceKey()).equals(key)).toBe(false);
    });

    it('metadata cache: misses are null; rows read back by id, DOI and OpenAlex id; put replaces', async () => {
      expect(await db.metadata.get('2501.00001')).toBeNull();
      const a = paper('2501.00001', { doi: '10.1000/x', openalex_id: 'W1', cited_by_count: 12_345_678_901 });
      await db.metadata.put(a, new Date('2026-05-01T12:00:00Z'));
      expect(await db.metadata.get('2501.00001')).toEqual(a);
      expect(await db.metadata.findByDoi('10.1000/x')).toEqual(a);
      expect(await db.metadata.findByOpenAlexId('W1')).toEqual(a);
      expect(await db.metadata.findByDoi('10.1000/other')).toBeNull();
      const replaced = paper('2501.00001', { source: 'openalex', authors: [], abstract: '' });
      await db.metadata.put(replaced, new Date());
      expect(await db.metadata.get('2501.00001')).toEqual(replaced);
      expect(await db.metadata.findByDoi('10.1000/x')).toBeNull();
      // Several papers with one DOI: the lowest id answers.
      await db.metadata.put(paper('2501.00003', { doi: '10.1000/dup' }), new Date());
      await db.metadata.put(paper('2501.00002', { doi: '10.1000/dup' }), new Date());
      expect((await db.metadata.findByDoi('10.1000/dup'))?.preprintId).toBe('2501.00002');
      // Another connection sees the rows (no expiry, nothing per process).
      expect(await (await second()).metadata.get('2501.00002')).toEqual(paper('2501.00002', { doi: '10.1000/dup' }));
    });

    it('rate windows: counted per rule and key, a new window once the old one is over, refunds', async () => {
      const c = db.rateCounters;
      expect(await c.peek('r', 'k', 1_000, 60_000)).toBeNull();
      expect(await c.count('r', 'k', 1_000, 60_000)).toEqual({ start: 1_000, count: 1 });
      expect(await c.count('r', 'k', 30_000, 60_000)).toEqual({ start: 1_000, count: 2 });
      // Rules and keys are independent.
      expect(await c.count('r', 'other', 30_000, 60_000)).toEqual({ start: 30_000, count: 1 });
      expect(await c.count('other rule', 'k', 30_000, 60_000)).toEqual({ start: 30_000, count: 1 });
      expect(await c.peek('r', 'k', 60_999, 60_000)).toEqual({ start: 1_000, count: 2 });
      await c.refund('r', 'k', 40_000, 60_000);
      expect(await c.peek('r', 'k', 40_000, 60_000)).toEqual({ start: 1_000, count: 1 });
      await c.refund('r', 'k', 40_000, 60_000);
      await c.refund('r', 'k', 40_000, 60_000); // never below 0
      expect(await c.peek('r', 'k', 40_000, 60_000)).toEqual({ start: 1_000, count: 0 });
      await c.count('r', 'k', 50_000, 60_000);
      // The window ends exactly 60 s after its start: the next request opens a new one.
      expect(await c.peek('r', 'k', 61_000, 60_000)).toBeNull();
      await c.refund('r', 'k', 61_000, 60_000); // an ended window is not refunded into a new one
      expect(await c.count('r', 'k', 61_000, 60_000)).toEqual({ start: 61_000, count: 1 });
    });

    it('rate windows are shared: two instances counting at once never lose or repeat a count', async () => {
      const other = await second();
      const counts = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? other : db).rateCounters.count('write', 'u1', 5_000, 60_000)),
      );
      expect(counts.map((w) => w.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(new Set(counts.map((w) => w.start))).toEqual(new Set([5_000]));
      expect(await other.rateCounters.peek('write', 'u1', 6_000, 60_000)).toEqual({ start: 5_000, count: 40 });
    });

    it('token bucket: starts full, refills at the float rate up to its capacity', async () => {
      const b = db.buckets;
      expect(await b.take('preprint-fetch', 0.33, 2, 10_000)).toBe(0);
      expect(await b.take('preprint-fetch', 0.33, 2, 10_000)).toBe(0);
      // Empty: the next token is due in 1 / 0.33 s; asking does not take or reset anything.
      expect(await b.take('preprint-fetch', 0.33, 2, 10_000)).toBe(3031);
      expect(await b.take('preprint-fetch', 0.33, 2, 11_000)).toBe(2031);
      expect(await b.take('preprint-fetch', 0.33, 2, 13_031)).toBe(0);
      expect(await b.take('preprint-fetch', 0.33, 2, 13_031)).toBeGreaterThan(3000);
      // A long pause fills it to its capacity, not beyond.
      for (let i = 0; i < 2; i++) expect(await b.take('preprint-fetch', 0.33, 2, 1_000_000)).toBe(0);
      expect(await b.take('preprint-fetch', 0.33, 2, 1_000_000)).toBe(3031);
      // Buckets are independent.
      expect(await b.take('another', 0.33, 2, 1_000_000)).toBe(0);
    });

    it('token bucket is shared: two instances racing for 60 s of tokens take 21 at the defaults (CONTRACT §11.5)', async () => {
      const instances = [db, await second()];
      let granted = 0;
      for (let now = 0; now <= 60_000; now += 500) {
        const takes = instances.flatMap((d) =>
          Array.from({ length: 3 }, () => d.buckets.take('preprint-fetch', 0.33, 2, now)),
        );
        granted += (await Promise.all(takes)).filter((wait) => wait === 0).length;
        if (now === 0) expect(granted).toBe(2); // one full bucket, not one per instance
      }
      expect(granted).toBe(21); // ⌊2 + 60 × 0.33⌋
    });

    it('unicode and long text survive the round trip', async () => {
      const text = 'Quantenfehlerkorrektur — ψ⟩ 量子 🧪 '.repeat(200);
      await db.users.upsert(user('u1', { name: text }));
      expect((await db.users.get('u1'))?.name).toBe(text);
      await db.metadata.put(paper('2501.09999', { abstract: text, authors: [text] }), new Date());
      expect((await db.metadata.get('2501.09999'))?.metadata).toMatchObject({ abstract: text, authors: [text] });
    });
  });
}
