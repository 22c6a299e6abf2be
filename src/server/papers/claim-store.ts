/**
 * Parser claims (leases), CONTRACT §5.1: the claim-store port. Three adapters implement it with identical
 * behaviour: files under `<SVC_DATA_DIR>/parser-claims/` (`file-claim-store.ts`), `(:ParserClaim)` graph nodes
 * (`../graph/claim-store.ts`) and, in cluster mode without a graph (§21), PostgreSQL rows
 * (`../db/postgres-claim-store.ts`).
 */
import { randomBytes } from 'node:crypto';
import type { VersionedPreprintId } from '../../shared/ids.js';
import { UnavailableError } from '../../shared/domain-errors.js';

export const DEFAULT_TTL_SECONDS = 1800;
export const MIN_TTL_SECONDS = 60;
export const MAX_TTL_SECONDS = 7200;

export interface Claim {
  readonly preprint_id: string;
  readonly key: string;
  readonly claim_id: string;
  readonly requester: string;
  readonly created_at: Date;
  readonly expires_at: Date;
  readonly ttl_seconds: number;
}

export type AcquireResult =
  { readonly ok: true; readonly claim: Claim } | { readonly ok: false; readonly existing: Claim };
export type ReleaseResult = 'released' | 'absent' | 'mismatch';

/**
 * The claim store cannot be reached: 503 with the §5.1 text (the graph's), or the same words naming the database
 * when the claims live in PostgreSQL (§21).
 */
export class ClaimStoreUnavailableError extends UnavailableError {
  constructor(options?: { cause?: unknown; store?: 'graph' | 'database' }) {
    super(`claim store unavailable (${options?.store ?? 'graph'} unreachable); retry shortly`, {
      cause: options?.cause,
    });
  }
}

export interface ClaimStore {
  readonly backend: 'file' | 'graph' | 'postgres';
  /** Creates a claim unless an unexpired one exists (an expired one is replaced). Atomic per paper. */
  acquire(id: VersionedPreprintId, requester: string, ttlSeconds: number, now: Date): Promise<AcquireResult>;
  /** Releases a claim by id (§5.3 table). */
  release(id: VersionedPreprintId, claimId: string, now: Date): Promise<ReleaseResult>;
  /** Deletes the paper's claim whatever its id (successful upload-parser). */
  clear(id: VersionedPreprintId): Promise<void>;
  /** Unexpired claims keyed by `preprint_id`. */
  active(now: Date): Promise<Map<string, Claim>>;
  /** Deletes expired claims (the janitor); resolves to how many were deleted. */
  purgeExpired(now: Date): Promise<number>;
}

/** `ttl_seconds` rule of §5.2: absent, unparseable or ≤ 0 → 1800; clamped to 60..7200. */
export function normaliseTtl(raw: unknown): number {
  if (typeof raw !== 'string' || !/^\s*[+-]?\d+\s*$/.test(raw)) return DEFAULT_TTL_SECONDS;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) return DEFAULT_TTL_SECONDS;
  return Math.min(MAX_TTL_SECONDS, Math.max(MIN_TTL_SECONDS, n));
}

/** A new claim: 16 random bytes as id, times at second precision. */
export function newClaim(id: VersionedPreprintId, requester: string, ttlSeconds: number, now: Date): Claim {
  const created = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return {
    preprint_id: id.id,
    key: id.stem,
    claim_id: randomBytes(16).toString('hex'),
    requester,
    created_at: created,
    expires_at: new Date(created.getTime() + ttlSeconds * 1000),
    ttl_seconds: ttlSeconds,
  };
}

export const isExpired = (c: Claim, now: Date): boolean => c.expires_at.getTime() <= now.getTime();
