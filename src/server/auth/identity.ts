import type { Logger } from 'pino';
import { processInputs } from '../config/index.js';
import { showSettings, type ShownSetting } from '../config/show.js';
import type { Config } from '../config/types.js';
import { openDatabase, type Db } from '../db/database.js';
import { loadOrCreateInstanceKey } from '../db/instance-key.js';
import { AdminService } from './admin.js';
import { loginAllowed } from './allow-list.js';
import { DeviceService } from './device.js';
import { OAuthService, type FetchLike } from './oauth.js';
import { PAT_PREFIX, PatService } from './pats.js';
import type { CredentialVerifier } from './principal.js';
import { FixedWindowLimiter } from './rate-limit.js';
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
  readonly db: Db;
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
  /** The in-process rate limiter shared by every route module (CONTRACT §7.7). */
  readonly limiter: FixedWindowLimiter;
  /** Deletes a user, its PATs (cascade, purged from the verify cache) and thereby its sessions. */
  deleteUser(id: string): boolean;
  close(): void;
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
}

/** Opens `<SVC_DB_DATA_DIR>/pksd.db` (migrating it) and the instance secret, and builds the services. */
export function openIdentity(config: Config, logger: Logger, options: IdentityOptions = {}): Identity {
  const now = options.now ?? systemClock;
  const secret = loadOrCreateInstanceKey(config.dbDataDir);
  const db = openDatabase(config.dbDataDir);
  const users = new UserStore(db, now);
  const allowed = (login: string) => loginAllowed(config, login);
  const pats = new PatService(db, secret, now, allowed, logger);
  const sessions = new SessionService(users, secret, now, allowed);
  const superusers = new SuperuserService(db, secret, now);
  const limiter = new FixedWindowLimiter(now);
  const devices = new DeviceService(db, pats, limiter, now);
  const oauth = new OAuthService(config, users, sessions, options.fetch ?? fetch, logger);

  const deleteUser = (id: string): boolean => {
    pats.purgeUser(id);
    return users.delete(id);
  };
  const admin = new AdminService(superusers, users, pats, sessions, limiter, deleteUser);

  let timer: NodeJS.Timeout | null = null;
  if (options.background !== false) {
    timer = setInterval(() => {
      try {
        const n = devices.cleanup();
        if (n > 0) logger.debug(`deleted ${n} expired device requests`);
      } catch (err) {
        logger.warn({ err }, 'device request cleanup failed');
      }
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
    close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      db.close();
    },
  };
}
