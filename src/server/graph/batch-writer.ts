/**
 * Batched `UNWIND $rows` writes (CONTRACT §6: ≤ 500 rows per transaction) with a few transactions in flight, so
 * the client prepares the next batch while the server commits the last one.
 *
 * A row may weigh more than one (a row that writes several relationships): a batch then holds rows up to the
 * batch's weight, so a transaction never writes more than `batchRows` of them.
 *
 * Without a lane key the batches take turns over the lanes. With one, every row goes to the lane its key hashes to and
 * each lane commits its batches one after the other: rows of one key are then never in two concurrent transactions,
 * which is what lets a writer check-then-create (see `CitationWriter`) without the locks of `MERGE`. Transient
 * errors (deadlocks, lock timeouts) are retried.
 */
import type { Record as Neo4jRecord } from 'neo4j-driver';
import type { GraphClient } from './driver.js';
import { isTransient, withSession, writeTx } from './session.js';

export const MAX_BATCH_ROWS = 500;
/** Deadlocks between concurrent batches on shared nodes are retried, backing off up to about a second. */
const RETRIES = 30;
/**
 * Transactions in flight: two overlap one's round trips with the other's work. More gain nothing on two cores
 * (40k papers, 480k citations, two vs four lanes: the same rate) and, for `MERGE` of relationships, deadlock on
 * shared nodes faster than they gain.
 */
const DEFAULT_CONCURRENCY = 2;

export interface BatchWriterOptions {
  readonly batchRows?: number;
  /** Transactions in flight (with a lane key: the number of lanes). */
  readonly concurrency?: number;
}

/** How rows are spread over lanes and counted against a batch. */
export interface RowShape<T> {
  /** Rows with one key always share a lane. */
  readonly laneKey?: (row: T) => string;
  /** Relationships or nodes the row writes (default 1); at most `batchRows`. */
  readonly weight?: (row: T) => number;
  /**
   * The statement runs as an auto-commit transaction, as `CALL { … } IN TRANSACTIONS` needs (it then commits
   * transactions of its own). It must be idempotent: a failed statement may have committed some of them and is run
   * again whole when the error is transient.
   */
  readonly autoCommit?: boolean;
  /**
   * The exact statement behind a faster `query` that holds only under a condition (the nodes or pairs it creates
   * are new): it must leave the right graph whatever the graph holds and whatever part of a failed attempt
   * committed. A batch whose attempt fails with a transient error, or an error `on` accepts (the condition broke),
   * runs again with it.
   */
  readonly fallback?: { readonly query: string; readonly on?: (err: unknown) => boolean };
  /** Receives the records a batch's statement returned, once it has committed. */
  readonly onCommitted?: (records: readonly Neo4jRecord[]) => void;
}

/** The lane of a lane key among `lanes`: FNV-1a of the key, a cheap, stable spread. */
export function laneOf(key: string, lanes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % lanes;
}

export class BatchWriter<T> {
  /** Rows waiting for a batch: one buffer per lane with a lane key, else one buffer whose batches take turns. */
  private readonly buffers: T[][];
  /** Weight of each buffer's rows. */
  private readonly weights: number[];
  /** The last batch queued on each lane; a lane's batches commit one after the other. Never rejects. */
  private readonly tails: Promise<void>[];
  private turn = 0;
  private failure: unknown = null;
  readonly batchRows: number;
  /** Transactions in flight (with a lane key: the number of lanes). */
  readonly lanes: number;
  /** Weight (rows, or what rows write) committed so far. */
  written = 0;

  constructor(
    private readonly graph: GraphClient,
    private readonly query: string,
    options: BatchWriterOptions = {},
    private readonly shape: RowShape<T> = {},
  ) {
    this.batchRows = Math.max(1, Math.min(MAX_BATCH_ROWS, options.batchRows ?? MAX_BATCH_ROWS));
    this.lanes = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
    this.buffers = Array.from({ length: shape.laneKey ? this.lanes : 1 }, () => []);
    this.weights = this.buffers.map(() => 0);
    this.tails = Array.from({ length: this.lanes }, () => Promise.resolve());
  }

  /** Queues a row; resolves once it is accepted (a full batch waits for the batch before it on its lane). */
  async add(row: T): Promise<void> {
    const { laneKey, weight } = this.shape;
    const buffer = laneKey ? laneOf(laneKey(row), this.buffers.length) : 0;
    const w = weight ? weight(row) : 1;
    if (w > this.batchRows) throw new RangeError(`a row of weight ${w} exceeds the batch of ${this.batchRows}`);
    // `send` takes the buffer before it first awaits, so adds running meanwhile start a new one.
    const sent: Promise<void>[] = [];
    if (this.weights[buffer]! + w > this.batchRows) sent.push(this.send(buffer));
    this.buffers[buffer]!.push(row);
    this.weights[buffer]! += w;
    if (this.weights[buffer]! >= this.batchRows) sent.push(this.send(buffer));
    await Promise.all(sent);
  }

  /** Queues the buffer's rows as a batch behind its lane's last one; resolves when that one has finished. */
  private async send(buffer: number): Promise<void> {
    if (this.failure !== null) throw this.failure;
    const rows = this.buffers[buffer]!;
    if (rows.length === 0) return;
    const weight = this.weights[buffer]!;
    this.buffers[buffer] = [];
    this.weights[buffer] = 0;
    const lane = this.shape.laneKey ? buffer : this.turn++ % this.tails.length;
    const previous = this.tails[lane]!;
    this.tails[lane] = previous
      .then(async () => {
        if (this.failure !== null) return;
        await this.commit(rows);
        this.written += weight;
      })
      .catch((err: unknown) => {
        this.failure ??= err;
      });
    await previous;
    if (this.failure !== null) throw this.failure;
  }

  private async commit(rows: readonly T[]): Promise<void> {
    const { autoCommit, fallback, onCommitted } = this.shape;
    let query = this.query;
    for (let attempt = 1; ; attempt++) {
      try {
        const { records } = autoCommit
          ? await withSession(this.graph, 'WRITE', (s) => s.run(query, { rows }))
          : await writeTx(this.graph, (tx) => tx.run(query, { rows }));
        onCommitted?.(records);
        return;
      } catch (err) {
        if (fallback !== undefined && query !== fallback.query && fallback.on?.(err) === true) {
          query = fallback.query;
          continue;
        }
        if (attempt >= RETRIES || !isTransient(err)) throw err;
        if (fallback !== undefined) query = fallback.query;
        const backoff = Math.min(1_000, 10 * 2 ** Math.min(attempt, 7));
        await new Promise((resolve) => setTimeout(resolve, backoff / 2 + Math.random() * backoff));
      }
    }
  }

  /** Gives up: drops the rows not sent yet and waits for the transactions already queued to end. */
  async abandon(): Promise<void> {
    for (let buffer = 0; buffer < this.buffers.length; buffer++) {
      this.buffers[buffer] = [];
      this.weights[buffer] = 0;
    }
    await Promise.all(this.tails);
  }

  /** Sends the remaining rows and waits for every transaction; throws the first failure. */
  async close(): Promise<void> {
    await Promise.allSettled(this.buffers.map((_rows, buffer) => this.send(buffer)));
    await Promise.all(this.tails);
    if (this.failure !== null) throw this.failure;
  }
}
