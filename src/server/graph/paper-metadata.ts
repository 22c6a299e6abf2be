/**
 * Paper metadata in the graph (CONTRACT §6.1, §18.1): the scholarly properties of `Paper` nodes read by id, DOI or
 * OpenAlex id, and the title and authors set from fetched metadata on a node that has none.
 */
import type { GraphClient } from './driver.js';
import { readTx, toNumber, withDeadline, writeTx } from './session.js';

/** The metadata properties of one `Paper` node. */
export interface GraphPaper {
  /** Versionless canonical id. */
  readonly preprint_id: string;
  readonly title: string | null;
  readonly authors: readonly string[];
  readonly publication_date: string | null;
  readonly doi: string | null;
  readonly openalex_id: string | null;
  readonly cited_by_count: number | null;
}

export interface GraphPaperQuery {
  readonly ids?: readonly string[];
  readonly dois?: readonly string[];
  readonly openalexIds?: readonly string[];
}

/** A graph that stops answering must not hold a request: reads and the title write give up after this long. */
const DEADLINE_MS = 5_000;

const RETURN_PAPER = `RETURN p.preprint_id AS preprint_id, p.title AS title, p.authors AS authors,
  toString(p.publication_date) AS publication_date, p.doi AS doi, p.openalex_id AS openalex_id,
  p.cited_by_count AS cited_by_count`;

/** One index seek per key kind (a disjunction over three properties would not use the indexes). */
const READ_PAPERS = `UNWIND $ids AS id MATCH (p:Paper {preprint_id: id}) ${RETURN_PAPER}
  UNION UNWIND $dois AS doi MATCH (p:Paper {doi: doi}) ${RETURN_PAPER}
  UNION UNWIND $openalexIds AS oa MATCH (p:Paper {openalex_id: oa}) ${RETURN_PAPER}`;

const SET_TITLE = `MATCH (p:Paper {preprint_id: $id})
  WHERE coalesce(p.title, '') = ''
  SET p.title = $title, p.authors = $authors
  RETURN count(p) AS n`;

const textOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

function authorsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((a): a is string => typeof a === 'string');
  return typeof value === 'string' && value !== '' ? value.split('; ') : [];
}

/** `Paper` nodes whose id, DOI or OpenAlex id is among those given (each node once). */
export async function readGraphPapers(graph: GraphClient, query: GraphPaperQuery): Promise<GraphPaper[]> {
  const params = { ids: query.ids ?? [], dois: query.dois ?? [], openalexIds: query.openalexIds ?? [] };
  if (params.ids.length + params.dois.length + params.openalexIds.length === 0) return [];
  const records = await withDeadline(
    readTx(graph, async (tx) => (await tx.run(READ_PAPERS, params)).records),
    DEADLINE_MS,
    'paper metadata read',
  );
  return records.map((r) => {
    const count = r.get('cited_by_count') as unknown;
    return {
      preprint_id: String(r.get('preprint_id')),
      title: textOrNull(r.get('title')),
      authors: authorsOf(r.get('authors')),
      publication_date: textOrNull(r.get('publication_date')),
      doi: textOrNull(r.get('doi')),
      openalex_id: textOrNull(r.get('openalex_id')),
      cited_by_count: count === null || count === undefined ? null : toNumber(count),
    };
  });
}

/**
 * Sets `title` and `authors` on the `Paper` node of `id` when it exists and has no title; never creates a node.
 * Resolves to whether the node was changed.
 */
export async function setGraphPaperTitle(
  graph: GraphClient,
  id: string,
  title: string,
  authors: readonly string[],
): Promise<boolean> {
  const res = await withDeadline(
    writeTx(graph, (tx) => tx.run(SET_TITLE, { id, title, authors: [...authors] })),
    DEADLINE_MS,
    'paper title write',
  );
  return toNumber(res.records[0]?.get('n')) > 0;
}
