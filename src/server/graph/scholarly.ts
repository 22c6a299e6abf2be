/**
 * Scholarly data in the graph (CONTRACT §6.1, §15.8 load): `Paper` metadata from the snapshot, `CITES` between
 * papers, and the derived citation counts (`__derived_*`, computed from the graph itself).
 */
import neo4j from 'neo4j-driver';
import { BatchWriter, type BatchWriterOptions } from './batch-writer.js';
import { SET_DERIVED_CITATIONS } from './derived.js';
import type { GraphClient } from './driver.js';

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

/** `[citing, cited…]` versionless ids: one citing paper and at most `MAX_BATCH_ROWS` papers it cites. */
export type Citations = readonly [string, readonly string[]];

const MERGE_PAPERS = `UNWIND $rows AS row
  MERGE (p:Paper {preprint_id: row.preprint_id})
  SET p.openalex_id = row.openalex_id, p.doi = row.doi, p.title = row.title, p.authors = row.authors,
      p.publication_date = row.publication_date, p.cited_by_count = row.cited_by_count`;

/**
 * `MERGE` of `CITES` as check-then-create: `MERGE` locks both papers before it looks, so concurrent batches deadlock
 * on every shared cited paper, while a created relationship takes its locks at commit in a fixed order. The check is
 * sound because `CitationWriter` keeps all rows of a citing paper on one lane (never in two concurrent
 * transactions), and `DISTINCT` drops a pair repeated within the batch. One row per citing paper: its node is
 * looked up once for all it cites.
 */
const MERGE_CITATIONS = `UNWIND $rows AS row
  MATCH (a:Paper {preprint_id: row[0]})
  UNWIND row[1] AS cited
  WITH DISTINCT a, cited
  MATCH (b:Paper {preprint_id: cited})
  WHERE NOT (a)-[:CITES]->(b)
  CREATE (a)-[:CITES]->(b)`;

const DERIVE = `UNWIND $rows AS id
  MATCH (p:Paper {preprint_id: id})
  SET ${SET_DERIVED_CITATIONS}`;

/** `MERGE` of `Paper` nodes with their scholarly properties. */
export function paperWriter(graph: GraphClient, options?: BatchWriterOptions): BatchWriter<Record<string, unknown>> {
  return new BatchWriter(graph, MERGE_PAPERS, options);
}

/** A row of `paperWriter` (counts as graph integers). */
export function paperRow(paper: ScholarlyPaper): Record<string, unknown> {
  return { ...paper, cited_by_count: paper.cited_by_count === null ? null : neo4j.int(paper.cited_by_count) };
}

/**
 * `MERGE` of `CITES` between existing `Paper` nodes, one lane per citing paper; batches of at most `MAX_BATCH_ROWS`
 * citations. The only writer of `CITES`, and one load at a time (`scholarly bootstrap` holds a lock): two loads
 * running at once could both create a pair.
 */
export class CitationWriter {
  private readonly batches: BatchWriter<Citations>;

  constructor(graph: GraphClient, options?: BatchWriterOptions) {
    this.batches = new BatchWriter(graph, MERGE_CITATIONS, options, {
      laneKey: (row) => row[0],
      weight: (row) => row[1].length,
    });
  }

  /** Citations committed so far. */
  get written(): number {
    return this.batches.written;
  }

  /** Queues `citing → cited` for each cited paper (in rows that each fit a batch). */
  async add(citing: string, cited: readonly string[]): Promise<void> {
    const size = this.batches.batchRows;
    const rows: Promise<void>[] = [];
    for (let at = 0; at < cited.length; at += size) rows.push(this.batches.add([citing, cited.slice(at, at + size)]));
    await Promise.all(rows);
  }

  close(): Promise<void> {
    return this.batches.close();
  }

  abandon(): Promise<void> {
    return this.batches.abandon();
  }
}

/** Recomputes `__derived_citations_in` / `__derived_citations_out` of the given papers. */
export function derivedCountWriter(graph: GraphClient, options?: BatchWriterOptions): BatchWriter<string> {
  return new BatchWriter(graph, DERIVE, options);
}
