/**
 * Claim store contract (CONTRACT §5.1): the same suite against the file backend, a real Neo4j and a real PostgreSQL
 * (cluster mode without a graph, §21).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FileClaimStore,
  GraphClaimStore,
  normaliseTtl,
  PostgresClaimStore,
  type ClaimStore,
} from '../../../src/server/papers/claims.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { graphClientFor, useNeo4j } from '../../support/neo4j.js';
import { freePort } from '../../support/free-port.js';
import { usePostgres } from '../../support/postgres.js';
import { PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { expectEveryCallUnavailable } from './claim-store-support.js';

const T0 = new Date('2026-05-01T12:00:00.456Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

const db = useNeo4j();
const postgres = usePostgres();

interface Fixture {
  store: ClaimStore;
  close(): Promise<void>;
}

const backends: [string, () => Promise<Fixture>][] = [
  [
    'file',
    async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'pks-claims-'));
      return {
        store: new FileClaimStore(path.join(dir, 'parser-claims')),
        close: () => rm(dir, { recursive: true, force: true }),
      };
    },
  ],
  [
    'graph',
    async () => {
      const session = db.graph.driver.session();
      await session.run('MATCH (c:ParserClaim) DETACH DELETE c');
      await session.close();
      return { store: new GraphClaimStore(db.graph), close: async () => undefined };
    },
  ],
  [
    'postgres',
    async () => {
      const userDb = await PostgresUserDatabase.open(await postgres.newDatabase());
      return { store: new PostgresClaimStore(userDb.pool), close: () => userDb.close() };
    },
  ],
];

describe.each(backends)('claim store contract (%s)', (_name, make) => {
  let fx: Fixture;
  let store: ClaimStore;
  beforeEach(async () => {
    fx = await make();
    store = fx.store;
  });
  afterEach(async () => {
    await fx.close();
  });

  const id = requireUploadId('quant-ph/9508027v1');
  const other = requireUploadId('2501.00010v1');

  it('acquire creates a claim with second-precision times', async () => {
    const r = await store.acquire(id, 'alice', 1800, T0);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.claim).toEqual({
      preprint_id: 'quant-ph/9508027v1',
      key: 'quant-ph_9508027v1',
      claim_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      requester: 'alice',
      created_at: new Date('2026-05-01T12:00:00Z'),
      expires_at: new Date('2026-05-01T12:30:00Z'),
      ttl_seconds: 1800,
    });
    const active = await store.active(at(1));
    expect([...active.keys()]).toEqual(['quant-ph/9508027v1']);
    expect(active.get('quant-ph/9508027v1')).toEqual(r.claim);
  });

  it('an unexpired claim blocks a second one and is returned', async () => {
    const first = await store.acquire(id, 'alice', 1800, T0);
    const second = await store.acquire(id, 'bob', 60, at(1799));
    expect(second.ok).toBe(false);
    if (first.ok && !second.ok) expect(second.existing).toEqual(first.claim);
    // Other papers are independent.
    expect((await store.acquire(other, 'bob', 60, at(10))).ok).toBe(true);
  });

  it('an expired claim is ignored and replaced by the next claim request', async () => {
    const first = await store.acquire(id, 'alice', 60, T0);
    expect((await store.active(at(61))).size).toBe(0);
    const next = await store.acquire(id, 'bob', 120, at(61));
    expect(next.ok).toBe(true);
    if (first.ok && next.ok) {
      expect(next.claim.claim_id).not.toBe(first.claim.claim_id);
      expect(next.claim.requester).toBe('bob');
    }
  });

  it('release: matching id → released; then absent; other id → mismatch; expired → absent and deleted', async () => {
    const r = await store.acquire(id, 'alice', 1800, T0);
    if (!r.ok) throw new Error('no claim');
    expect(await store.release(id, 'f'.repeat(32), at(5))).toBe('mismatch');
    expect(await store.release(id, r.claim.claim_id, at(5))).toBe('released');
    expect(await store.release(id, r.claim.claim_id, at(6))).toBe('absent');
    expect((await store.active(at(6))).size).toBe(0);

    const again = await store.acquire(id, 'alice', 60, at(10));
    expect(again.ok).toBe(true);
    expect(await store.release(id, 'f'.repeat(32), at(100))).toBe('absent');
    // The expired claim was deleted: a new claim (at a time the old one would have blocked) succeeds.
    expect((await store.acquire(id, 'bob', 60, at(11))).ok).toBe(true);
  });

  it('clear deletes the claim whatever its id', async () => {
    await store.acquire(id, 'alice', 1800, T0);
    await store.clear(id);
    await store.clear(id);
    expect((await store.active(at(1))).size).toBe(0);
  });

  it('purgeExpired deletes expired claims only', async () => {
    await store.acquire(id, 'alice', 60, T0);
    await store.acquire(other, 'bob', 600, T0);
    expect(await store.purgeExpired(at(61))).toBe(1);
    expect([...(await store.active(at(61))).keys()]).toEqual(['2501.00010v1']);
    expect(await store.purgeExpired(at(61))).toBe(0);
  });

  it('50 concurrent claims → exactly one succeeds', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.acquire(id, `user${i}`, 1800, T0)));
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    for (const r of results) if (!r.ok && winner.ok) expect(r.existing.claim_id).toBe(winner.claim.claim_id);
  });
});

describe('file backend format', () => {
  it('writes <dir>/<stem>.json with the §5.1 fields', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pks-claims-'));
    try {
      const store = new FileClaimStore(dir);
      const r = await store.acquire(requireUploadId('9508027v1'), 'alice', 600, T0);
      if (!r.ok) throw new Error('no claim');
      expect(JSON.parse(await readFile(path.join(dir, 'quant-ph_9508027v1.json'), 'utf8'))).toEqual({
        preprint_id: 'quant-ph/9508027v1',
        key: 'quant-ph_9508027v1',
        claim_id: r.claim.claim_id,
        requester: 'alice',
        created_at: '2026-05-01T12:00:00Z',
        expires_at: '2026-05-01T12:10:00Z',
        ttl_seconds: 600,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('graph backend unreachable', () => {
  it('every call fails with the unavailable domain error and the §5.1 text', async () => {
    const port = await freePort();
    const dead = graphClientFor({ boltUri: `bolt://127.0.0.1:${port}`, username: 'neo4j', password: 'x' });
    try {
      await expectEveryCallUnavailable(new GraphClaimStore(dead), 'graph');
    } finally {
      await dead.close();
    }
  });
});

describe('ttl_seconds (§5.2)', () => {
  it.each([
    [undefined, 1800],
    ['', 1800],
    ['abc', 1800],
    ['0', 1800],
    ['-5', 1800],
    ['1.5', 1800],
    ['1', 60],
    ['59', 60],
    ['60', 60],
    ['3600', 3600],
    ['7200', 7200],
    ['99999', 7200],
    [['100', '200'], 1800],
  ])('%j → %d', (raw, ttl) => {
    expect(normaliseTtl(raw)).toBe(ttl);
  });
});
