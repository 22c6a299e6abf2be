/**
 * The PAT verify cache on PostgreSQL follows the credential notifications (CONTRACT §21: a revoked PAT, an ended
 * session or a deleted user is refused by every instance within 1 s). Two identities on one database stand for two
 * instances, each with its own listener: while the listener is connected a cached verify reads nothing (not even
 * the revision row); a revocation on A is refused by B within 1 s; with B's listener terminated B reads the
 * revision row again, so a revocation is still refused within 1 s, and after the listener is back the cache serves
 * again without reading it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openIdentity, type Identity } from '../../../src/server/auth/identity.js';
import type { User } from '../../../src/server/auth/users.js';
import { PostgresNotifications } from '../../../src/server/db/notifications-postgres.js';
import { usePostgres } from '../../support/postgres.js';
import { testConfig, testUser } from '../../support/server.js';
import { until } from '../access/support/clocks.js';

const postgres = usePostgres();
const SPEC = { name: 'ci', description: '', expiresInDays: 30, scopes: ['wiki:read' as const] };
/** The guarantee under test. */
const REFUSED_WITHIN_MS = 1_000;

interface Instance {
  readonly identity: Identity;
  readonly notifications: PostgresNotifications;
  /** How many times the instance read the credential revision row. */
  readonly revisionReads: () => number;
}

describe('PAT verify cache on PostgreSQL, invalidated by notifications', () => {
  let dir: string;
  let a: Instance;
  let b: Instance;
  let alice: User;

  const instance = async (name: string): Promise<Instance> => {
    const config = testConfig(path.join(dir, name), {
      SVC_DB_URL: postgres.url,
      SVC_ALLOWED_IDP_LOGINS: 'alice,dave',
      SVC_INSTANCE_ID: name,
    });
    const logger = pino({ level: 'silent' });
    const notifications = PostgresNotifications.start(postgres.url, logger, { applicationName: `pks test ${name}` });
    await notifications.ready;
    const identity = await openIdentity(config, logger, { background: false, notifications });
    const reads = vi.spyOn(identity.db.pats, 'revision');
    return { identity, notifications, revisionReads: () => reads.mock.calls.length };
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pks-credential-notify-'));
    a = await instance('a');
    b = await instance('b');
    alice = await testUser(a.identity, 'alice');
  });
  afterAll(async () => {
    for (const i of [a, b]) {
      await i?.notifications.close();
      await i?.identity.close();
    }
    await rm(dir, { recursive: true, force: true });
  });

  /** Resolves once B refuses `token`; fails when that takes longer than the guarantee. */
  const refusedByB = async (token: string) => {
    const started = performance.now();
    await until('B refuses the credential', async () => (await b.identity.pats.verify(token, false)) === null, 5_000);
    expect(performance.now() - started).toBeLessThan(REFUSED_WITHIN_MS);
  };

  const terminateListener = async (i: Instance) => {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [i.notifications.listenerPid]);
    } finally {
      await admin.end();
    }
    await until('the listener noticed', () => !i.notifications.live, 5_000);
  };

  it('a cached verify reads no revision while the listener is connected', async () => {
    expect(b.notifications.live).toBe(true);
    const pat = await a.identity.pats.mint(alice.id, SPEC);
    expect(await b.identity.pats.verify(pat.plaintext, false)).toMatchObject({ login: 'alice' });
    const reads = b.revisionReads();
    for (let i = 0; i < 5; i++) expect(await b.identity.pats.verify(pat.plaintext, false)).not.toBeNull();
    expect(b.revisionReads()).toBe(reads);
  });

  it('a PAT revoked on A is refused by B within 1 s', async () => {
    const pat = await a.identity.pats.mint(alice.id, SPEC);
    expect(await b.identity.pats.verify(pat.plaintext, false)).not.toBeNull(); // cached on B
    await a.identity.pats.revoke(pat.id);
    await refusedByB(pat.plaintext);
  });

  it('the PATs of a user deleted on A are refused by B within 1 s; A refuses them at once', async () => {
    const dave = await testUser(a.identity, 'dave');
    const pat = await a.identity.pats.mint(dave.id, SPEC);
    expect(await b.identity.pats.verify(pat.plaintext, false)).toMatchObject({ login: 'dave' });
    expect(await a.identity.pats.verify(pat.plaintext, false)).not.toBeNull();
    await a.identity.deleteUser(dave.id);
    expect(await a.identity.pats.verify(pat.plaintext, false)).toBeNull();
    await refusedByB(pat.plaintext);
  });

  it('a session ended on A is refused by B within 1 s', async () => {
    const token = b.identity.sessions.issue(alice);
    expect(await b.identity.sessions.verify(token)).not.toBeNull();
    await a.identity.sessions.revokeAll(alice.id);
    const started = performance.now();
    await until('B refuses the session', async () => (await b.identity.sessions.verify(token)) === null, 5_000);
    expect(performance.now() - started).toBeLessThan(REFUSED_WITHIN_MS);
  });

  it('with B’s listener terminated, a revocation on A is still refused by B within 1 s; back, B caches again', async () => {
    const pat = await a.identity.pats.mint(alice.id, SPEC);
    const kept = await a.identity.pats.mint(alice.id, SPEC);
    expect(await b.identity.pats.verify(pat.plaintext, false)).not.toBeNull();
    expect(await b.identity.pats.verify(kept.plaintext, false)).not.toBeNull();
    await terminateListener(b);
    await a.identity.pats.revoke(pat.id);
    await refusedByB(pat.plaintext);
    // Meanwhile every verify read the revision row: nothing was trusted from the cache unchecked.
    const reads = b.revisionReads();
    expect(await b.identity.pats.verify(kept.plaintext, false)).not.toBeNull();
    expect(b.revisionReads()).toBeGreaterThan(reads);
    // The listener reconnects by itself; then a cached verify reads nothing again.
    await until('the listener is back', () => b.notifications.live, 10_000);
    expect(await b.identity.pats.verify(kept.plaintext, false)).not.toBeNull();
    const back = b.revisionReads();
    expect(await b.identity.pats.verify(kept.plaintext, false)).not.toBeNull();
    expect(b.revisionReads()).toBe(back);
    // And a revocation is still refused within 1 s through the reconnected listener.
    await a.identity.pats.revoke(kept.id);
    await refusedByB(kept.plaintext);
  });
});
