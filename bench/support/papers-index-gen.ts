/**
 * A generated metadata index (CONTRACT §4.1) for the index benchmark: new-style ids over 0704..2512, mostly with a
 * PDF, ~40% with markdown (and images), per-object sha256 and ETags, timestamps over two years, a few nulls. Built
 * straight into an `IndexTable` (no row objects), in `preprint_id` order.
 */
import { randomFillSync } from 'node:crypto';
import { IndexTable } from '../../src/server/papers/index/table.js';
import { mulberry32 } from '../../test/support/random.js';

/** Every shard from 0704 to 2512. */
function shards(): string[] {
  const out: string[] = [];
  for (let y = 7; y <= 25; y++)
    for (let m = 1; m <= 12; m++)
      if (y > 7 || m >= 4) out.push(`${String(y).padStart(2, '0')}${String(m).padStart(2, '0')}`);
  return out;
}

export function generateTable(count: number, seed = 1): IndexTable {
  const next = mulberry32(seed);
  const yymms = shards();
  const perShard = Math.ceil(count / yymms.length);
  const start = Date.parse('2024-01-01T00:00:00Z');
  const span = 2 * 365 * 24 * 3600_000;
  const table = new IndexTable(count + 4096);
  table.allocate(count);
  for (const c of ['pdf_sha256', 'md_sha256', 'pdf_etag', 'md_etag'] as const) randomFillSync(table.hex[c].bytes);
  for (let i = 0; i < count; i++) {
    const yymm = table.intern(yymms[Math.floor(i / perShard)]!);
    const number = String((i % perShard) + 1).padStart(5, '0');
    const version = next() < 0.85 ? 1 : next() < 0.8 ? 2 : 3;
    const stem = `${yymm}.${number}v${version}`;
    const hasPdf = next() < 0.97;
    const hasMd = hasPdf && next() < 0.41;
    const images = hasMd ? Math.floor(next() * 25) : 0;
    const pdfAt = hasPdf && next() < 0.98 ? start + Math.floor(next() * span) : NaN;
    const mdAt = hasMd ? start + Math.floor(next() * span) : NaN;
    table.ids[i] = stem;
    table.text.key[i] = stem;
    table.text.yymm[i] = yymm;
    table.flags.has_pdf[i] = hasPdf ? 1 : 0;
    table.flags.has_md[i] = hasMd ? 1 : 0;
    table.imageCount[i] = images;
    table.sizes.pdf_size_bytes[i] = hasPdf ? 100_000 + Math.floor(next() * 5_000_000) : NaN;
    table.sizes.md_size_bytes[i] = hasMd ? 10_000 + Math.floor(next() * 200_000) : NaN;
    table.sizes.images_size_bytes[i] = images > 0 ? images * 40_000 : NaN;
    // Packed hex (random bytes above) where the object exists.
    table.hex.pdf_sha256.state[i] = hasPdf ? 1 : 0;
    table.hex.pdf_etag.state[i] = hasPdf ? 1 : 0;
    table.hex.md_sha256.state[i] = hasMd ? 1 : 0;
    table.hex.md_etag.state[i] = hasMd ? 1 : 0;
    table.times.pdf_uploaded_at[i] = pdfAt;
    table.times.md_uploaded_at[i] = mdAt;
    table.times.images_uploaded_at[i] = images > 0 ? mdAt : NaN;
    table.times.updated_at[i] = Number.isNaN(mdAt) ? (Number.isNaN(pdfAt) ? start : pdfAt) : mdAt;
    table.text.title[i] = next() < 0.3 ? `A generated title about topic ${i % 1000}` : null;
  }
  table.indexRows();
  return table;
}
