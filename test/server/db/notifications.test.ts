/**
 * The notifications port (CONTRACT §21) on a real PostgreSQL: NOTIFY from one adapter reaches every adapter's
 * subscribers on that channel only; the credential trigger of migration 6 notifies revocations; a listener whose
 * connection is ended (`pg_terminate_backend`) reports `live = false`, reconnects by itself, tells its subscribers
 * they may have missed notifications and hears the next ones; a publish while it is down still goes out; closing
 * stops delivery and never hangs. The in-process adapter of the embedded default delivers to its own subscribers.
 */
import net from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalNotifications, type ClusterChannel } from '../../../src/server/db/notifications.js';
import { NotifiedRevisionPats } from '../../../src/server/db/notifications-credentials.js';
import { PostgresNotifications } from '../../../src/server/db/notifications-postgres.js';
import { PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { usePostgres } from '../../support/postgres.js';
import { until } from '../access/support/clocks.js';

const postgres = usePostgres();
const logger = pino({ level: 'silent' });

const opened: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

async function listener(url = postgres.url, applicationName?: string): Promise<PostgresNotifications> {
  const n = PostgresNotifications.start(url, logger, applicationName ? { applicationName } : {});
  opened.push(n);
  await n.ready;
  return n;
}

/** What a subscriber heard, in order. */
function record(n: { subscribe: PostgresNotifications['subscribe'] }, channel: ClusterChannel): (string | null)[] {
  const heard: (string | null)[] = [];
  n.subscribe(channel, (payload) => heard.push(payload));
  return heard;
}

const PAT_ROW = {
  id: 'p2',
  name: 'ci',
  description: '',
  prefix: 'pat_abcdefgh',
  tokenHash: 'h2',
  scopes: null,
  lastUsedAt: null,
};

/** A TCP forwarder to PostgreSQL that can stop carrying bytes without closing anything (a silent partition). */
async function freezableForwarder(target: number): Promise<{
  port: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}> {
  const pairs: [net.Socket, net.Socket][] = [];
  let frozen = false;
  const link = (from: net.Socket, to: net.Socket) => {
    from.pipe(to);
    to.pipe(from);
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const s of [client, upstream]) s.on('error', () => undefined);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    pairs.push([client, upstream]);
    if (!frozen) link(client, upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze() {
      frozen = true;
      for (const [c, u] of pairs) {
        c.unpipe(u);
        u.unpipe(c);
        c.pause();
        u.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const [c, u] of pairs) link(c, u);
    },
    async close() {
      for (const [c, u] of pairs) {
        c.destroy();
        u.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [pid]);
    expect(rows[0]!.ok).toBe(true);
  } finally {
    await admin.end();
  }
}

describe('PostgreSQL notifications', () => {
  it('a publish reaches the subscribers of that channel on every instance, the publisher included', async () => {
    const a = await listener();
    const b = await listener();
    expect(a.live && b.live).toBe(true);
    const aWiki = record(a, 'wiki');
    const bWiki = record(b, 'wiki');
    const bIndex = record(b, 'paper-index');
    await a.publish('wiki', 'c0ffee');
    await until('both wiki subscribers heard the commit', () => aWiki.length === 1 && bWiki.length === 1, 5_000);
    expect(aWiki).toEqual(['c0ffee']);
    expect(bWiki).toEqual(['c0ffee']);
    await b.publish('paper-index', 'instance-b');
    await until('the index subscriber heard the flush', () => bIndex.length === 1, 5_000);
    expect(bIndex).toEqual(['instance-b']);
    expect(aWiki).toEqual(['c0ffee']); // the other channel's publish did not reach it
  });

  it('revoking a PAT, rotating a token key and deleting a user each notify `credentials` (migration 6)', async () => {
    const db = await PostgresUserDatabase.open(postgres.url);
    opened.push(db);
    const n = await listener();
    const heard = record(n, 'credentials');
    /** Runs `change` and waits until it was notified with the revision it moved to (the payload). */
    const notified = async (what: string, change: () => Promise<unknown>) => {
      await change();
      const revision = String(await db.pats.revision());
      await until(what, () => heard.at(-1) === revision, 5_000);
    };
    const now = Date.now();
    const user = { id: 'u1', email: '', name: '', login: 'alice', avatar: '', provider: 'github' };
    await db.users.upsert({ ...user, providerUserId: '1', tokenKey: 'k1', created: now, updated: now });
    await db.pats.insert({
      id: 'p1',
      userId: 'u1',
      name: 'ci',
      description: '',
      prefix: 'pat_12345678',
      tokenHash: 'h1',
      scopes: null,
      expiresAt: now + 60_000,
      lastUsedAt: null,
      created: now,
      updated: now,
    });
    await notified('the PAT revocation', () => db.pats.delete('p1'));
    await notified('the sessions ended', () => db.users.setTokenKey('u1', 'k2', now + 1));
    await notified('the user deletion', () => db.users.delete('u1'));
    // A use of a PAT is no revocation: it is not notified.
    await db.users.upsert({ ...user, id: 'u2', providerUserId: '2', tokenKey: 'k', created: now, updated: now });
    await db.pats.insert({ ...PAT_ROW, userId: 'u2', created: now, updated: now, expiresAt: now + 60_000 });
    const marker = async (m: string) => {
      await n.publish('credentials', m);
      await until(m, () => heard.at(-1) === m, 5_000);
      return heard.length;
    };
    const before = await marker('before');
    await db.pats.touch('p2', now + 2);
    expect(await marker('after')).toBe(before + 1);
  });

  it('a listener whose connection is terminated reconnects, says it may have missed some, and hears again', async () => {
    const b = await listener(postgres.url, 'pks test reconnect');
    const a = await listener();
    const heard = record(b, 'wiki');
    const pid = b.listenerPid!;
    expect(pid).toBeGreaterThan(0);
    await terminate(pid);
    await until('the listener noticed', () => !b.live, 5_000);
    // Published while b is down: b misses it, and then hears `null` when it is back.
    await a.publish('wiki', 'missed');
    await until('the listener is back', () => b.live, 10_000);
    expect(b.listenerPid).not.toBe(pid);
    await until('the subscriber heard the reconnection', () => heard.includes(null), 5_000);
    expect(heard).not.toContain('missed');
    await a.publish('wiki', 'after');
    await until('the subscriber hears the next one', () => heard.includes('after'), 5_000);
  });

  it('a listener whose connection silently stops (no FIN: a partition) is not live within 1 s; a revocation is read from the row', async () => {
    const forwarder = await freezableForwarder(Number(new URL(postgres.url).port));
    opened.push(forwarder);
    const through = new URL(postgres.url);
    through.port = String(forwarder.port);
    const a = await listener(through.toString(), 'pks test frozen');
    const heard = record(a, 'wiki');
    const db = await PostgresUserDatabase.open(postgres.url);
    opened.push(db);
    const pats = new NotifiedRevisionPats(db.pats, a);
    await until('the listener to be live', () => a.live, 5_000);
    const warm = await pats.revision();
    forwarder.freeze();
    await db.pool.query('UPDATE credential_revision SET n = n + 1 WHERE id = 1');
    const revokedAt = performance.now();
    await until('the revocation to be seen', async () => (await pats.revision()) !== warm, 5_000);
    expect(performance.now() - revokedAt).toBeLessThan(1_000);
    expect(a.live).toBe(false);
    // The path is back: the listener is live again and its subscribers catch up on what they may have missed.
    forwarder.thaw();
    await until('the listener to be live again', () => a.live, 10_000);
    await until('the subscriber to hear it may have missed some', () => heard.includes(null), 5_000);
  });

  it('a publish while the publisher’s own listener is down still reaches the others', async () => {
    const a = await listener(postgres.url, 'pks test publisher');
    const b = await listener();
    const heard = record(b, 'paper-index');
    await terminate(a.listenerPid!);
    await until('the publisher noticed', () => !a.live, 5_000);
    await a.publish('paper-index', 'while-down');
    await until('the other instance heard it', () => heard.includes('while-down'), 5_000);
  });

  it('after close nothing is delivered and a publish does nothing; closing twice is fine', async () => {
    const a = await listener();
    const b = await listener();
    const heard = record(b, 'wiki');
    await b.close();
    expect(b.live).toBe(false);
    await b.close();
    await b.publish('wiki', 'ignored');
    await a.publish('wiki', 'after-close');
    // a hears its own publish; by then b would have heard it too.
    const own = record(a, 'wiki');
    await a.publish('wiki', 'marker');
    await until('the publisher heard the marker', () => own.includes('marker'), 5_000);
    expect(heard).toEqual([]);
  });

  it('a publish under way when the publisher closes still goes out (the index flush at shutdown)', async () => {
    const a = await listener();
    const b = await listener();
    const heard = record(b, 'paper-index');
    const sent = a.publish('paper-index', 'last-flush');
    await a.close();
    await sent;
    await until('the other instance heard it', () => heard.includes('last-flush'), 5_000);
  });

  it('a database that cannot be reached fails neither the start nor the close', async () => {
    const url = new URL(postgres.url);
    url.pathname = '/pks_no_such_database';
    const n = await listener(url.toString());
    expect(n.live).toBe(false);
    await n.close();
  });
});

describe('in-process notifications (the embedded default: one instance)', () => {
  it('deliver to the process’s subscribers on a later tick; a failing handler does not stop the others', async () => {
    const errors: unknown[] = [];
    const n = new LocalNotifications((err) => errors.push(err));
    opened.push(n);
    expect(n.live).toBe(true);
    const heard: (string | null)[] = [];
    n.subscribe('wiki', () => {
      throw new Error('boom');
    });
    const stop = n.subscribe('wiki', (p) => heard.push(p));
    await n.publish('wiki', 'one');
    expect(heard).toEqual([]); // not synchronously
    await until('the subscriber heard it', () => heard.length === 1, 5_000);
    expect(heard).toEqual(['one']);
    expect(errors).toHaveLength(1);
    stop();
    await n.publish('wiki', 'two');
    await n.close();
    await n.publish('wiki', 'three');
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual(['one']);
  });
});
