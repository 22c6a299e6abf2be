/**
 * The PostgreSQL adapter of the notifications port (CONTRACT §21): LISTEN on one dedicated connection per instance
 * (not a pooled one: a pool hands connections around, a listener must stay), NOTIFY through it. A lost connection
 * is re-opened with backoff; until it is back the port reports `live = false` (subscribers that must not miss a
 * notification read the source meanwhile), and once it is back every subscriber hears `null` ("you may have
 * missed some").
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import pg from 'pg';
import { settleWithin } from '../../shared/deadline.js';
import {
  CLUSTER_CHANNELS,
  Subscribers,
  type ClusterChannel,
  type ClusterNotifications,
  type NotificationHandler,
} from './notifications.js';

/** PostgreSQL channel names (identifiers: no dash). The credential trigger of migration 6 uses `pks_credentials`. */
export const PG_CHANNELS: Readonly<Record<ClusterChannel, string>> = {
  credentials: 'pks_credentials',
  wiki: 'pks_wiki',
  'paper-index': 'pks_paper_index',
};
const CHANNEL_OF = new Map(Object.entries(PG_CHANNELS).map(([k, v]) => [v, k as ClusterChannel]));

const CONNECT_TIMEOUT_MS = 10_000;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;
/** Closing waits this long for publishes under way and the server's goodbye, then drops the socket. */
const CLOSE_WAIT_MS = 2_000;
/**
 * Liveness is proved, not assumed: a connection dropped without a FIN (a NAT timeout, a partition) keeps its client
 * object for hours. The listener notifies itself on a channel of its own every `HEARTBEAT.everyMs` and counts as
 * live only while one came back within `HEARTBEAT.liveWithinMs` — so a revocation is read from its row within 1 s of
 * the path going silent. Silent for `HEARTBEAT.reconnectAfterMs`, the connection is dropped and opened again.
 */
const HEARTBEAT = { everyMs: 250, liveWithinMs: 750, reconnectAfterMs: 5_000 } as const;
/** TCP keepalive probes start after this much idle time (the heartbeats keep the listener busy anyway). */
const KEEPALIVE_DELAY_MS = 5_000;

export interface PostgresNotificationsOptions {
  /** The listener connection's `application_name` (how an operator, or a test, finds it in `pg_stat_activity`). */
  readonly applicationName?: string;
}

export class PostgresNotifications implements ClusterNotifications {
  private readonly subscribers: Subscribers;
  private readonly log: Logger;
  private readonly applicationName: string;
  /** The connected, listening client; `null` while (re)connecting. */
  private client: pg.Client | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryMs = FIRST_RETRY_MS;
  private connecting: Promise<void> | null = null;
  private connectedOnce = false;
  private closed = false;
  /** Publishes under way: closing lets them go out first (the index flush at shutdown is announced too). */
  private readonly publishing = new Set<Promise<void>>();
  /** Resolves after the first connection attempt, whether it succeeded or not. */
  readonly ready: Promise<void>;
  /** This listener's heartbeat channel (an identifier: no other instance listens to it). */
  private readonly heartbeatChannel = `pks_heartbeat_${randomBytes(8).toString('hex')}`;
  /** When the last heartbeat came back (or the connection was made): `performance.now()`. */
  private lastBeat = -Infinity;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private beating = false;

  private constructor(
    private readonly url: string,
    logger: Logger,
    options: PostgresNotificationsOptions,
  ) {
    this.log = logger.child({ component: 'cluster-notifications' });
    this.applicationName = options.applicationName ?? 'pksd listener';
    this.subscribers = new Subscribers((err, channel) =>
      this.log.warn({ err, channel }, 'a cluster notification handler failed'),
    );
    this.ready = this.connect();
  }

  /**
   * Starts connecting the listener in the background: the start does not wait for it, and a first connection that
   * fails is retried like a lost one. The port is not `live` until it is connected.
   */
  static start(url: string, logger: Logger, options: PostgresNotificationsOptions = {}): PostgresNotifications {
    return new PostgresNotifications(url, logger, options);
  }

  get live(): boolean {
    return this.client !== null && performance.now() - this.lastBeat <= HEARTBEAT.liveWithinMs;
  }

  /** The listener's server process id (tests end it with `pg_terminate_backend`); `null` while disconnected. */
  get listenerPid(): number | null {
    return (this.client as (pg.Client & { processID?: number }) | null)?.processID ?? null;
  }

  private newClient(): pg.Client {
    return new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: this.applicationName,
      // A silently dead peer (a network partition) is noticed by TCP keepalive, not only by a failed query.
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    });
  }

  private connect(): Promise<void> {
    this.connecting ??= this.connectOnce().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connectOnce(): Promise<void> {
    if (this.closed) return;
    const client = this.newClient();
    const lost = (err?: Error) => this.lost(client, err);
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => {
      if (msg.channel === this.heartbeatChannel) return this.beat(client);
      const channel = CHANNEL_OF.get(msg.channel);
      if (channel !== undefined) this.subscribers.deliver(channel, msg.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of CLUSTER_CHANNELS) await client.query(`LISTEN ${PG_CHANNELS[channel]}`);
      await client.query(`LISTEN ${this.heartbeatChannel}`);
    } catch (err) {
      void client.end().catch(() => undefined);
      this.log.warn({ err }, `cluster notification listener could not connect; retrying in ${this.retryMs} ms`);
      this.scheduleRetry();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // The LISTENs just went to the server and back.
    this.lastBeat = performance.now();
    this.heartbeatTimer ??= setInterval(() => this.heartbeat(), HEARTBEAT.everyMs);
    this.heartbeatTimer.unref();
    this.retryMs = FIRST_RETRY_MS;
    if (this.connectedOnce) this.log.info('cluster notification listener reconnected');
    this.connectedOnce = true;
    // Whatever was notified while no listener was connected is lost: every subscriber catches up.
    for (const channel of CLUSTER_CHANNELS) this.subscribers.deliver(channel, null);
  }

  /** A heartbeat came back on `client`; after a silence, the subscribers catch up on what they may have missed. */
  private beat(client: pg.Client): void {
    if (client !== this.client) return;
    const silent = !this.live;
    this.lastBeat = performance.now();
    if (!silent) return;
    this.log.debug('cluster notification listener heard again after a silence');
    for (const channel of CLUSTER_CHANNELS) this.subscribers.deliver(channel, null);
  }

  /** Sends the next heartbeat (one at a time); a connection silent for `HEARTBEAT.reconnectAfterMs` is replaced. */
  private heartbeat(): void {
    const client = this.client;
    if (client === null || this.closed) return;
    if (performance.now() - this.lastBeat > HEARTBEAT.reconnectAfterMs) {
      // Its socket may never fail by itself: dropped at once, not ended politely (that would wait on it).
      (client as pg.Client & { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      this.lost(client, new Error(`no heartbeat for ${HEARTBEAT.reconnectAfterMs / 1000} s`));
      return;
    }
    if (this.beating) return;
    this.beating = true;
    client
      .query(`NOTIFY ${this.heartbeatChannel}`)
      .catch(() => undefined) // a lost connection is reported by its error event
      .finally(() => {
        if (client === this.client) this.beating = false;
      });
  }

  private lost(client: pg.Client, err?: Error): void {
    if (client !== this.client) return; // a client still connecting (its connect fails) or already replaced
    this.client = null;
    this.beating = false;
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.log.warn({ err }, 'cluster notification listener lost its connection; reconnecting');
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer !== null) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  publish(channel: ClusterChannel, payload: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const sent = this.send(channel, payload);
    const tracked = sent.catch(() => undefined);
    this.publishing.add(tracked);
    void tracked.then(() => this.publishing.delete(tracked));
    return sent;
  }

  private async send(channel: ClusterChannel, payload: string): Promise<void> {
    const sql = 'SELECT pg_notify($1, $2)';
    const params = [PG_CHANNELS[channel], payload];
    const client = this.client;
    if (client !== null && this.live) {
      await client.query(sql, params);
      return;
    }
    // The listener is reconnecting or silent: a connection of its own carries this one.
    const once = this.newClient();
    once.on('error', () => undefined);
    try {
      await once.connect();
      await once.query(sql, params);
    } finally {
      await once.end().catch(() => undefined);
    }
  }

  subscribe(channel: ClusterChannel, handler: NotificationHandler): () => void {
    return this.subscribers.add(channel, handler);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.heartbeatTimer !== null) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.subscribers.clear();
    const started = performance.now();
    await settleWithin(Promise.all(this.publishing), CLOSE_WAIT_MS, () => undefined);
    // A connection still being opened is ended by connectOnce when it completes (closing does not wait for it).
    const client = this.client;
    this.client = null;
    if (client === null) return;
    const ended = await settleWithin(
      client.end().then(
        () => true,
        () => true,
      ),
      Math.max(0, CLOSE_WAIT_MS - (performance.now() - started)),
      () => false,
    );
    if (!ended) (client as pg.Client & { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }
}
