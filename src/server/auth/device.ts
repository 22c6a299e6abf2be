import { createHash, randomBytes } from 'node:crypto';
import {
  ConflictError,
  GoneError,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
} from '../../shared/domain-errors.js';
import type {
  DeviceApproved,
  DeviceCode,
  DeviceDenied,
  DeviceRequestView,
  DeviceToken,
} from '../../shared/api/device.js';
import { MAX_EXPIRY_DAYS, SCOPES, type Scope } from '../../shared/scopes.js';
import type { DeviceRepository, DeviceRow } from '../db/user-database.js';
import { parseStoredScopes, validateExpiresInDays, validateName, validateScopes, type PatSpec } from './pat-spec.js';
import type { PatService } from './pats.js';
import { RATE_RULES, type Limiter } from './rate-limit.js';
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

export type DevicePollError =
  'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant';

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

export type PollResult = { ok: true; token: DeviceToken } | { ok: false; error: DevicePollError };

export interface ApproveOverrides {
  name?: unknown;
  scopes?: unknown;
  expires_in_days?: unknown;
}

/** RFC 8628 device authorization (CONTRACT §7.8). */
export class DeviceService {
  constructor(
    private readonly repo: DeviceRepository,
    private readonly pats: PatService,
    private readonly limiter: Limiter,
    private readonly now: Clock,
  ) {}

  /**
   * Starts a request for a validated PAT spec; `base` is the public origin for the verification URIs. At most
   * `MAX_PENDING_REQUESTS` live pending requests exist at once (all clients together): beyond, 429 until the
   * oldest one expires.
   */
  async start(spec: PatSpec, base: string): Promise<DeviceCode> {
    const now = this.now();
    const pending = await this.repo.pending(now);
    if (pending.count >= MAX_PENDING_REQUESTS) {
      const retry = Math.max(1, Math.ceil(((pending.firstExpiry ?? now) - now) / 1000));
      throw new RateLimitedError(
        `too many pending device authorizations (at most ${MAX_PENDING_REQUESTS}); retry in ${retry} s`,
        { retryAfterSeconds: retry },
      );
    }
    const deviceCode = randomBytes(32).toString('base64url');
    const userCode = await this.freshUserCode(now);
    await this.repo.insert({
      id: recordId(),
      deviceCodeHash: sha256(deviceCode),
      userCode,
      name: spec.name,
      description: spec.description,
      scopes: JSON.stringify(spec.scopes),
      expiresInDays: spec.expiresInDays,
      status: 'pending',
      approvedBy: null,
      patId: null,
      pollCount: 0,
      lastPollAt: null,
      created: now,
      expiresAt: now + DEVICE_EXPIRES_IN_S * 1000,
    });
    return {
      device_code: deviceCode,
      user_code: displayCode(userCode),
      verification_uri: `${base}/device`,
      verification_uri_complete: `${base}/device?user_code=${displayCode(userCode)}`,
      expires_in: DEVICE_EXPIRES_IN_S,
      interval: DEVICE_INTERVAL_S,
    };
  }

  private async freshUserCode(now: number): Promise<string> {
    for (;;) {
      const code = randomString(USER_CODE_ALPHABET, 8);
      if (!(await this.repo.userCodeLive(code, now))) return code;
    }
  }

  /**
   * The token poll, in the decision order of CONTRACT §7.8. The poll is counted atomically; an approved request
   * is consumed by one conditional update, so two concurrent polls never both get the token.
   */
  async poll(deviceCode: unknown): Promise<PollResult> {
    if (typeof deviceCode !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(deviceCode))
      return { ok: false, error: 'invalid_grant' };
    const now = this.now();
    const row = await this.repo.registerPoll(sha256(deviceCode), now);
    if (!row || row.status === 'consumed') return { ok: false, error: 'invalid_grant' };
    const polls = row.pollCount + 1;
    if (row.status === 'expired' || now >= row.expiresAt || polls > MAX_POLLS) {
      // Only from the status read: a concurrent poll may have consumed the request meanwhile.
      await this.repo.setStatus(row.id, 'expired', row.status);
      return { ok: false, error: 'expired_token' };
    }
    if (row.status === 'denied') return { ok: false, error: 'access_denied' };
    const tooFast = row.lastPollAt !== null && now - row.lastPollAt < SLOW_DOWN_MS;
    if (tooFast) return { ok: false, error: 'slow_down' };
    if (row.status === 'pending') return { ok: false, error: 'authorization_pending' };
    if (row.approvedBy === null) {
      await this.repo.setStatus(row.id, 'denied', 'approved'); // approver deleted
      return { ok: false, error: 'access_denied' };
    }
    // approved: in one transaction, consume it and store the PAT minted for the approving user.
    const { row: patRow, pat } = this.pats.draft(row.approvedBy, {
      name: row.name,
      description: row.description,
      expiresInDays: row.expiresInDays,
      scopes: parseStoredScopes(row.scopes),
    });
    const outcome = await this.repo.consumeAndMint(row.id, patRow);
    if (outcome === 'not-approved') return { ok: false, error: 'invalid_grant' };
    if (outcome === 'approver-gone') return { ok: false, error: 'access_denied' };
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
  }

  /**
   * Resolves a user code for a session user, applying the failed-lookup throttle (5 unknown or malformed codes
   * per minute per user; then every device request of that user is 429 until the window ends). Each attempt is
   * counted as a failure before the lookup and refunded when the code is found, so concurrent attempts cannot all
   * pass the check before any of them is recorded.
   */
  private async find(rawUserCode: unknown, userId: string): Promise<DeviceRow> {
    try {
      await this.limiter.hit(RATE_RULES.userCodeFailures, userId);
    } catch (err) {
      // A refused request is no attempt: the window stays at the limit, not above it.
      if (err instanceof RateLimitedError) await this.limiter.refund(RATE_RULES.userCodeFailures, userId);
      throw err;
    }
    const code = normalizeUserCode(rawUserCode);
    if (code === null) throw invalidUserCode();
    const row = await this.repo.latestByUserCode(code);
    if (!row) throw new NotFoundError('not found');
    await this.limiter.refund(RATE_RULES.userCodeFailures, userId);
    if (row.status === 'pending' && this.now() >= row.expiresAt) {
      await this.repo.setStatus(row.id, 'expired', 'pending');
      return { ...row, status: 'expired' };
    }
    return row;
  }

  async lookup(rawUserCode: unknown, userId: string): Promise<DeviceRequestView> {
    const row = await this.find(rawUserCode, userId);
    return {
      user_code: displayCode(row.userCode),
      name: row.name,
      description: row.description,
      scopes: parseStoredScopes(row.scopes),
      expires_in_days: row.expiresInDays,
      status: row.status,
      available_scopes: SCOPES.map((s) => s.name),
      scope_descriptions: Object.fromEntries(SCOPES.map((s) => [s.name, s.description])),
      max_expiry_days: MAX_EXPIRY_DAYS,
      expires_at: rfc3339(row.expiresAt),
    };
  }

  private assertPending(row: DeviceRow): void {
    if (row.status === 'expired') throw new GoneError('device code expired');
    if (row.status !== 'pending') throw new ConflictError('device code is not pending');
  }

  async approve(rawUserCode: unknown, userId: string, overrides: ApproveOverrides): Promise<DeviceApproved> {
    const row = await this.find(rawUserCode, userId);
    this.assertPending(row);
    const name = overrides.name === undefined ? row.name : validateName(overrides.name);
    const scopes: Scope[] =
      overrides.scopes === undefined ? parseStoredScopes(row.scopes) : validateScopes(overrides.scopes);
    const days =
      overrides.expires_in_days === undefined ? row.expiresInDays : validateExpiresInDays(overrides.expires_in_days);
    if (!(await this.repo.approve(row.id, userId, name, JSON.stringify(scopes), days))) {
      throw new ConflictError('device code is not pending');
    }
    return { ok: true, status: 'approved', user_code: displayCode(row.userCode), name, scopes, expires_in_days: days };
  }

  async deny(rawUserCode: unknown, userId: string): Promise<DeviceDenied> {
    const row = await this.find(rawUserCode, userId);
    this.assertPending(row);
    if (!(await this.repo.setStatus(row.id, 'denied', 'pending'))) {
      throw new ConflictError('device code is not pending');
    }
    return { ok: true, status: 'denied', user_code: displayCode(row.userCode) };
  }

  /** Deletes requests that expired more than a day ago; returns how many. */
  cleanup(): Promise<number> {
    return this.repo.deleteExpiredBefore(this.now() - CLEANUP_AFTER_MS);
  }
}
