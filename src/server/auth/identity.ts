import type { Logger } from 'pino';
import { processInputs } from '../config/index.js';
import { showSettings, type ShownSetting } from '../config/show.js';
import type { Config } from '../config/types.js';
import type { ClusterNotifications } from '../db/notifications.js';
import { NotifiedRevisionPats } from '../db/notifications-credentials.js';
import { openUserDatabase } from '../db/open.js';
import type { UserDatabase } from '../db/user-database.js';
import { AdminService } from './admin.js';
import { loginAllowed } from './allow-list.js';
import { DeviceService } from './device.js';
import { OAuthService, type FetchLike } from './oauth.js';
import { PAT_PREFIX, PatService } from './pats.js';
import type { CredentialVerifier } from './principal.js';
import { SharedLimiter, type Limiter } from './rate-limit.js';
import { SessionService } from './sessions.js';
import { SuperuserService } from './superusers.js';
import { systemClock, type Clock } from './time.js';
import { UserStore } from './users.js';

const DEVICE_CLEANUP_MS = 10 * 60_000;

/**
 * The identity module (users, sessions, PATs, device flow): the services the HTTP layer and commands use, and
 * the verifiers it adds to the credential chain after the system PAT.
 */
export interface Identity {
  /** User PAT, then session (CONTRACT §7.1 order after the system PAT). */
  readonly verifiers: readonly CredentialVerifier[];
  /** The user database (SQLite or PostgreSQL, CONTRACT §21). */
  readonly db: UserDatabase;
  readonly now: Clock;
  readonly users: UserStore;
  readonly pats: PatService;
  readonly sessions: SessionService;
  readonly superusers: SuperuserService;
  readonly devices: DeviceService;
  readonly oauth: OAuthService;
  readonly admin: AdminService;
  /** Effective settings, secrets masked as `pksd config show` (admin UI). */
  settings(): readonly ShownSetting[];
  /** The rate limiter shared by every route module (CONTRACT §7.7), counting in the user database (§21). */
  readonly limiter: Limiter;
  /** Deletes a user, its PATs (cascade, purged from the verify cache) and thereby its sessions. */
  deleteUser(id: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface IdentityOptions {
  /** Clock for expiries, sessions and rate windows (tests inject one). */
  readonly now?: Clock;
  /** HTTP client for the identity provider (tests may inject one). */
  readonly fetch?: FetchLike;
  /** Skip the periodic device-request cleanup (one-shot commands). */
  readonly background?: boolean;
  /**
   * Effective settings for the admin UI. Default: re-resolved from this process's environment and env file
   * (flags passed to `pksd serve` are not visible there; see the report).
   */
  readonly settings?: () => readonly ShownSetting[];
  /**
   * Cross-instance notifications (`pksd serve`): on PostgreSQL the PAT verify cache follows the credential
   * notifications instead of reading the revision row per request. SQLite's revision is local and free already.
   */
  readonly notifications?: ClusterNotifications;
}

/**
 * Opens the user database (`SVC_DB_URL`, else `<SVC_DB_DATA_DIR>/pksd.db`; migrating it) and the instance secret,
 * and builds the services.
 */
export async function openIdentity(config: Config, logger: Logger, options: IdentityOptions = {}): Promise<Identity> {
  const now = options.now ?? systemClock;
  const db = await openUserDatabase(config);
  let secret: Buffer;
  try {
    secret = await db.instanceKey();
  } catch (err) {
    await db.close();
    throw err;
  }
  const users = new UserStore(db.users, now);
  const allowed = (login: string) => loginAllowed(config, login);
  const patRepository =
    config.dbUrl !== null && options.notifications ? new NotifiedRevisionPats(db.pats, options.notifications) : db.pats;
  const pats = new PatService(patRepository, secret, now, allowed, logger);
  const sessions = new SessionService(users, secret, now, allowed);
  const superusers = new SuperuserService(db.superusers, secret, now);
  const limiter = new SharedLimiter(db.rateCounters, now);
  const devices = new DeviceService(db.devices, pats, limiter, now);
  const oauth = new OAuthService(config, users, sessions, options.fetch ?? fetch, logger);

  // The user's PATs go with it (cascade): evicted from the verify cache after the delete, so a verify in flight
  // cannot cache one again.
  const deleteUser = async (id: string): Promise<boolean> => {
    const tokenHashes = await pats.tokenHashesOf(id);
    const deleted = await users.delete(id);
    pats.evict(tokenHashes);
    return deleted;
  };
  const admin = new AdminService(superusers, users, pats, sessions, limiter, deleteUser);

  let timer: NodeJS.Timeout | null = null;
  if (options.background !== false) {
    timer = setInterval(() => {
      devices.cleanup().then(
        (n) => {
          if (n > 0) logger.debug(`deleted ${n} expired device requests`);
        },
        (err: unknown) => logger.warn({ err }, 'device request cleanup failed'),
      );
    }, DEVICE_CLEANUP_MS);
    timer.unref();
  }

  const verifiers: CredentialVerifier[] = [
    async (token, touch) => pats.verify(token, touch),
    async (token) => (token.startsWith(PAT_PREFIX) ? null : sessions.principal(token)),
  ];

  let closed = false;
  return {
    verifiers,
    db,
    now,
    users,
    pats,
    sessions,
    superusers,
    devices,
    oauth,
    admin,
    settings: options.settings ?? (() => showSettings(processInputs(new Map())).settings),
    limiter,
    deleteUser,
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      await db.close();
    },
  };
}
