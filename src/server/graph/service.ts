/**
 * The graph endpoints' domain (CONTRACT §14): statistics, schema and read-only queries. A graph that is not
 * configured, unreachable or failing is an answer here, not an exception: `{error}` (the query route adds the
 * query as run). Only the query's own validation throws (`InvalidInputError`, 400).
 */
import type { Transaction } from 'neo4j-driver';
import type { GraphClient } from './driver.js';
import { queryResultJson, recordJson } from './query-json.js';
import { MAX_QUERY_RECORDS, prepareQuery } from './query-text.js';
import { inTransactionUntilCommit, openSession, toNumber, type SessionOptions } from './session.js';
import type { JsonText, JsonValue } from './values.js';

export const GRAPH_NOT_CONFIGURED = 'graph not configured (GRAPHDB_URI empty)';

/** Stats and schema answer within this (§14: 10 s). */
const METADATA_TIMEOUT_MS = 10_000;
/** One PULL carries the whole capped result; a longer one costs at most one more batch before it is discarded. */
const QUERY_SESSION: SessionOptions = { fetchSize: MAX_QUERY_RECORDS + 1 };
/** Beyond the server-side transaction timeout, how long the client waits for the server to say so. */
const CLIENT_GRACE_MS = 5_000;

export interface GraphFailure {
  readonly error: string;
}

export interface GraphStats {
  readonly nodes: number;
  readonly relationships: number;
  readonly labels: string[];
  readonly label_counts: Record<string, number>;
}

export interface GraphSchema {
  readonly labels: string[];
  readonly relationship_types: string[];
  readonly property_keys: string[];
}

/** The success answer of `query`, as its JSON text says (`GraphService.query` returns the text itself). */
export interface GraphQueryResult {
  /** The query as run (with the appended `LIMIT`, if any). */
  readonly query: string;
  readonly columns: string[];
  readonly records: Record<string, JsonValue>[];
  /** More than 10,000 records: the first 10,000 are returned. */
  readonly truncated: boolean;
}

export interface GraphQueryFailure {
  readonly query: string;
  readonly error: string;
}

export interface GraphServiceOptions {
  /** `SVC_GRAPH_QUERY_TIMEOUT_SECONDS`: transaction timeout of `query` (none when null). */
  readonly queryTimeoutSeconds: number | null;
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
  constructor(
    private readonly graph: GraphClient | null,
    private readonly options: GraphServiceOptions,
  ) {}

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
    const session = openSession(this.graph!, 'READ', options);
    let timer: NodeJS.Timeout | undefined;
    let ended: Promise<unknown> = Promise.resolve();
    try {
      const run = inTransactionUntilCommit(session, work, timeoutMs === null ? {} : { timeoutMs }).then(
        async ({ result, commit }) => {
          ended = commit.catch(() => undefined);
          if (!final(result)) await commit;
          return result;
        },
      );
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
   * `POST /api/graph/query`. Validates the text (throws `InvalidInputError` for the 400s, also without a graph),
   * applies the `LIMIT` rule, and streams at most 10,000 records out of a read transaction, encoding each as it
   * arrives; the rest of a longer result is discarded on the server. A success is answered as JSON text, ready to
   * send (a result of thousands of nodes is serialised while it streams, not afterwards).
   */
  async query(
    text: string,
    limit: number | undefined,
  ): Promise<JsonText<GraphQueryResult> | GraphQueryFailure | GraphFailure> {
    const query = prepareQuery(text, limit);
    if (this.graph === null) return { error: GRAPH_NOT_CONFIGURED };
    const timeoutS = this.options.queryTimeoutSeconds;
    try {
      // A truncated result waits for the commit: the records past the cap may still fail the query.
      const streamed = await this.read(
        timeoutS === null ? null : timeoutS * 1000,
        (tx) => streamRecords(tx, query),
        QUERY_SESSION,
        (answer) => !answer.truncated,
      );
      return streamed.text;
    } catch (err) {
      return { query, error: message(err) };
    }
  }
}

/**
 * Runs `query` in `tx` and encodes each record to JSON text as it arrives (the driver's observer API: no promise per
 * record). Resolves at the 10,001st record with the first 10,000 and `truncated`; the caller's commit then discards
 * the rest on the server, so a huge result is never transferred.
 */
function streamRecords(
  tx: Transaction,
  query: string,
): Promise<{ text: JsonText<GraphQueryResult>; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    let records = '';
    let count = 0;
    let columns: string[] = [];
    let done = false;
    tx.run(query).subscribe({
      onKeys: (keys) => {
        columns = [...keys];
      },
      onNext: (record) => {
        if (done) return;
        if (count === MAX_QUERY_RECORDS) {
          done = true;
          resolve({ text: queryResultJson(query, columns, records, true), truncated: true });
          return;
        }
        records += count++ === 0 ? recordJson(record) : `,${recordJson(record)}`;
      },
      onCompleted: () => {
        if (!done) resolve({ text: queryResultJson(query, columns, records, false), truncated: false });
        done = true;
      },
      onError: (err) => {
        if (!done) reject(err);
        done = true;
      },
    });
  });
}
