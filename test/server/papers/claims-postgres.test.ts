/**
 * Parser claims in PostgreSQL (CONTRACT §5.1, §21): what the shared contract suite (claims.test.ts) cannot show on
 * one adapter — two instances (two adapters, two connection pools, one database) racing for one paper, a claim taken
 * through one and released through the other, a database that cannot be reached — and which store the settings pick.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { SqliteUserDatabase } from '../../../src/server/db/sqlite-user-database.js';
import {
  FileClaimStore,
  GraphClaimStore,
  openClaimStore,
  PostgresClaimStore,
} from '../../../src/server/papers/claims.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { graphClientFor } from '../../support/neo4j.js';
import { freePort } from '../../support/free-port.js';
import { usePostgres } from '../../support/postgres.js';
import { expectEveryCallUnavailable } from './claim-store-support.js';

const T0 = new Date('2026-05-01T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const id = requireUploadId('2501.00010v1');

const postgres = usePostgres();
let a: PostgresUserDatabase;
let b: PostgresUserDatabase;
beforeAll(async () => {
  const url = await postgres.newDatabase();
  a = await PostgresUserDatabase.open(url);
  b = await PostgresUserDatabase.open(url);
});
afterAll(async () => {
  await a.close();
  await b.close();
});

describe('claims shared by two instances on one database', () => {
  it('40 claims racing through two instances → exactly one wins; both see it; the losers get it back', async () => {
    const stores = [new PostgresClaimStore(a.pool), new PostgresClaimStore(b.pool)];
    const paper = requireUploadId('2501.00020v1');
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => stores[i % 2]!.acquire(paper, `user${i}`, 1800, T0)),
    );
    const winners = results.flatMap((r) => (r.ok ? [r.claim] : []));
    expect(winners).toHaveLength(1);
    for (const r of results) if (!r.ok) expect(r.existing).toEqual(winners[0]);
    for (const store of stores) expect((await store.active(at(1))).get(paper.id)).toEqual(winners[0]);
  });

  it('a claim taken through one instance is refused, mismatched and released through the other (§5.2, §5.3)', async () => {
    const [viaA, viaB] = [new PostgresClaimStore(a.pool), new PostgresClaimStore(b.pool)];
    const taken = await viaA.acquire(id, 'alice', 600, T0);
    if (!taken.ok) throw new Error('the first claim was refused');
    expect(await viaB.acquire(id, 'bob', 600, at(1))).toEqual({ ok: false, existing: taken.claim });
    expect(await viaB.release(id, 'f'.repeat(32), at(2))).toBe('mismatch');
    expect(await viaB.release(id, taken.claim.claim_id, at(2))).toBe('released');
    expect((await viaA.active(at(3))).has(id.id)).toBe(false);
    // Expired on one instance's clock: the other replaces it.
    const short = await viaA.acquire(id, 'alice', 60, at(10));
    const next = await viaB.acquire(id, 'bob', 60, at(70));
    expect(short.ok && next.ok && next.claim.claim_id !== short.claim.claim_id).toBe(true);
  });
});

describe('database unreachable', () => {
  it('every call fails with 503 and the §5.1 text naming the database', async () => {
    const port = await freePort();
    const pool = new pg.Pool({ connectionString: `postgres://x@127.0.0.1:${port}/x`, connectionTimeoutMillis: 2000 });
    pool.on('error', () => undefined);
    try {
      await expectEveryCallUnavailable(new PostgresClaimStore(pool), 'database');
    } finally {
      await pool.end();
    }
  });
});

describe('which store holds the claims (§21)', () => {
  it('the graph when configured, else PostgreSQL when the user database is there, else files', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pks-claim-choice-'));
    const graph = graphClientFor({ boltUri: `bolt://127.0.0.1:${await freePort()}`, username: 'neo4j', password: 'x' });
    const sqlite = new SqliteUserDatabase(path.join(dir, 'pb_data'));
    try {
      expect(openClaimStore(dir, { graph, db: a })).toBeInstanceOf(GraphClaimStore);
      const inDb = openClaimStore(dir, { graph: null, db: a });
      expect([inDb.backend, inDb instanceof PostgresClaimStore]).toEqual(['postgres', true]);
      const files = openClaimStore(dir, { graph: null, db: sqlite });
      expect(files).toBeInstanceOf(FileClaimStore);
      expect((files as FileClaimStore).dir).toBe(path.join(dir, 'parser-claims'));
      expect(openClaimStore(dir, { graph: null })).toBeInstanceOf(FileClaimStore);
    } finally {
      await sqlite.close();
      await graph.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
