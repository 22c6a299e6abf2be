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

/** `[citing, cited]` versionless ids (a list, not a map: the smallest row to encode and decode). */
export type Citation = readonly [string, string];

const MERGE_PAPERS = `UNWIND $rows AS row
  MERGE (p:Paper {preprint_id: row.preprint_id})
  SET p.openalex_id = row.openalex_id, p.doi = row.doi, p.title = row.title, p.authors = row.authors,
      p.publication_date = row.publication_date, p.cited_by_count = row.cited_by_count`;

const MERGE_CITATIONS = `UNWIND $rows AS row
  MATCH (a:Paper {preprint_id: row[0]})
  MATCH (b:Paper {preprint_id: row[1]})
  MERGE (a)-[:CITES]->(b)`;

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

/** `MERGE` of `CITES` between two existing `Paper` nodes. */
export function citationWriter(graph: GraphClient, options?: BatchWriterOptions): BatchWriter<Citation> {
  return new BatchWriter(graph, MERGE_CITATIONS, options);
}

/** Recomputes `__derived_citations_in` / `__derived_citations_out` of the given papers. */
export function derivedCountWriter(graph: GraphClient, options?: BatchWriterOptions): BatchWriter<string> {
  return new BatchWriter(graph, DERIVE, options);
}
