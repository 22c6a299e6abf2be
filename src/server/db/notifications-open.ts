/**
 * Opens the notifications port the settings call for (CONTRACT §21) and connects the metadata index to it: LISTEN/
 * NOTIFY on the PostgreSQL user database when `SVC_DB_URL` is set, else in-process (one instance).
 */
import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import { LocalNotifications, type ClusterNotifications } from './notifications.js';
import { PostgresNotifications } from './notifications-postgres.js';

export function openClusterNotifications(
  config: Pick<Config, 'dbUrl' | 'instanceId'>,
  logger: Logger,
): ClusterNotifications {
  if (config.dbUrl === null) {
    return new LocalNotifications((err, channel) => logger.warn({ err, channel }, 'a notification handler failed'));
  }
  return PostgresNotifications.start(config.dbUrl, logger, {
    // application_name holds at most 63 bytes: PostgreSQL cuts the rest.
    applicationName: `pksd listener ${config.instanceId}`,
  });
}

/** What the index offers (papers/paper-index.ts `PaperIndex`). */
export interface NotifiedIndex {
  onFlushed(listener: () => void): void;
  reload(): Promise<void>;
}

/**
 * A flush of the index object here is announced on `paper-index`; another instance's announcement (or a listener
 * that reconnected and may have missed one) reloads the index here at once — the reload reads the object only when
 * its ETag changed — instead of at the next 60 s tick.
 */
export function followIndexFlushes(
  index: NotifiedIndex,
  notifications: ClusterNotifications,
  instanceId: string,
  logger: Logger,
): () => void {
  index.onFlushed(() => {
    notifications
      .publish('paper-index', instanceId)
      .catch((err: unknown) => logger.warn({ err }, 'metadata index flush: could not notify the other instances'));
  });
  return notifications.subscribe('paper-index', (writer) => {
    if (writer !== instanceId) void index.reload();
  });
}
