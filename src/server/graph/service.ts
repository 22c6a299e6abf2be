/**
 * The graph endpoints' domain (CONTRACT §14): statistics, schema and read-only queries. A graph that is not
 * configured, unreachable or failing is an answer here, not an exception: `{error}` (the query route adds the
 * query as run). Only the query's own validation throws (`InvalidInputError`, 400).
 */
import type { Plan, Session, Transaction } from 'neo4j-driver';
import type {
  GraphFailure,
  GraphQueryFailure,
  GraphQueryResult,
  GraphSchema,
  GraphStats,
} from '../../shared/api/graph.js';
import { InvalidInputError, RateLimitedError } from '../../shared/domain-errors.js';
import { BoltMessageTooLargeError, withBoltMessageCap } from './bolt-message-cap.js';
import type { GraphClient } from './driver.js';
import { queryResultJson, recordJsonOf, valueJsons } from './query-json.js';
import { planRefusal, procedureRefused } from './query-plan.js';
import { MAX_QUERY_RECORDS, prepareQuery, type PreparedQuery } from './query-text.js';
import {
  inTransaction,
  inTransactionUntilCommit,
  openSession,
  toNumber,
  withDeadline,
  type SessionOptions,
} from './session.js';
import type { JsonText } from './values.js';

export const GRAPH_NOT_CONFIGURED = 'graph not configured (GRAPHDB_URI empty)';

/** Stats and schema answer within this (§14: 10 s). */
const METADATA_TIMEOUT_MS = 10_000;
/**
 * One PULL carries the whole capped result; a longer one costs at most one more batch before it is discarded. The
 * driver hands each record over as it is decoded, so a batch is never held whole.
 */
const QUERY_SESSION: SessionOptions = { fetchSize: MAX_QUERY_RECORDS + 1 };
const EXPLAIN = 'EXPLAIN ';
const TOO_MANY_QUERIES = 'too many graph queries in flight; retry shortly';
/** The answer nobody reads: the client has gone. */
const CLIENT_GONE = 'the client disconnected';
const DEFAULT_QUERY_TIMEOUT_SECONDS = 30;
const DEFAULT_QUERY_CONCURRENCY = 4;
const DEFAULT_QUERY_MAX_BYTES = 16 * 1024 * 1024;
/** Beyond the server-side transaction timeout, how long the client waits for the server to say so. */
const CLIENT_GRACE_MS = 5_000;

export interface GraphServiceOptions {
  /** `SVC_GRAPH_QUERY_TIMEOUT_SECONDS`: transaction timeout of `query` (default 30). */
  readonly queryTimeoutSeconds?: number | null;
  /** `SVC_GRAPH_QUERY_CONCURRENCY`: queries in flight at most (default 4); the client's pool should be this size. */
  readonly queryConcurrency?: number;
  /** `SVC_GRAPH_QUERY_MAX_BYTES`: encoded size of `records` before the answer is cut (default 16 MiB). */
  readonly queryMaxBytes?: number;
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const escapeLabel = (label: string): string => `\`${label.replace(/`/g, '``')}\``;

async function column(tx: Transaction, query: string, key: string): Promise<string[]> {
  const res = await tx.run(query);
  return res.records.map((r) => String(r.get(key))).sort(byName);
}

function message(err: unknown): string {
  return err instanceof Error && err.message !== '' ? err.message : String(err);
}

export class GraphService {
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly maxBytes: number;
  private inFlight = 0;
  private builtInFunctions: Promise<ReadonlySet<string>> | undefined;

  /** `graph`: the client of user queries (`createUserQueryClient`), never the one claims and sync use. */
  constructor(
    private readonly graph: GraphClient | null,
    options: GraphServiceOptions = {},
  ) {
    this.timeoutMs = (options.queryTimeoutSeconds ?? DEFAULT_QUERY_TIMEOUT_SECONDS) * 1000;
    this.concurrency = options.queryConcurrency ?? DEFAULT_QUERY_CONCURRENCY;
    this.maxBytes = options.queryMaxBytes ?? DEFAULT_QUERY_MAX_BYTES;
  }

  get configured(): boolean {
    return this.graph !== null;
  }

  /**
   * Runs `work` in one read transaction on a read-access session (the database refuses writes in it), bounded
   * by `timeoutMs` on the server and, with some grace, on the client (a silent server must not hang the request).
   * A result that `final` calls complete is answered without waiting for the commit (nothing to commit in a read);
   * the session closes in the background once the transaction has ended.
   */
  private async read<T>(
    timeoutMs: number | null,
    work: (tx: Transaction) => Promise<T>,
    options: SessionOptions = {},
    final: (result: T) => boolean = () => true,
  ): Promise<T> {
    // Connections of this pool are opened here or in `query`, both with the message cap.
    const session = openSession(this.graph!, 'READ', options);
    let timer: NodeJS.Timeout | undefined;
    let ended: Promise<unknown> = Promise.resolve();
    try {
      const run = withBoltMessageCap(this.maxBytes, () =>
        inTransactionUntilCommit(session, work, timeoutMs === null ? {} : { timeoutMs }),
      ).then(async ({ result, commit }) => {
        ended = commit.catch(() => undefined);
        if (!final(result)) await commit;
        return result;
      });
      if (timeoutMs === null) return await run;
      const waitMs = timeoutMs + CLIENT_GRACE_MS;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`graph did not answer within ${waitMs / 1000} s`)), waitMs);
      });
      run.catch(() => undefined); // a late failure after the deadline is not unhandled
      return await Promise.race([run, deadline]);
    } finally {
      clearTimeout(timer);
      // A silent server could hold the commit or the close: nobody waits for either.
      void ended.then(() => session.close()).catch(() => undefined);
    }
  }

  /** `GET /api/graph/stats`: every node, every relationship, every label counted. */
  async stats(): Promise<GraphStats | GraphFailure> {
    if (this.graph === null) return { error: GRAPH_NOT_CONFIGURED };
    try {
      return await this.read(METADATA_TIMEOUT_MS, async (tx) => {
        const nodes = await tx.run('MATCH (n) RETURN count(n) AS n');
        const relationships = await tx.run('MATCH ()-[r]->() RETURN count(r) AS n');
        const labels = await column(tx, 'CALL db.labels() YIELD label RETURN label', 'label');
        const labelCounts: Record<string, number> = {};
        // Each count is answered from the count store; one statement per label (labels are not parameters).
        for (const label of labels) {
          const res = await tx.run(`MATCH (n:${escapeLabel(label)}) RETURN count(n) AS n`);
          labelCounts[label] = toNumber(res.records[0]?.get('n'));
        }
        return {
          nodes: toNumber(nodes.records[0]?.get('n')),
          relationships: toNumber(relationships.records[0]?.get('n')),
          labels,
          label_counts: labelCounts,
        };
      });
    } catch (err) {
      return { error: message(err) };
    }
  }

  /** `GET /api/graph/schema`: labels, relationship types and property keys, each sorted. */
  async schema(): Promise<GraphSchema | GraphFailure> {
    if (this.graph === null) return { error: GRAPH_NOT_CONFIGURED };
    try {
      return await this.read(METADATA_TIMEOUT_MS, async (tx) => ({
        labels: await column(tx, 'CALL db.labels() YIELD label RETURN label', 'label'),
        relationship_types: await column(
          tx,
          'CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType',
          'relationshipType',
        ),
        property_keys: await column(tx, 'CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey', 'propertyKey'),
      }));
    } catch (err) {
      return { error: message(err) };
    }
  }

  /**
   * `POST /api/graph/query` (§14, §14.1). Validates the text (throws `InvalidInputError` for the 400s, also without a
   * graph), takes one of `SVC_GRAPH_QUERY_CONCURRENCY` slots (`RateLimitedError` when none is free), has the database
   * plan the query as run and refuses by the plan (`InvalidInputError`), then streams the records out of a read
   * transaction, encoding each as it arrives, up to 10,000 records or `SVC_GRAPH_QUERY_MAX_BYTES` of them. A success
   * is answered as JSON text, ready to send. `signal` aborting (the client went away) ends the transaction on the
   * server at once.
   */
  async query(
    text: string,
    limit: number | undefined,
    signal?: AbortSignal,
  ): Promise<JsonText<GraphQueryResult> | GraphQueryFailure | GraphFailure> {
    const prepared = prepareQuery(text, limit);
    if (this.graph === null) return { error: GRAPH_NOT_CONFIGURED };
    if (this.inFlight >= this.concurrency) {
      throw new RateLimitedError(TOO_MANY_QUERIES, { retryAfterSeconds: 1 });
    }
    this.inFlight++;
    const session = openSession(this.graph, 'READ', QUERY_SESSION);
    // Closing a session with a running query resets its connection: the server ends the transaction at once.
    const closed = once(() => settle(session.close(), CLIENT_GRACE_MS));
    const onAbort = (): void => void closed();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted) return { query: prepared.run, error: CLIENT_GONE };
      const work = withBoltMessageCap(this.maxBytes, () => this.planAndRun(session, prepared));
      work.catch(() => undefined);
      const aborted = new Promise<GraphQueryFailure>((resolve) =>
        signal?.addEventListener('abort', () => resolve({ query: prepared.run, error: CLIENT_GONE }), { once: true }),
      );
      return await withDeadline(Promise.race([work, aborted]), this.timeoutMs + CLIENT_GRACE_MS, 'graph query');
    } catch (err) {
      if (err instanceof InvalidInputError) throw err;
      return { query: prepared.run, error: message(err) };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      void closed().finally(() => this.inFlight--);
    }
  }

  /** Plans `prepared` (refusing by the plan), then runs it; both on `session`, each in a read transaction. */
  private async planAndRun(
    session: Session,
    prepared: PreparedQuery,
  ): Promise<JsonText<GraphQueryResult> | GraphQueryFailure> {
    const timeout = { timeoutMs: this.timeoutMs };
    let plan: Explained;
    try {
      plan = await inTransaction(session, (tx) => explain(tx, prepared.run), timeout);
    } catch (err) {
      return { query: prepared.run, error: await this.planFailure(session, prepared, err) };
    }
    await this.refuseByPlan(session, plan);
    // Records past the cap may still fail the query: the commit tells. A connection that dropped an oversized
    // message is broken and has nothing to commit.
    const { result, commit } = await inTransactionUntilCommit(
      session,
      (tx) => streamRecords(tx, prepared.run, this.maxBytes),
      timeout,
    );
    if (!result.connectionLost) await commit;
    return result.text;
  }

  private async refuseByPlan(session: Session, plan: Explained): Promise<void> {
    const builtIns = await this.builtInFunctionsOn(session);
    const refusal = planRefusal(plan.plan, plan.queryType, builtIns);
    if (refusal !== null) throw new InvalidInputError(refusal);
  }

  /**
   * The error of a query that could not be planned, in terms of what the user sent: a missing procedure is refused
   * (it is outside the allow-list whatever it is); a syntax error caused by the appended `LIMIT` (a standalone
   * `CALL`, say) is named as such, after the query as sent has been planned and judged on its own.
   */
  private async planFailure(session: Session, prepared: PreparedQuery, err: unknown): Promise<string> {
    refuseMissingProcedure(err);
    const position = errorPosition(err, prepared);
    if (prepared.appended !== null && position !== null && position >= prepared.sent.length) {
      try {
        await this.refuseByPlan(
          session,
          await inTransaction(session, (tx) => explain(tx, prepared.sent), { timeoutMs: this.timeoutMs }),
        );
      } catch (sentErr) {
        if (sentErr instanceof InvalidInputError) throw sentErr;
        refuseMissingProcedure(sentErr);
      }
    }
    return userFacingError(err, prepared);
  }

  /** Lower-cased names of the database's built-in functions, asked once (`SHOW FUNCTIONS` is a read). */
  private builtInFunctionsOn(session: Session): Promise<ReadonlySet<string>> {
    this.builtInFunctions ??= inTransaction(session, async (tx) => {
      const res = await tx.run('SHOW FUNCTIONS YIELD name, isBuiltIn WHERE isBuiltIn RETURN name');
      return new Set(res.records.map((r) => String(r.get('name')).toLowerCase()));
    });
    this.builtInFunctions.catch(() => (this.builtInFunctions = undefined));
    return this.builtInFunctions;
  }
}

interface Explained {
  readonly plan: Plan;
  readonly queryType: string | undefined;
}

async function explain(tx: Transaction, query: string): Promise<Explained> {
  const { summary } = await tx.run(`${EXPLAIN}${query}`);
  if (summary.plan === false) throw new Error('the graph returned no plan for the query');
  return { plan: summary.plan, queryType: summary.queryType ?? undefined };
}

/** A procedure the database does not know is outside the allow-list too. */
function refuseMissingProcedure(err: unknown): void {
  if ((err as { code?: unknown } | null)?.code !== 'Neo.ClientError.Procedure.ProcedureNotFound') return;
  const name = /`([^`]+)`/.exec(message(err))?.[1];
  throw new InvalidInputError(procedureRefused(name ?? '(unknown)'));
}

/** `(line 1, column 18 (offset: 17))` in a Neo4j error, then the quoted line and a caret. */
const POSITION = /^(.*?) ?\(line (\d+), column (\d+) \(offset: (\d+)\)\)/s;

/** Where in the query as run (without the `EXPLAIN ` the planning added) a Neo4j error points, or null. */
function errorPosition(err: unknown, prepared: PreparedQuery): number | null {
  const found = POSITION.exec(message(err));
  if (!found) return null;
  return Math.min(Math.max(Number(found[4]) - EXPLAIN.length, 0), prepared.run.length);
}

/**
 * A planning error as the user should read it: positions in the query as sent, the quoted line taken from what the
 * user sent (Neo4j quotes the `EXPLAIN`-prefixed query, appended `LIMIT` included), and an error in the appended
 * `LIMIT` named as such rather than quoted as if the user had written it.
 */
function userFacingError(err: unknown, prepared: PreparedQuery): string {
  const text = message(err);
  const found = POSITION.exec(text);
  if (!found) return text.split(EXPLAIN + prepared.run).join(prepared.run);
  const description = found[1]!;
  const line = Number(found[2]);
  const position = errorPosition(err, prepared)!;
  if (prepared.appended !== null && position >= prepared.sent.length) {
    return (
      `${description.replace(/^Invalid input '[^']*'/, 'Invalid input')} ` +
      `(at the "${prepared.appended}" the server appended because the query has no LIMIT of its own)`
    );
  }
  const column = line === 1 ? Number(found[3]) - EXPLAIN.length : Number(found[3]);
  const quoted = line >= 1 ? prepared.sent.split('\n')[line - 1] : undefined;
  const where = `${description} (line ${line}, column ${column} (offset: ${position}))`;
  return quoted === undefined ? where : `${where}\n"${quoted}"\n${' '.repeat(Math.max(column, 0))}^`;
}

/** `fn` called once; later calls return the first call's result. */
function once<T>(fn: () => T): () => T {
  let result: { value: T } | undefined;
  return () => (result ??= { value: fn() }).value;
}

/** Resolves when `work` settles or after `ms`, whichever comes first; never rejects. */
function settle(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]).finally(() => clearTimeout(timer));
}

interface Streamed {
  readonly text: JsonText<GraphQueryResult>;
  /** The connection failed on an oversized message: there is no transaction left to commit. */
  readonly connectionLost: boolean;
}

/**
 * Runs `query` in `tx` and encodes each record to JSON text as it arrives (the driver's observer API: no promise per
 * record). Resolves at the 10,001st record, or at the record that would take the encoded `records` past `maxBytes`,
 * with what was encoded before it and `truncated`; the caller's commit then discards the rest on the server, so a
 * huge result is never transferred. A single value whose encoding exceeds `maxBytes` answers an error instead. A
 * record whose Bolt message alone exceeds `maxBytes` is never assembled (bolt-message-cap.ts): with one column that
 * is the value error, with more the answer ends before it (truncated).
 */
function streamRecords(tx: Transaction, query: string, maxBytes: number): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    let records = '';
    let bytes = 0;
    let count = 0;
    let columns: string[] = [];
    let done = false;
    const finish = (truncated: boolean, connectionLost = false): void => {
      done = true;
      resolve({ text: queryResultJson(query, columns, records, truncated), connectionLost });
    };
    const valueTooLarge = (): void => {
      done = true;
      reject(new Error(`a value of this result exceeds ${maxBytes} bytes`));
    };
    tx.run(query).subscribe({
      onKeys: (keys) => {
        columns = [...keys];
      },
      onNext: (record) => {
        if (done) return;
        if (count === MAX_QUERY_RECORDS) {
          finish(true);
          return;
        }
        const values = valueJsons(record);
        if (values.some((v) => Buffer.byteLength(v) > maxBytes)) {
          valueTooLarge();
          return;
        }
        const json = recordJsonOf(columns, values);
        const size = Buffer.byteLength(json) + (count === 0 ? 0 : 1);
        if (bytes + size > maxBytes) {
          finish(true);
          return;
        }
        records += count++ === 0 ? json : `,${json}`;
        bytes += size;
      },
      onCompleted: () => {
        if (!done) finish(false);
      },
      onError: (err) => {
        if (done) return;
        if (!(err instanceof BoltMessageTooLargeError)) {
          done = true;
          reject(err);
        } else if (columns.length > 1) finish(true, true);
        else valueTooLarge();
      },
    });
  });
}
