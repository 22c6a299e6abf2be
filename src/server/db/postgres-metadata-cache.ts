/** The PostgreSQL metadata cache (CONTRACT §18.1, §21): `paper_metadata` rows, shared by every instance. */
import {
  cachedPaperOf,
  METADATA_COLUMNS,
  type CachedPaper,
  type MetadataCache,
  type MetadataRow,
} from '../papers/metadata/metadata-cache.js';
import type { Query } from './postgres-query.js';

export class PostgresMetadataCache implements MetadataCache {
  constructor(private readonly q: Query) {}

  private async one(where: string, value: string): Promise<CachedPaper | null> {
    const row = (
      await this.q<MetadataRow>(
        `SELECT ${METADATA_COLUMNS} FROM paper_metadata WHERE ${where} = $1 ORDER BY preprint_id LIMIT 1`,
        [value],
      )
    ).rows[0];
    return row ? cachedPaperOf(row) : null;
  }

  get(preprintId: string): Promise<CachedPaper | null> {
    return this.one('preprint_id', preprintId);
  }

  findByDoi(doi: string): Promise<CachedPaper | null> {
    return this.one('doi', doi);
  }

  findByOpenAlexId(openalexId: string): Promise<CachedPaper | null> {
    return this.one('openalex_id', openalexId);
  }

  async put(paper: CachedPaper, fetchedAt: Date): Promise<void> {
    const m = paper.metadata;
    await this.q(
      `INSERT INTO paper_metadata (${METADATA_COLUMNS}, fetched_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (preprint_id) DO UPDATE SET title = excluded.title, authors = excluded.authors,
         abstract = excluded.abstract, published = excluded.published, doi = excluded.doi,
         openalex_id = excluded.openalex_id, cited_by_count = excluded.cited_by_count, source = excluded.source,
         fetched_at = excluded.fetched_at`,
      [
        paper.preprintId,
        m.title,
        JSON.stringify(m.authors),
        m.abstract,
        m.published,
        m.doi,
        m.openalex_id,
        m.cited_by_count,
        m.source,
        fetchedAt.getTime(),
      ],
    );
  }
}
