/**
 * The graph adapter of the claim store (CONTRACT §5.1): one `(:ParserClaim {preprint_id})` node per claimed paper,
 * acquired in one write transaction that MERGEs the node, writes `_lock` (taking its write lock) and re-reads
 * under that lock.
 */
import type { Transaction } from 'neo4j-driver';
import { parseVersionedId, type VersionedPreprintId } from '../../shared/ids.js';
import { rfc3339 } from '../../shared/time.js';
import {
  ClaimStoreUnavailableError,
  newClaim,
  type AcquireResult,
  type Claim,
  type ClaimStore,
  type ReleaseResult,
} from '../papers/claim-store.js';
import type { GraphClient } from './driver.js';
import { neo4jDriver } from './neo4j-lib.js';
import { isTransient, isUnreachable, readTx, toNumber, withSession, writeTx, type AccessMode } from './session.js';

const CLAIM_RETURN = `c.claim_id AS claim_id, c.requester AS requester, c.preprint_id AS preprint_id,
  toString(c.created_at) AS created_at, toString(c.expires_at) AS expires_at, c.ttl_seconds AS ttl_seconds`;

/** Lock conflicts on a live server are retried this many times before the store counts as unavailable. */
const TRANSIENT_ATTEMPTS = 10;

interface ClaimRecord {
  get(key: string): unknown;
}

function claimFromRecord(r: ClaimRecord): Claim | null {
  const preprintId = r.get('preprint_id');
  const claimId = r.get('claim_id');
  if (typeof preprintId !== 'string' || typeof claimId !== 'string') return null;
  const id = parseVersionedId(preprintId);
  return {
    preprint_id: preprintId,
    key: id?.stem ?? preprintId.replace('/', '_'),
    claim_id: claimId,
    requester: String(r.get('requester') ?? ''),
    created_at: new Date(String(r.get('created_at'))),
    expires_at: new Date(String(r.get('expires_at'))),
    ttl_seconds: toNumber(r.get('ttl_seconds')),
  };
}

export class GraphClaimStore implements ClaimStore {
  readonly backend = 'graph' as const;
  private constraintReady = false;

  constructor(private readonly graph: GraphClient) {}

  /**
   * One transaction; lock conflicts (deadlocks, transient errors on a live server) are retried a few times, and
   * an unreachable graph becomes `ClaimStoreUnavailableError` (503).
   */
  private async tx<T>(mode: AccessMode, work: (tx: Transaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await (mode === 'READ' ? readTx(this.graph, work) : writeTx(this.graph, work));
      } catch (err) {
        if (attempt < TRANSIENT_ATTEMPTS && isTransient(err)) {
          await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
          continue;
        }
        if (isUnreachable(err)) throw new ClaimStoreUnavailableError({ cause: err });
        throw err;
      }
    }
  }

  /** `ParserClaim.preprint_id` unique and the `expires_at` index (§6.4), created idempotently. */
  async ensureSchema(): Promise<void> {
    if (this.constraintReady) return;
    try {
      // Schema commands cannot share a transaction; each runs in its own auto-commit transaction.
      await withSession(this.graph, 'WRITE', async (s) => {
        await s.run(
          'CREATE CONSTRAINT parser_claim_preprint_id IF NOT EXISTS FOR (c:ParserClaim) REQUIRE c.preprint_id IS UNIQUE',
        );
        await s.run('CREATE INDEX parser_claim_expires_at IF NOT EXISTS FOR (c:ParserClaim) ON (c.expires_at)');
      });
    } catch (err) {
      if (isUnreachable(err)) throw new ClaimStoreUnavailableError({ cause: err });
      throw err;
    }
    this.constraintReady = true;
  }

  async acquire(id: VersionedPreprintId, requester: string, ttlSeconds: number, now: Date): Promise<AcquireResult> {
    await this.ensureSchema();
    const candidate = newClaim(id, requester, ttlSeconds, now);
    return this.tx('WRITE', async (tx) => {
      // MERGE the node, write `_lock` to take its write lock, then re-read under that lock.
      const res = await tx.run(
        `MERGE (c:ParserClaim {preprint_id: $preprint_id})
           SET c._lock = coalesce(c._lock, 0) + 1
           WITH c
           RETURN ${CLAIM_RETURN}, (c.claim_id IS NOT NULL AND c.expires_at > datetime($now)) AS held`,
        { preprint_id: id.id, now: rfc3339(now) },
      );
      const record = res.records[0];
      if (record && record.get('held') === true) {
        const existing = claimFromRecord(record);
        if (existing) return { ok: false as const, existing };
      }
      await tx.run(
        `MATCH (c:ParserClaim {preprint_id: $preprint_id})
           SET c.claim_id = $claim_id, c.requester = $requester, c.created_at = datetime($created_at),
               c.expires_at = datetime($expires_at), c.ttl_seconds = $ttl_seconds`,
        {
          preprint_id: id.id,
          claim_id: candidate.claim_id,
          requester: candidate.requester,
          created_at: rfc3339(candidate.created_at),
          expires_at: rfc3339(candidate.expires_at),
          ttl_seconds: neo4jDriver().int(candidate.ttl_seconds),
        },
      );
      return { ok: true as const, claim: candidate };
    });
  }

  async release(id: VersionedPreprintId, claimId: string, now: Date): Promise<ReleaseResult> {
    return this.tx('WRITE', async (tx) => {
      const res = await tx.run(
        `MATCH (c:ParserClaim {preprint_id: $preprint_id})
           SET c._lock = coalesce(c._lock, 0) + 1
           RETURN c.claim_id AS claim_id, (c.claim_id IS NOT NULL AND c.expires_at > datetime($now)) AS held`,
        { preprint_id: id.id, now: rfc3339(now) },
      );
      const record = res.records[0];
      if (!record) return 'absent' as const;
      if (record.get('held') === true && record.get('claim_id') !== claimId) return 'mismatch' as const;
      await tx.run('MATCH (c:ParserClaim {preprint_id: $preprint_id}) DELETE c', { preprint_id: id.id });
      return record.get('held') === true ? ('released' as const) : ('absent' as const);
    });
  }

  async clear(id: VersionedPreprintId): Promise<void> {
    await this.tx('WRITE', (tx) =>
      tx.run('MATCH (c:ParserClaim {preprint_id: $preprint_id}) DELETE c', { preprint_id: id.id }),
    );
  }

  async active(now: Date): Promise<Map<string, Claim>> {
    return this.tx('READ', async (tx) => {
      const res = await tx.run(
        `MATCH (c:ParserClaim) WHERE c.claim_id IS NOT NULL AND c.expires_at > datetime($now) RETURN ${CLAIM_RETURN}`,
        { now: rfc3339(now) },
      );
      const out = new Map<string, Claim>();
      for (const r of res.records) {
        const c = claimFromRecord(r);
        if (c) out.set(c.preprint_id, c);
      }
      return out;
    });
  }

  async purgeExpired(now: Date): Promise<number> {
    return this.tx('WRITE', async (tx) => {
      const res = await tx.run(
        `MATCH (c:ParserClaim) WHERE c.expires_at IS NULL OR c.expires_at <= datetime($now)
         WITH c, c.preprint_id AS id DELETE c RETURN count(id) AS n`,
        { now: rfc3339(now) },
      );
      return toNumber(res.records[0]?.get('n'));
    });
  }
}
