/**
 * The user-database port (CONTRACT §21): the repositories behind users, PATs, device requests, superusers, the
 * instance key, the metadata cache (§18.1), the rate-limit windows (§7.7) and the preprint token bucket (§11.5).
 * Two adapters implement it: SQLite under `SVC_DB_DATA_DIR` (the embedded default, sqlite-user-database.ts) and
 * PostgreSQL at `SVC_DB_URL` (postgres-user-database.ts). Every method is async because PostgreSQL is; each one is
 * atomic on its own (the services need no transactions across calls). Rows are plain records; the services in
 * src/server/auth/ hold the rules.
 */
import type { DeviceStatus } from '../../shared/api/device.js';
import type { MetadataCache } from '../papers/metadata/metadata-cache.js';

/** A user row (CONTRACT §7.2); `tokenKey` and `providerUserId` are never sent to clients. */
export interface UserRow {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly login: string;
  readonly avatar: string;
  readonly provider: string;
  readonly providerUserId: string;
  readonly tokenKey: string;
  readonly created: number;
  readonly updated: number;
}

export interface UserRepository {
  get(id: string): Promise<UserRow | null>;
  /**
   * Inserts `fresh` or, when a user with its id exists, refreshes that user's email, name, login, avatar and
   * `updated` from it (keeping its token key and creation time); `isNew` tells which.
   */
  upsert(fresh: UserRow): Promise<{ user: UserRow; isNew: boolean }>;
  /** Users whose login or email equals `ref` case-insensitively, oldest first. */
  findByLoginOrEmail(ref: string): Promise<UserRow[]>;
  /** Oldest first (ties by id); `limit` null = all. */
  list(limit: number | null, offset: number): Promise<UserRow[]>;
  count(): Promise<number>;
  /** `false` when there is no such user. */
  setTokenKey(id: string, tokenKey: string, updated: number): Promise<boolean>;
  /** Deletes the user; its PATs go with it and its device approvals are cleared. `false` when absent. */
  delete(id: string): Promise<boolean>;
}

/** A stored PAT (CONTRACT §7.3): `scopes` is the stored JSON text (null = legacy full access). */
export interface PatRow {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly description: string;
  readonly prefix: string;
  readonly tokenHash: string;
  readonly scopes: string | null;
  readonly expiresAt: number;
  readonly lastUsedAt: number | null;
  readonly created: number;
  readonly updated: number;
}

/** What verifying a PAT needs: the token's row joined with its owner's login. */
export interface PatCredential {
  readonly id: string;
  readonly userId: string;
  readonly login: string;
  readonly scopes: string | null;
  readonly expiresAt: number;
}

export interface PatRepository {
  insert(row: PatRow): Promise<void>;
  get(id: string): Promise<PatRow | null>;
  /** Newest first (ties: the later insert first); all users when `userId` is omitted. */
  list(userId?: string): Promise<PatRow[]>;
  /** Deletes and returns the PAT; `null` when absent. */
  delete(id: string): Promise<PatRow | null>;
  tokenHashesOf(userId: string): Promise<string[]>;
  credential(tokenHash: string): Promise<PatCredential | null>;
  touch(id: string, at: number): Promise<void>;
  /**
   * A value that changes whenever a credential may have been revoked by someone else (another connection,
   * process or instance): verify caches are emptied when it moves.
   */
  revision(): Promise<unknown>;
}

/** A device authorization request (CONTRACT §7.8); `scopes` is JSON text. */
export interface DeviceRow {
  readonly id: string;
  readonly deviceCodeHash: string;
  readonly userCode: string;
  readonly name: string;
  readonly description: string;
  readonly scopes: string;
  readonly expiresInDays: number;
  readonly status: DeviceStatus;
  readonly approvedBy: string | null;
  readonly patId: string | null;
  readonly pollCount: number;
  readonly lastPollAt: number | null;
  readonly created: number;
  readonly expiresAt: number;
}

export interface DeviceRepository {
  /** Live pending requests (expiring after `now`): how many, and the earliest expiry. */
  pending(now: number): Promise<{ count: number; firstExpiry: number | null }>;
  /** Whether a pending or approved request expiring after `now` holds this user code. */
  userCodeLive(userCode: string, now: number): Promise<boolean>;
  insert(row: DeviceRow): Promise<void>;
  /**
   * Counts one poll atomically: unless the request is `consumed`, `poll_count` + 1 and `last_poll_at` = `now`.
   * Returns the row as it was before (null when unknown).
   */
  registerPoll(deviceCodeHash: string, now: number): Promise<DeviceRow | null>;
  /** The newest request with this user code. */
  latestByUserCode(userCode: string): Promise<DeviceRow | null>;
  /** Sets the status when the current one is `from` (any when omitted); whether a row changed. */
  setStatus(id: string, status: DeviceStatus, from?: DeviceStatus): Promise<boolean>;
  /** A pending request becomes approved by `userId` with the (possibly edited) name, scopes and expiry. */
  approve(id: string, userId: string, name: string, scopes: string, expiresInDays: number): Promise<boolean>;
  /** Deletes requests that expired before `before`; how many. */
  deleteExpiredBefore(before: number): Promise<number>;
  /**
   * The token poll's hand-out, in one transaction (CONTRACT §7.8): when the request is still `approved` by
   * `pat.userId` and that user exists, `pat` is inserted and the request becomes `consumed` with its `pat_id`
   * (`'minted'`); when the request is no longer `approved`, nothing changes (`'not-approved'`); when its approver is
   * gone, the request becomes `denied` and no PAT is inserted (`'approver-gone'`).
   */
  consumeAndMint(id: string, pat: PatRow): Promise<ConsumeOutcome>;
}

export type ConsumeOutcome = 'minted' | 'not-approved' | 'approver-gone';

export interface SuperuserRow {
  readonly id: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly tokenKey: string;
  readonly created: number;
  readonly updated: number;
}

export interface SuperuserRepository {
  get(id: string): Promise<SuperuserRow | null>;
  /** Case-insensitive. */
  findByEmail(email: string): Promise<SuperuserRow | null>;
  insert(row: SuperuserRow): Promise<void>;
  setCredentials(id: string, passwordHash: string, tokenKey: string, updated: number): Promise<void>;
  /** Case-insensitive; whether one existed. */
  deleteByEmail(email: string): Promise<boolean>;
}

/** A key's fixed window (CONTRACT §7.7): when it started (ms) and the requests counted in it. */
export interface RateWindow {
  readonly start: number;
  readonly count: number;
}

/**
 * The rate-limit counters of §7.7, shared by every instance on one database (§21). A window belongs to a rule and a
 * key; it starts at the key's first counted request and is over `windowMs` later. Each call is atomic.
 */
export interface RateCounterRepository {
  /** Counts one request at `now`: in the key's live window, or in a new one starting at `now`; the window after it. */
  count(rule: string, key: string, now: number, windowMs: number): Promise<RateWindow>;
  /** The key's live window at `now`, or `null`. */
  peek(rule: string, key: string, now: number, windowMs: number): Promise<RateWindow | null>;
  /** Takes back one request counted in the key's live window (never below 0; no window, no change). */
  refund(rule: string, key: string, now: number, windowMs: number): Promise<void>;
}

/**
 * Token buckets shared by every instance on one database: the preprint-fetch limiter of §11.5 (§21). A bucket
 * starts full; it refills at `rate` tokens/s up to `capacity`, computed from the time of its last take.
 */
export interface TokenBucketRepository {
  /**
   * Atomically refills the bucket to `now` and takes one token when a whole one is there: returns 0; otherwise
   * takes nothing and returns the milliseconds until a token will be there (another instance may take it first).
   */
  take(bucket: string, rate: number, capacity: number, now: number): Promise<number>;
  /**
   * Atomically refills the bucket to `now` and takes `tokens` (a fraction; the bucket may go below zero): a request
   * sent later than its token was taken is counted from when it was sent (§11.5 at the upstream).
   */
  debit(bucket: string, tokens: number, rate: number, capacity: number, now: number): Promise<void>;
}

export type UserDatabaseBackend = 'sqlite' | 'postgres';

export interface UserDatabase {
  readonly backend: UserDatabaseBackend;
  /** Where it lives, for logs and the health probe: the SQLite file or the PostgreSQL URL without its password. */
  readonly location: string;
  readonly users: UserRepository;
  readonly pats: PatRepository;
  readonly devices: DeviceRepository;
  readonly superusers: SuperuserRepository;
  readonly metadata: MetadataCache;
  readonly rateCounters: RateCounterRepository;
  readonly buckets: TokenBucketRepository;
  /**
   * The instance secret (32 bytes, created on first use): it keys PAT hashes and session signatures, so every
   * instance on one database must share it (CONTRACT §7.2–7.3, §21).
   */
  instanceKey(): Promise<Buffer>;
  /** The applied schema version (highest migration). */
  schemaVersion(): Promise<number>;
  /** A round trip to the database (the health probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
