/**
 * A generated metadata index (CONTRACT §4.1) for the index benchmark: new-style ids over 0704..2512, mostly with a
 * PDF, ~40% with markdown (and images), per-object sha256 and ETags, timestamps over two years, a few nulls.
 */
import { randomBytes } from 'node:crypto';
import type { IndexRow } from '../../src/server/papers/catalog.js';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every shard from 0704 to 2512. */
function shards(): string[] {
  const out: string[] = [];
  for (let y = 7; y <= 25; y++)
    for (let m = 1; m <= 12; m++)
      if (y > 7 || m >= 4) out.push(`${String(y).padStart(2, '0')}${String(m).padStart(2, '0')}`);
  return out;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export function generateRows(count: number, seed = 1): IndexRow[] {
  const next = rng(seed);
  const yymms = shards();
  const perShard = Math.ceil(count / yymms.length);
  const start = Date.parse('2024-01-01T00:00:00Z');
  const span = 2 * 365 * 24 * 3600_000;
  const rows: IndexRow[] = [];
  for (let i = 0; i < count; i++) {
    const yymm = yymms[Math.floor(i / perShard)]!;
    const number = String((i % perShard) + 1).padStart(5, '0');
    const version = next() < 0.85 ? 1 : next() < 0.8 ? 2 : 3;
    const stem = `${yymm}.${number}v${version}`;
    const hasPdf = next() < 0.97;
    const hasMd = hasPdf && next() < 0.41;
    const images = hasMd ? Math.floor(next() * 25) : 0;
    const pdfAt = hasPdf && next() < 0.98 ? new Date(start + Math.floor(next() * span)) : null;
    const mdAt = hasMd ? new Date(start + Math.floor(next() * span)) : null;
    rows.push({
      preprint_id: stem,
      key: stem,
      yymm,
      has_pdf: hasPdf,
      has_md: hasMd,
      has_json: false,
      image_count: images,
      pdf_size_bytes: hasPdf ? 100_000 + Math.floor(next() * 5_000_000) : null,
      md_size_bytes: hasMd ? 10_000 + Math.floor(next() * 200_000) : null,
      images_size_bytes: images > 0 ? images * 40_000 : null,
      pdf_sha256: hasPdf ? hex(32) : null,
      md_sha256: hasMd ? hex(32) : null,
      pdf_etag: hasPdf ? `"${hex(16)}"` : null,
      md_etag: hasMd ? `"${hex(16)}"` : null,
      pdf_uploaded_at: pdfAt,
      md_uploaded_at: mdAt,
      images_uploaded_at: images > 0 ? mdAt : null,
      updated_at: mdAt ?? pdfAt ?? new Date(start),
      title: next() < 0.3 ? `A generated title about topic ${i % 1000}` : null,
      authors: null,
      categories: null,
      doi: null,
      openalex_id: null,
      publication_date: null,
    });
  }
  return rows;
}
