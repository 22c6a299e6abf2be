/**
 * One row of `index/papers.parquet` (CONTRACT §4.1) as an object: what the index hands out and takes in. The
 * index itself stores its rows column by column (`IndexTable`).
 */
import type { VersionedPreprintId } from '../../../shared/ids.js';

export interface IndexRow {
  preprint_id: string;
  key: string;
  yymm: string;
  has_pdf: boolean;
  has_md: boolean;
  has_json: boolean;
  image_count: number;
  pdf_size_bytes: number | null;
  md_size_bytes: number | null;
  images_size_bytes: number | null;
  pdf_sha256: string | null;
  md_sha256: string | null;
  pdf_etag: string | null;
  md_etag: string | null;
  pdf_uploaded_at: Date | null;
  md_uploaded_at: Date | null;
  images_uploaded_at: Date | null;
  updated_at: Date;
  title: string | null;
  authors: string | null;
  categories: string | null;
  doi: string | null;
  openalex_id: string | null;
  publication_date: string | null;
}

/** A per-row set of column values (§4.2: the unit re-applied on top of a remote index after a 412). */
export type RowMutation = Partial<Omit<IndexRow, 'preprint_id'>>;

export function emptyRow(id: VersionedPreprintId, now: Date): IndexRow {
  return {
    preprint_id: id.id,
    key: id.stem,
    yymm: id.yymm,
    has_pdf: false,
    has_md: false,
    has_json: false,
    image_count: 0,
    pdf_size_bytes: null,
    md_size_bytes: null,
    images_size_bytes: null,
    pdf_sha256: null,
    md_sha256: null,
    pdf_etag: null,
    md_etag: null,
    pdf_uploaded_at: null,
    md_uploaded_at: null,
    images_uploaded_at: null,
    updated_at: now,
    title: null,
    authors: null,
    categories: id.category,
    doi: null,
    openalex_id: null,
    publication_date: null,
  };
}
