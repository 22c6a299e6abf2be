/**
 * Scholarly data in the graph (CONTRACT §6.1, §15.8 load): `Paper` metadata from the snapshot, `CITES` between
 * papers, and the derived citation counts (`__derived_*`, computed from the graph itself).
 */
import neo4j, { type Integer, type Record as Neo4jRecord } from 'neo4j-driver';
import { BatchWriter, laneOf, MAX_BATCH_ROWS, type BatchWriterOptions } from './batch-writer.js';
import { SET_DERIVED_CITATIONS } from './derived.js';
import type { GraphClient } from './driver.js';
import { readTx, toNumber } from './session.js';

/** The scholarly properties of a `Paper` node (§6.1) and of its index rows (§4.1). */
export interface ScholarlyPaper {
  /** Versionless arXiv id. */
  readonly preprint_id: string;
  readonly openalex_id: string;
  readonly doi: string | null;
  readonly title: string | null;
  readonly authors: readonly string[];
  readonly publication_date: string | null;
  readonly cited_by_count: number | null;
}

/** A `Paper` node's `elementId` (what the citation pass looks papers up by). */
export type PaperNode = string;

/** `[citing, cited…]` nodes: one citing paper and at most `MAX_BATCH_ROWS` papers it cites. */
type CitationRow = readonly [PaperNode, readonly PaperNode[]];

/**
 * A paper's row: `[preprint_id, openalex_id, doi, title, authors, publication_date, cited_by_count]` (a list of
 * values costs the server less to decode than a map with their names). Each written paper's node comes back, for the
 * citation pass: no second read of 500 papers a transaction by `preprint_id` (~7% of the load's server CPU). A node
 * keeps the id it is created with, and the writer hands it on only once its transaction has committed.
 */
export type PaperRow = readonly [
  string,
  string,
  string | null,
  string | null,
  readonly string[],
  string | null,
  Integer | null,
];

const MERGE_PAPERS = `UNWIND $rows AS row
  MERGE (p:Paper {preprint_id: row[0]})
  SET p.openalex_id = row[1], p.doi = row[2], p.title = row[3], p.authors = row[4], p.publication_date = row[5],
      p.cited_by_count = row[6]
  RETURN row[0] AS id, elementId(p) AS node`;

/**
 * `CREATE` of papers the load knows to be new (the graph held no `Paper` when it started, and it sends each paper
 * once): 15–20% less server CPU than `MERGE` + `SET`s. The same node — `CREATE` stores no null property, as `SET`
 * of null removes none. A paper another writer created meanwhile fails the batch on the unique constraint, and the
 * batch runs again as `MERGE_PAPERS`.
 */
const CREATE_PAPERS = `UNWIND $rows AS row
  CREATE (p:Paper {preprint_id: row[0], openalex_id: row[1], doi: row[2], title: row[3], authors: row[4],
                   publication_date: row[5], cited_by_count: row[6]})
  RETURN row[0] AS id, elementId(p) AS node`;

const CONSTRAINT_FAILED = 'Neo.ClientError.Schema.ConstraintValidationFailed';

const GRAPH_COUNTS = `CALL { MATCH (p:Paper) RETURN count(p) AS papers }
  CALL { MATCH ()-[r:CITES]->() RETURN count(r) AS citations }
  RETURN papers, citations`;

const PAPER_NODES = `UNWIND $ids AS id
  MATCH (p:Paper {preprint_id: id})
  RETURN id, elementId(p) AS node`;

/**
 * `MERGE` of `CITES` as check-then-create: `MERGE` locks both papers before it looks, so concurrent batches deadlock
 * on every shared cited paper, while a created relationship takes its locks at commit in a fixed order. The check is
 * sound because `CitationWriter` keeps all rows of a citing paper on one lane (never in two concurrent
 * transactions), and `DISTINCT` drops a pair repeated within the batch. One row per citing paper: its node is
 * looked up once for all it cites. Papers are looked up by `elementId` (as the paper writes returned it), not by
 * `preprint_id`: in a writing query the unique index seek takes a shared lock per lookup, held to the commit — with
 * the seek itself, a quarter of the server's CPU of the load (docs/decisions.md). The ids stay valid because no writer deletes a
 * `Paper` node (wiki sync removes only its `wiki_*` properties), and the label check keeps any other node out.
 *
 * One statement carries several batches, each committed as its own transaction (`IN TRANSACTIONS OF 1 ROW`, so a
 * transaction still writes at most `MAX_BATCH_ROWS` citations): 10–25% less server CPU than a statement per batch,
 * and no round trip between them. Running it again after a failure is harmless (the check).
 *
 * `checked: false` leaves out the check (and `DISTINCT`), for pairs the load knows to be new (the graph held no
 * `CITES` when it started, and it sends each pair once). A failed unchecked statement runs again checked: some of
 * its transactions may have committed.
 */
function citationsStatement(checked: boolean): string {
  return `UNWIND $rows AS batch
  CALL {
    WITH batch
    UNWIND batch AS row
    MATCH (a:Paper) WHERE elementId(a) = row[0]
    UNWIND row[1] AS cited${checked ? '\n    WITH DISTINCT a, cited' : ''}
    MATCH (b:Paper) WHERE elementId(b) = cited${checked ? ' AND NOT (a)-[:CITES]->(b)' : ''}
    CREATE (a)-[:CITES]->(b)
  } IN TRANSACTIONS OF 1 ROW`;
}

const MERGE_CITATIONS = citationsStatement(true);
const CREATE_CITATIONS = citationsStatement(false);

/** Batches of citations one statement carries (~24k citations, ~1 MB of element ids). */
const BATCHES_PER_STATEMENT = 48;

const DERIVE = `UNWIND $rows AS node
  MATCH (p:Paper) WHERE elementId(p) = node
  SET ${SET_DERIVED_CITATIONS}`;

/** `Paper` nodes and `CITES` before a load writes any. */
export async function scholarlyGraphCounts(graph: GraphClient): Promise<{ papers: number; citations: number }> {
  const { records } = await readTx(graph, (tx) => tx.run(GRAPH_COUNTS));
  return { papers: toNumber(records[0]!.get('papers')), citations: toNumber(records[0]!.get('citations')) };
}

export interface PaperWrites {
  /**
   * No `Paper` node existed when the load started, and each paper is added once: the papers are created, not
   * merged (a batch that meets a paper created meanwhile runs again as `MERGE`).
   */
  readonly allNew?: boolean;
  /** Receives the node of each paper once its batch has committed. */
  readonly onNode?: (id: string, node: PaperNode) => void;
}

/** `MERGE` (or, with `allNew`, `CREATE`) of `Paper` nodes with their scholarly properties. */
export function paperWriter(
  graph: GraphClient,
  options?: BatchWriterOptions,
  writes: PaperWrites = {},
): BatchWriter<PaperRow> {
  const { onNode } = writes;
  const onCommitted =
    onNode === undefined
      ? undefined
      : (records: readonly Neo4jRecord[]) => {
          for (const record of records) onNode(record.get('id') as string, record.get('node') as PaperNode);
        };
  const constraintFailed = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === CONSTRAINT_FAILED;
  return new BatchWriter(graph, writes.allNew === true ? CREATE_PAPERS : MERGE_PAPERS, options, {
    ...(onCommitted === undefined ? {} : { onCommitted }),
    ...(writes.allNew === true ? { fallback: { query: MERGE_PAPERS, on: constraintFailed } } : {}),
  });
}

/** A row of `paperWriter` (counts as graph integers). */
export function paperRow(paper: ScholarlyPaper): PaperRow {
  const count = paper.cited_by_count === null ? null : neo4j.int(paper.cited_by_count);
  return [paper.preprint_id, paper.openalex_id, paper.doi, paper.title, paper.authors, paper.publication_date, count];
}

/**
 * The node of each of `ids` that has a `Paper` node (read in batches of `MAX_BATCH_ROWS`); a load takes the nodes of
 * its papers from its writes instead.
 */
export async function paperNodes(graph: GraphClient, ids: Iterable<string>): Promise<Map<string, PaperNode>> {
  const nodes = new Map<string, PaperNode>();
  const read = async (batch: string[]): Promise<void> => {
    const { records } = await readTx(graph, (tx) => tx.run(PAPER_NODES, { ids: batch }));
    for (const record of records) nodes.set(record.get('id') as string, record.get('node') as PaperNode);
  };
  let batch: string[] = [];
  for (const id of ids) {
    batch.push(id);
    if (batch.length === MAX_BATCH_ROWS) {
      await read(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await read(batch);
  return nodes;
}

/**
 * `MERGE` of `CITES` between existing `Paper` nodes (from `paperNodes`), one lane per citing paper; batches of at
 * most `MAX_BATCH_ROWS` citations, packed per lane, several batches a statement. The only writer of `CITES`, and one
 * load at a time (`scholarly bootstrap` holds a lock): two loads running at once could both create a pair.
 */
export class CitationWriter {
  /** Statements of batches; a batch's lane is its first citing paper's, which is every row's of it. */
  private readonly statements: BatchWriter<CitationRow[]>;
  private readonly batchRows: number;
  /** The batch being filled on each lane, and its citations. */
  private readonly packs: CitationRow[][];
  private readonly weights: number[];

  /**
   * With `allNew`, every pair added is new: no `CITES` existed when the load started, and the caller adds each pair
   * once. The relationships are then created without the check.
   */
  constructor(graph: GraphClient, options: BatchWriterOptions = {}, allNew = false) {
    this.statements = new BatchWriter(
      graph,
      allNew ? CREATE_CITATIONS : MERGE_CITATIONS,
      { concurrency: options.concurrency, batchRows: BATCHES_PER_STATEMENT },
      {
        laneKey: (batch) => batch[0]![0],
        autoCommit: true,
        ...(allNew ? { fallback: { query: MERGE_CITATIONS } } : {}),
      },
    );
    this.batchRows = Math.max(1, Math.min(MAX_BATCH_ROWS, options.batchRows ?? MAX_BATCH_ROWS));
    this.packs = Array.from({ length: this.statements.lanes }, () => []);
    this.weights = this.packs.map(() => 0);
  }

  /** Queues `citing → cited` for each cited paper (in rows that each fit a batch). */
  async add(citing: PaperNode, cited: readonly PaperNode[]): Promise<void> {
    const lane = laneOf(citing, this.packs.length);
    const sent: Promise<void>[] = [];
    for (let at = 0; at < cited.length; at += this.batchRows) {
      const row = [citing, cited.slice(at, at + this.batchRows)] as const;
      if (this.weights[lane]! + row[1].length > this.batchRows) sent.push(this.send(lane));
      this.packs[lane]!.push(row);
      this.weights[lane]! += row[1].length;
    }
    await Promise.all(sent);
  }

  /** Queues the lane's batch for a statement. */
  private send(lane: number): Promise<void> {
    const batch = this.packs[lane]!;
    this.packs[lane] = [];
    this.weights[lane] = 0;
    return batch.length === 0 ? Promise.resolve() : this.statements.add(batch);
  }

  /** Sends the remaining citations and waits for every statement; throws the first failure. */
  async close(): Promise<void> {
    await Promise.allSettled(this.packs.map((_pack, lane) => this.send(lane)));
    await this.statements.close();
  }

  /** Gives up: drops the citations not sent yet and waits for the statements already queued to end. */
  abandon(): Promise<void> {
    for (let lane = 0; lane < this.packs.length; lane++) this.packs[lane] = [];
    this.weights.fill(0);
    return this.statements.abandon();
  }
}

/** Recomputes `__derived_citations_in` / `__derived_citations_out` of the given papers (by node, as `CITES`). */
export function derivedCountWriter(graph: GraphClient, options?: BatchWriterOptions): BatchWriter<PaperNode> {
  return new BatchWriter(graph, DERIVE, options);
}
