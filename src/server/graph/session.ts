/**
 * Sessions and transactions: the one place that opens Neo4j sessions. Every unit of work runs in an explicit
 * transaction (begin, commit, rollback on failure) on a session that is always closed. Explicit rather than the
 * driver's managed transactions, because those retry an unreachable server for 30 s and callers here must fail
 * promptly (claims answer 503, uploads defer the catalog sync, graph endpoints answer `{error}`).
 */
import type { Integer, Session, Transaction } from 'neo4j-driver';
import type { GraphClient } from './driver.js';
import { neo4jDriver } from './neo4j-lib.js';

export type AccessMode = 'READ' | 'WRITE';

export interface TxOptions {
  /** Server-side transaction timeout. */
  readonly timeoutMs?: number;
}

export interface SessionOptions {
  /** Records per PULL; the driver pauses the stream when 70% of it is buffered and unread. */
  readonly fetchSize?: number;
}

/**
 * Opens a session on the configured database. A `READ` session is read-access: the server refuses writes in it
 * (on a cluster it is also routed to a reader).
 */
export function openSession(graph: GraphClient, mode: AccessMode, options: SessionOptions = {}): Session {
  return graph.driver.session({
    defaultAccessMode: mode === 'READ' ? neo4jDriver().session.READ : neo4jDriver().session.WRITE,
    ...(graph.database ? { database: graph.database } : {}),
    ...(options.fetchSize !== undefined ? { fetchSize: options.fetchSize } : {}),
  });
}

/**
 * Runs `work` in one explicit transaction of `session` and resolves with its result as soon as `work` does, with the
 * commit started: the caller waits for it (`inTransaction`), or, for a read whose result is complete, need not and
 * closes the session once it has settled. Rolled back when `work` throws. BEGIN is not awaited: it goes out with the
 * first query (one round trip less, as the driver's own `executeQuery` does); a failed BEGIN fails that query.
 */
export async function inTransactionUntilCommit<T>(
  session: Session,
  work: (tx: Transaction) => Promise<T>,
  options: TxOptions = {},
): Promise<{ result: T; commit: Promise<void> }> {
  const tx = session.beginTransaction(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {});
  try {
    const result = await work(tx);
    const commit = tx.commit();
    commit.catch(() => undefined); // a caller that does not wait still closes the session after it
    return { result, commit };
  } catch (err) {
    if (tx.isOpen()) await tx.rollback().catch(() => undefined);
    throw err;
  }
}

/** Runs `work` in one explicit transaction of `session`: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(
  session: Session,
  work: (tx: Transaction) => Promise<T>,
  options: TxOptions = {},
): Promise<T> {
  const { result, commit } = await inTransactionUntilCommit(session, work, options);
  await commit;
  return result;
}

/** Runs `fn` with a session of `mode`, closing it afterwards whatever happens. */
export async function withSession<T>(graph: GraphClient, mode: AccessMode, fn: (s: Session) => Promise<T>): Promise<T> {
  const session = openSession(graph, mode);
  try {
    return await fn(session);
  } finally {
    await session.close().catch(() => undefined);
  }
}

/** One read transaction on a read-access session. */
export function readTx<T>(graph: GraphClient, work: (tx: Transaction) => Promise<T>, options?: TxOptions): Promise<T> {
  return withSession(graph, 'READ', (s) => inTransaction(s, work, options));
}

/** One write transaction on a write session. */
export function writeTx<T>(graph: GraphClient, work: (tx: Transaction) => Promise<T>, options?: TxOptions): Promise<T> {
  return withSession(graph, 'WRITE', (s) => inTransaction(s, work, options));
}

/**
 * `work`, or a rejection after `ms`: a server that stops answering on an open connection (a frozen process, a
 * silent network) otherwise keeps a caller waiting forever, since the driver's timeouts cover only connecting.
 * The abandoned work settles on its own later (its session is closed then).
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer from the graph within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}

/**
 * Whether a driver error means "the graph cannot be reached" (connection refused, lost, timed out, no server
 * available) rather than a problem with the statement.
 */
export function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  const text = typeof code === 'string' ? code : '';
  return (
    text === 'ServiceUnavailable' ||
    text === 'SessionExpired' ||
    text.startsWith('Neo.TransientError') ||
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|connect|socket/i.test((err as Error | null)?.message ?? '')
  );
}

/** Whether a driver error is transient on a live server (a deadlock or lock timeout: retrying may succeed). */
export function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Neo.TransientError');
}

/** A count or other integer the server returned, as a JS number. */
export function toNumber(value: unknown): number {
  if (neo4jDriver().isInt(value)) return (value as Integer).toNumber();
  if (typeof value === 'bigint') return Number(value);
  return Number(value ?? 0);
}
