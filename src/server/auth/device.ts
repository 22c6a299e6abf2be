import { createHash, randomBytes } from 'node:crypto';
import {
  ConflictError,
  GoneError,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
} from '../../shared/domain-errors.js';
import { MAX_EXPIRY_DAYS, SCOPES, type Scope } from '../../shared/scopes.js';
import type { Db } from '../db/database.js';
import { parseStoredScopes, validateExpiresInDays, validateName, validateScopes, type PatSpec } from './pat-spec.js';
import type { PatService } from './pats.js';
import { RATE_RULES, type FixedWindowLimiter } from './rate-limit.js';
import { randomString, recordId } from './random.js';
import { rfc3339, type Clock } from './time.js';

export const USER_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const DEVICE_EXPIRES_IN_S = 600;
export const DEVICE_INTERVAL_S = 5;
const SLOW_DOWN_MS = 4_500;
const MAX_POLLS = 150;
const CLEANUP_AFTER_MS = 86_400_000;
/** Live pending requests of all clients together (each client address may start 30 per minute). */
export const MAX_PENDING_REQUESTS = 10_000;

export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'consumed' | 'expired';
export type DevicePollError =
  'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant';

interface DeviceRow {
  id: string;
  device_code_hash: string;
  user_code: string;
  name: string;
  description: string;
  scopes: string;
  expires_in_days: number;
  status: DeviceStatus;
  approved_by: string | null;
  pat_id: string | null;
  poll_count: number;
  last_poll_at: number | null;
  created: number;
  expires_at: number;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const displayCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;
const invalidUserCode = () => new InvalidInputError('invalid user_code');

/** Input normalisation: drop non-alphanumerics, upper-case; must then be 8 alphabet characters. */
export function normalizeUserCode(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const code = raw.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
  if (code.length !== 8 || [...code].some((c) => !USER_CODE_ALPHABET.includes(c))) return null;
  return code;
}

/** The start response (RFC 8628 §3.2). */
export interface DeviceStart {
  readonly device_code: string;
  readonly user_code: string;
  readonly verification_uri: string;
  readonly verification_uri_complete: string;
  readonly expires_in: number;
  readonly interval: number;
}

/** The minted PAT, answered exactly once by the token poll. */
export interface DeviceToken {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly pat_id: string;
  readonly name: string;
  readonly prefix: string;
  readonly plaintext: string;
  readonly scopes: Scope[];
  readonly expires_at: string;
}

export type PollResult = { ok: true; token: DeviceToken } | { ok: false; error: DevicePollError };

/** A request as the approving user sees it. */
export interface DeviceRequestView {
  readonly user_code: string;
  readonly name: string;
  readonly description: string;
  readonly scopes: Scope[];
  readonly expires_in_days: number;
  readonly status: DeviceStatus;
  readonly available_scopes: Scope[];
  readonly scope_descriptions: Readonly<Record<string, string>>;
  readonly max_expiry_days: number;
}

export interface DeviceApproved {
  readonly ok: true;
  readonly status: 'approved';
  readonly user_code: string;
  readonly name: string;
  readonly scopes: Scope[];
  readonly expires_in_days: number;
}

export interface DeviceDenied {
  readonly ok: true;
  readonly status: 'denied';
  readonly user_code: string;
}

export interface ApproveOverrides {
  name?: unknown;
  scopes?: unknown;
  expires_in_days?: unknown;
}

/** RFC 8628 device authorization (CONTRACT §7.8). */
export class DeviceService {
  constructor(
    private readonly db: Db,
    private readonly pats: PatService,
    private readonly limiter: FixedWindowLimiter,
    private readonly now: Clock,
  ) {}

  /**
   * Starts a request for a validated PAT spec; `base` is the public origin for the verification URIs. At most
   * `MAX_PENDING_REQUESTS` live pending requests exist at once (all clients together): beyond, 429 until the
   * oldest one expires.
   */
  start(spec: PatSpec, base: string): DeviceStart {
    const now = this.now();
    const pending = this.db
      .prepare(
        `SELECT COUNT(*) AS n, MIN(expires_at) AS first FROM device_requests WHERE expires_at > ? AND status = 'pending'`,
      )
      .get(now) as { n: number; first: number | null };
    if (pending.n >= MAX_PENDING_REQUESTS) {
      const retry = Math.max(1, Math.ceil(((pending.first ?? now) - now) / 1000));
      throw new RateLimitedError(
        `too many pending device authorizations (at most ${MAX_PENDING_REQUESTS}); retry in ${retry} s`,
        { retryAfterSeconds: retry },
      );
    }
    const deviceCode = randomBytes(32).toString('base64url');
    const userCode = this.freshUserCode(now);
    this.db
      .prepare(
        `INSERT INTO device_requests (id, device_code_hash, user_code, name, description, scopes, expires_in_days, status, created, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
      )
      .run(
        recordId(),
        sha256(deviceCode),
        userCode,
        spec.name,
        spec.description,
        JSON.stringify(spec.scopes),
        spec.expiresInDays,
        now,
        now + DEVICE_EXPIRES_IN_S * 1000,
      );
    return {
      device_code: deviceCode,
      user_code: displayCode(userCode),
      verification_uri: `${base}/device`,
      verification_uri_complete: `${base}/device?user_code=${displayCode(userCode)}`,
      expires_in: DEVICE_EXPIRES_IN_S,
      interval: DEVICE_INTERVAL_S,
    };
  }

  private freshUserCode(now: number): string {
    const live = this.db.prepare(
      `SELECT 1 FROM device_requests WHERE user_code = ? AND status IN ('pending', 'approved') AND expires_at > ?`,
    );
    for (;;) {
      const code = randomString(USER_CODE_ALPHABET, 8);
      if (!live.get(code, now)) return code;
    }
  }

  /** The token poll, in the decision order of CONTRACT §7.8. */
  poll(deviceCode: unknown): PollResult {
    if (typeof deviceCode !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(deviceCode))
      return { ok: false, error: 'invalid_grant' };
    return this.db
      .transaction((): PollResult => {
        const row = this.db
          .prepare('SELECT * FROM device_requests WHERE device_code_hash = ?')
          .get(sha256(deviceCode)) as DeviceRow | undefined;
        if (!row || row.status === 'consumed') return { ok: false, error: 'invalid_grant' };
        const now = this.now();
        const polls = row.poll_count + 1;
        const record = (status: DeviceStatus) =>
          this.db
            .prepare('UPDATE device_requests SET status = ?, poll_count = ?, last_poll_at = ? WHERE id = ?')
            .run(status, polls, now, row.id);
        if (row.status === 'expired' || now >= row.expires_at || polls > MAX_POLLS) {
          record('expired');
          return { ok: false, error: 'expired_token' };
        }
        if (row.status === 'denied') {
          record('denied');
          return { ok: false, error: 'access_denied' };
        }
        const tooFast = row.last_poll_at !== null && now - row.last_poll_at < SLOW_DOWN_MS;
        record(row.status);
        if (tooFast) return { ok: false, error: 'slow_down' };
        if (row.status === 'pending') return { ok: false, error: 'authorization_pending' };
        // approved: consume it and mint the PAT for the approving user, in this transaction.
        const moved = this.db
          .prepare(`UPDATE device_requests SET status = 'consumed' WHERE id = ? AND status = 'approved'`)
          .run(row.id).changes;
        if (moved === 0) return { ok: false, error: 'invalid_grant' };
        if (row.approved_by === null) return { ok: false, error: 'access_denied' }; // approver deleted meanwhile
        const pat = this.pats.mint(row.approved_by, {
          name: row.name,
          description: row.description,
          expiresInDays: row.expires_in_days,
          scopes: parseStoredScopes(row.scopes),
        });
        this.db.prepare('UPDATE device_requests SET pat_id = ? WHERE id = ?').run(pat.id, row.id);
        return {
          ok: true,
          token: {
            access_token: pat.plaintext,
            token_type: 'Bearer',
            expires_in: Math.floor((pat.expiresAt - this.now()) / 1000),
            pat_id: pat.id,
            name: pat.name,
            prefix: pat.prefix,
            plaintext: pat.plaintext,
            scopes: [...pat.scopes],
            expires_at: rfc3339(pat.expiresAt),
          },
        };
      })
      .immediate();
  }

  /**
   * Resolves a user code for a session user, applying the failed-lookup throttle (5 unknown or malformed codes
   * per minute per user; then every device request of that user is 429 until the window ends).
   */
  private find(rawUserCode: unknown, userId: string): DeviceRow {
    this.limiter.check(RATE_RULES.userCodeFailures, userId);
    const code = normalizeUserCode(rawUserCode);
    if (code === null) {
      this.limiter.record(RATE_RULES.userCodeFailures, userId);
      throw invalidUserCode();
    }
    const row = this.db
      .prepare('SELECT * FROM device_requests WHERE user_code = ? ORDER BY created DESC LIMIT 1')
      .get(code) as DeviceRow | undefined;
    if (!row) {
      this.limiter.record(RATE_RULES.userCodeFailures, userId);
      throw new NotFoundError('not found');
    }
    if (row.status === 'pending' && this.now() >= row.expires_at) {
      this.db.prepare(`UPDATE device_requests SET status = 'expired' WHERE id = ? AND status = 'pending'`).run(row.id);
      return { ...row, status: 'expired' };
    }
    return row;
  }

  lookup(rawUserCode: unknown, userId: string): DeviceRequestView {
    const row = this.find(rawUserCode, userId);
    return {
      user_code: displayCode(row.user_code),
      name: row.name,
      description: row.description,
      scopes: parseStoredScopes(row.scopes),
      expires_in_days: row.expires_in_days,
      status: row.status,
      available_scopes: SCOPES.map((s) => s.name),
      scope_descriptions: Object.fromEntries(SCOPES.map((s) => [s.name, s.description])),
      max_expiry_days: MAX_EXPIRY_DAYS,
    };
  }

  private assertPending(row: DeviceRow): void {
    if (row.status === 'expired') throw new GoneError('device code expired');
    if (row.status !== 'pending') throw new ConflictError('device code is not pending');
  }

  approve(rawUserCode: unknown, userId: string, overrides: ApproveOverrides): DeviceApproved {
    const row = this.find(rawUserCode, userId);
    this.assertPending(row);
    const name = overrides.name === undefined ? row.name : validateName(overrides.name);
    const scopes: Scope[] =
      overrides.scopes === undefined ? parseStoredScopes(row.scopes) : validateScopes(overrides.scopes);
    const days =
      overrides.expires_in_days === undefined ? row.expires_in_days : validateExpiresInDays(overrides.expires_in_days);
    const changed = this.db
      .prepare(
        `UPDATE device_requests SET status = 'approved', approved_by = ?, name = ?, scopes = ?, expires_in_days = ?
         WHERE id = ? AND status = 'pending'`,
      )
      .run(userId, name, JSON.stringify(scopes), days, row.id).changes;
    if (changed === 0) throw new ConflictError('device code is not pending');
    return { ok: true, status: 'approved', user_code: displayCode(row.user_code), name, scopes, expires_in_days: days };
  }

  deny(rawUserCode: unknown, userId: string): DeviceDenied {
    const row = this.find(rawUserCode, userId);
    this.assertPending(row);
    const changed = this.db
      .prepare(`UPDATE device_requests SET status = 'denied' WHERE id = ? AND status = 'pending'`)
      .run(row.id).changes;
    if (changed === 0) throw new ConflictError('device code is not pending');
    return { ok: true, status: 'denied', user_code: displayCode(row.user_code) };
  }

  /** Deletes requests that expired more than a day ago; returns how many. */
  cleanup(): number {
    return this.db.prepare('DELETE FROM device_requests WHERE expires_at < ?').run(this.now() - CLEANUP_AFTER_MS)
      .changes;
  }
}
