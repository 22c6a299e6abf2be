/**
 * `last_used_at` writes of a busy PAT are coalesced (CONTRACT §7.3 "updates last_used_at asynchronously"; on
 * PostgreSQL each write is a round trip, §21): a burst of uses costs one write in flight per PAT, the latest use is
 * the one stored, and a use arriving while a write is in flight is written after it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openIdentity, type Identity } from '../../../src/server/auth/identity.js';
import { testConfig, testUser } from '../../support/server.js';
import { userDbEnv } from '../../support/user-db.js';
import { until } from '../access/support/clocks.js';

const SPEC = { name: 'ci', description: '', expiresInDays: 30, scopes: ['wiki:read' as const] };

describe('PAT use writes', () => {
  let dir: string;
  let identity: Identity;
  let now = Date.UTC(2026, 10, 1);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pks-pat-use-'));
    const config = testConfig(dir, { SVC_ALLOWED_IDP_LOGINS: 'alice', ...(await userDbEnv(dir)) });
    identity = await openIdentity(config, pino({ level: 'silent' }), { background: false, now: () => now });
  });
  afterAll(async () => {
    await identity?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a burst of uses is one write of the latest; a use during a write is written after it', async () => {
    const alice = await testUser(identity, 'alice');
    const pat = await identity.pats.mint(alice.id, SPEC);
    const write = identity.db.pats.touch.bind(identity.db.pats);
    const writes = vi.spyOn(identity.db.pats, 'touch');
    const lastUsed = async () => (await identity.pats.get(pat.id))!.lastUsedAt;

    // The first write is held until every use of the burst has been verified, so the burst cannot outlast it (on
    // PostgreSQL each verify is a round trip of its own): the uses it did not carry are one more write, the latest.
    let releaseFirst!: () => void;
    const first = new Promise<void>((resolve) => (releaseFirst = resolve));
    writes.mockImplementationOnce(async (id, at) => {
      await first;
      return write(id, at);
    });
    const burst = Array.from({ length: 50 }, () => {
      now += 1;
      return identity.pats.verify(pat.plaintext, true).then((p) => expect(p).not.toBeNull());
    });
    await Promise.all(burst);
    const latest = now;
    releaseFirst();
    await until('the latest use stored', async () => (await lastUsed()) === latest, 5_000);
    expect(writes.mock.calls.length).toBeLessThanOrEqual(2);
    expect(writes.mock.calls.at(-1)).toEqual([pat.id, latest]);

    // A use while a write is in flight: the write in flight is not awaited by it, and it is stored after.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    writes.mockImplementationOnce(async (id, at) => {
      await held;
      return write(id, at);
    });
    writes.mockClear();
    now += 1;
    await identity.pats.verify(pat.plaintext, true);
    await until('the first write started', () => writes.mock.calls.length === 1, 5_000);
    now += 1;
    const second = now;
    await identity.pats.verify(pat.plaintext, true);
    release();
    await until('the use made during the write stored', async () => (await lastUsed()) === second, 5_000);
    expect(writes.mock.calls.map((c) => c[1])).toEqual([second - 1, second]);
  });
});
