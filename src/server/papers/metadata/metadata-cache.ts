/**
 * The paper-metadata cache (CONTRACT §18.1): metadata fetched from upstream, one row per preprint (versionless id),
 * kept with no expiry in the user database. The port is `MetadataCache` (part of the user-database port,
 * src/server/db/user-database.ts); `SqliteMetadataCache` is the SQLite adapter over the `paper_metadata` table
 * (migration 2); PostgreSQL's is in src/server/db/postgres-user-database.ts.
 */
import type { Db } from '../../db/database.js';
import type { PaperMetadata } from '../../../shared/api/registry.js';

/** Where cached metadata came from (the graph is read live, never cached). */
export type CachedSource = Exclude<PaperMetadata['source'], 'graph'>;

/** One cached paper: its versionless id and its metadata. */
export interface CachedPaper {
  readonly preprintId: string;
  readonly metadata: PaperMetadata & { readonly source: CachedSource };
}

export interface MetadataCache {
  get(preprintId: string): Promise<CachedPaper | null>;
  /** The paper whose metadata carries this (normalised, lower-case) DOI (the lowest id when several do). */
  findByDoi(doi: string): Promise<CachedPaper | null>;
  /** The paper whose metadata carries this OpenAlex work id (`W…`) (the lowest id when several do). */
  findByOpenAlexId(openalexId: string): Promise<CachedPaper | null>;
  /** Inserts or replaces the paper's row. */
  put(paper: CachedPaper, fetchedAt: Date): Promise<void>;
}

/** A `paper_metadata` row as both adapters read it. */
export interface MetadataRow {
  preprint_id: string;
  title: string;
  authors: string;
  abstract: string;
  published: string;
  doi: string | null;
  openalex_id: string | null;
  cited_by_count: number | null;
  source: CachedSource;
}

export const METADATA_COLUMNS =
  'preprint_id, title, authors, abstract, published, doi, openalex_id, cited_by_count, source';

/** Authors are stored as a JSON array; a row that does not hold one reads as no authors. */
function authorsOf(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string') : [];
  } catch {
    return [];
  }
}

export const cachedPaperOf = (r: MetadataRow): CachedPaper => ({
  preprintId: r.preprint_id,
  metadata: {
    title: r.title,
    authors: authorsOf(r.authors),
    abstract: r.abstract,
    published: r.published,
    doi: r.doi,
    openalex_id: r.openalex_id,
    cited_by_count: r.cited_by_count,
    source: r.source,
  },
});

export class SqliteMetadataCache implements MetadataCache {
  private readonly byId;
  private readonly byDoi;
  private readonly byOpenAlexId;
  private readonly upsert;

  constructor(db: Db) {
    this.byId = db.prepare<[string], MetadataRow>(
      `SELECT ${METADATA_COLUMNS} FROM paper_metadata WHERE preprint_id = ?`,
    );
    this.byDoi = db.prepare<[string], MetadataRow>(
      `SELECT ${METADATA_COLUMNS} FROM paper_metadata WHERE doi = ? ORDER BY preprint_id LIMIT 1`,
    );
    this.byOpenAlexId = db.prepare<[string], MetadataRow>(
      `SELECT ${METADATA_COLUMNS} FROM paper_metadata WHERE openalex_id = ? ORDER BY preprint_id LIMIT 1`,
    );
    this.upsert = db.prepare(
      `INSERT INTO paper_metadata (${METADATA_COLUMNS}, fetched_at)
       VALUES (@preprint_id, @title, @authors, @abstract, @published, @doi, @openalex_id, @cited_by_count, @source,
               @fetched_at)
       ON CONFLICT (preprint_id) DO UPDATE SET title = excluded.title, authors = excluded.authors,
         abstract = excluded.abstract, published = excluded.published, doi = excluded.doi,
         openalex_id = excluded.openalex_id, cited_by_count = excluded.cited_by_count, source = excluded.source,
         fetched_at = excluded.fetched_at`,
    );
  }

  async get(preprintId: string): Promise<CachedPaper | null> {
    const row = this.byId.get(preprintId);
    return row ? cachedPaperOf(row) : null;
  }

  async findByDoi(doi: string): Promise<CachedPaper | null> {
    const row = this.byDoi.get(doi);
    return row ? cachedPaperOf(row) : null;
  }

  async findByOpenAlexId(openalexId: string): Promise<CachedPaper | null> {
    const row = this.byOpenAlexId.get(openalexId);
    return row ? cachedPaperOf(row) : null;
  }

  async put(paper: CachedPaper, fetchedAt: Date): Promise<void> {
    const m = paper.metadata;
    this.upsert.run({
      preprint_id: paper.preprintId,
      title: m.title,
      authors: JSON.stringify(m.authors),
      abstract: m.abstract,
      published: m.published,
      doi: m.doi,
      openalex_id: m.openalex_id,
      cited_by_count: m.cited_by_count,
      source: m.source,
      fetched_at: fetchedAt.getTime(),
    });
  }
}
