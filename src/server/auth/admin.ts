import { InvalidInputError, NotFoundError, RateLimitedError } from '../../shared/domain-errors.js';
import { ConcurrencyGate } from './gate.js';
import type { PatService, PatRecord } from './pats.js';
import { PB_AUTH_FAILED, PB_NOT_FOUND, pbToken } from './pocketbase.js';
import type { AdminCredentialResolver, Principal, RecordCaller, SuperuserPrincipal } from './principal.js';
import { RATE_RULES, type Limiter } from './rate-limit.js';
import type { SessionService } from './sessions.js';
import { superuserPrincipal, superuserRecord, type Superuser, type SuperuserService } from './superusers.js';
import { pbDate } from './time.js';
import { userRecord, type UserStore } from './users.js';

export const PAT_COLLECTION = 'pat_tokens' as const;
/** Concurrent superuser password checks (scrypt N=2^15: 32 MiB and one libuv thread each). */
export const PASSWORD_CHECKS_AT_ONCE = 4;
const PASSWORD_CHECKS_BUSY = 'too many sign-in attempts in progress; retry in 1 s';
const PER_PAGE_DEFAULT = 30;
const PER_PAGE_MAX = 500;

export function patItem(p: PatRecord) {
  return {
    collectionId: PAT_COLLECTION,
    collectionName: PAT_COLLECTION,
    id: p.id,
    user: p.userId,
    name: p.name,
    description: p.description,
    prefix: p.prefix,
    scopes: [...p.scopes],
    expires_at: pbDate(p.expiresAt),
    last_used_at: p.lastUsedAt === null ? '' : pbDate(p.lastUsedAt),
    created: pbDate(p.created),
    updated: pbDate(p.updated),
  };
}

function page<T>(items: T[], pageNo: number, perPage: number, total: number) {
  return { page: pageNo, perPage, totalItems: total, totalPages: Math.ceil(total / perPage), items };
}

const intParam = (raw: unknown, fallback: number, min: number, max: number): number => {
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number.parseInt(raw, 10) : fallback;
  return Math.min(max, Math.max(min, n));
};

/** `user='<id>'` (or double quotes): the one filter form the admin UI and the PAT list use. */
export function parseUserFilter(filter: unknown): string | null | 'invalid' {
  if (filter === undefined || filter === '') return null;
  if (typeof filter !== 'string') return 'invalid';
  const m = /^\s*\(?\s*user\s*=\s*(['"])([A-Za-z0-9_-]+)\1\s*\)?\s*$/.exec(filter);
  return m ? m[2]! : 'invalid';
}

/**
 * The superuser side (CONTRACT §7.9): password sign-in (10 failures/min/IP), the credentials of the admin routes
 * (their guards resolve them here) and the admin data operations, which take the verified caller: a superuser —
 * or, for a user's own PATs, the user of a session.
 */
export class AdminService implements AdminCredentialResolver {
  constructor(
    private readonly superusers: SuperuserService,
    private readonly users: UserStore,
    private readonly pats: PatService,
    private readonly sessions: SessionService,
    private readonly limiter: Limiter,
    private readonly deleteUserFn: (id: string) => Promise<boolean>,
  ) {}

  private readonly passwordChecks = new ConcurrencyGate(PASSWORD_CHECKS_AT_ONCE);

  /**
   * Password sign-in. The attempt counts against the client's failure window before the password is checked (and
   * is refunded when it succeeds), so parallel attempts cannot all reach the check; at most
   * `PASSWORD_CHECKS_AT_ONCE` checks run at a time (each costs 32 MiB and a thread), further ones get 429.
   */
  async authWithPassword(identity: unknown, password: unknown, clientKey: string) {
    const rule = RATE_RULES.superuserLogin;
    await this.limiter.hit(rule, clientKey);
    if (!this.passwordChecks.tryEnter()) {
      await this.limiter.refund(rule, clientKey);
      throw new RateLimitedError(PASSWORD_CHECKS_BUSY, { retryAfterSeconds: 1 });
    }
    let s: Superuser | null;
    try {
      const email = typeof identity === 'string' ? identity.trim().toLowerCase() : '';
      s = await this.superusers.authenticate(email, typeof password === 'string' ? password : '');
    } finally {
      this.passwordChecks.leave();
    }
    if (!s) throw new InvalidInputError(PB_AUTH_FAILED);
    await this.limiter.refund(rule, clientKey);
    return { token: this.superusers.issue(s), record: superuserRecord(s) };
  }

  /** The superuser of a PocketBase token (`Bearer` or raw), or `null`. */
  async superuser(authorization: string | undefined): Promise<SuperuserPrincipal | null> {
    const token = pbToken(authorization);
    const s = token === null ? null : await this.superusers.verify(token);
    return s === null ? null : superuserPrincipal(s);
  }

  /** The user session of a PocketBase token (`Bearer` or raw), or `null`. */
  async session(authorization: string | undefined): Promise<Principal | null> {
    const token = pbToken(authorization);
    return token === null ? null : this.sessions.principal(token);
  }

  async listUsers(_by: SuperuserPrincipal, query: { page?: unknown; perPage?: unknown }) {
    const pageNo = intParam(query.page, 1, 1, Number.MAX_SAFE_INTEGER);
    const perPage = intParam(query.perPage, PER_PAGE_DEFAULT, 1, PER_PAGE_MAX);
    const total = await this.users.count();
    const items = (await this.users.list({ limit: perPage, offset: (pageNo - 1) * perPage })).map(userRecord);
    return page(items, pageNo, perPage, total);
  }

  async deleteUser(_by: SuperuserPrincipal, id: string): Promise<void> {
    if (!(await this.deleteUserFn(id))) throw new NotFoundError(PB_NOT_FOUND);
  }

  /** Ends every session of a user; its PATs are untouched. */
  async revokeSessions(_by: SuperuserPrincipal, id: string): Promise<void> {
    if (!(await this.sessions.revokeAll(id))) throw new NotFoundError(PB_NOT_FOUND);
  }

  /** Superuser: every PAT (or one user's); a user session: only its own. */
  async listPats(caller: RecordCaller, query: { page?: unknown; perPage?: unknown; filter?: unknown }) {
    const filterUser = parseUserFilter(query.filter);
    if (filterUser === 'invalid')
      throw new InvalidInputError('Something went wrong while processing your request. Invalid filter.');
    let records: PatRecord[];
    if (caller.kind === 'superuser') records = await this.pats.list(filterUser ?? undefined);
    else records = filterUser === null || filterUser === caller.userId ? await this.pats.list(caller.userId) : [];
    const pageNo = intParam(query.page, 1, 1, Number.MAX_SAFE_INTEGER);
    const perPage = intParam(query.perPage, PER_PAGE_DEFAULT, 1, PER_PAGE_MAX);
    const items = records.slice((pageNo - 1) * perPage, pageNo * perPage).map(patItem);
    return page(items, pageNo, perPage, records.length);
  }

  /** Owner or superuser; purges the verify cache. */
  async deletePat(caller: RecordCaller, id: string): Promise<void> {
    const revoked = await this.pats.revoke(id, caller.kind === 'superuser' ? undefined : caller.userId);
    if (!revoked) throw new NotFoundError(PB_NOT_FOUND);
  }
}
