/**
 * Cross-instance notifications (CONTRACT §21): one instance tells the others that something shared changed — a
 * credential revoked, the wiki pulled to a new commit, the metadata index flushed — so they drop or reload what
 * they hold at once instead of at their next periodic check. On PostgreSQL (`SVC_DB_URL`) they travel over
 * LISTEN/NOTIFY (notifications-postgres.ts); the embedded SQLite default runs one instance, whose notifications
 * stay in the process (`LocalNotifications`).
 */

/** What is notified; the payload's meaning is the channel's. */
export type ClusterChannel =
  /** A credential may have been revoked (a PAT deleted, a session ended, a user deleted); payload: the revision. */
  | 'credentials'
  /** A wiki pull completed; payload: the full commit hash it brought the checkout to. */
  | 'wiki'
  /** The metadata index object was written; payload: the writer's instance id. */
  | 'paper-index';

export const CLUSTER_CHANNELS: readonly ClusterChannel[] = ['credentials', 'wiki', 'paper-index'];

/**
 * Receives a notification's payload, or `null` when notifications may have been missed (the listener reconnected
 * after losing its connection): the subscriber then catches up as if anything could have changed.
 */
export type NotificationHandler = (payload: string | null) => void;

/** The notifications port (CONTRACT §21). */
export interface ClusterNotifications {
  /**
   * Whether a notification published now by any instance is sure to reach this instance's subscribers; `false`
   * while the PostgreSQL listener is disconnected (subscribers that must not miss one check the source instead).
   */
  readonly live: boolean;
  /** Sends `payload` to every instance's subscribers of `channel`, this instance's included. */
  publish(channel: ClusterChannel, payload: string): Promise<void>;
  /** Calls `handler` for every notification on `channel`; returns the function that stops it. */
  subscribe(channel: ClusterChannel, handler: NotificationHandler): () => void;
  /** Stops listening; later publishes do nothing. */
  close(): Promise<void>;
}

/** Subscribers by channel, shared by the adapters. */
export class Subscribers {
  private readonly handlers = new Map<ClusterChannel, Set<NotificationHandler>>();

  constructor(private readonly onError: (err: unknown, channel: ClusterChannel) => void) {}

  add(channel: ClusterChannel, handler: NotificationHandler): () => void {
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Calls each handler of `channel`; one handler throwing neither stops the others nor reaches the sender. */
  deliver(channel: ClusterChannel, payload: string | null): void {
    for (const handler of [...(this.handlers.get(channel) ?? [])]) {
      try {
        handler(payload);
      } catch (err) {
        this.onError(err, channel);
      }
    }
  }

  clear(): void {
    this.handlers.clear();
  }
}

/** One instance (the embedded SQLite default): a publish reaches this process's subscribers, on a later tick. */
export class LocalNotifications implements ClusterNotifications {
  readonly live = true;
  private readonly subscribers: Subscribers;
  private closed = false;

  constructor(onError: (err: unknown, channel: ClusterChannel) => void = () => undefined) {
    this.subscribers = new Subscribers(onError);
  }

  async publish(channel: ClusterChannel, payload: string): Promise<void> {
    if (this.closed) return;
    setImmediate(() => {
      if (!this.closed) this.subscribers.deliver(channel, payload);
    });
  }

  subscribe(channel: ClusterChannel, handler: NotificationHandler): () => void {
    return this.subscribers.add(channel, handler);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
  }
}
