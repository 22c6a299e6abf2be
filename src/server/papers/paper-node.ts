import { parsePreprintId } from '../../shared/ids.js';
import type { PaperAssetProps } from '../graph/paper-assets.js';
import type { IndexRow } from './index/row.js';

/** Graph asset properties of one `Paper` node, computed from the index rows of all its versions (§6.1). */
export function paperAssetProperties(rows: readonly IndexRow[], now: Date): PaperAssetProps {
  const byVersion = rows.map((r) => ({ r, v: parsePreprintId(r.preprint_id)?.version ?? 0 })).sort((a, b) => a.v - b.v);
  const withAsset = byVersion.filter(({ r }) => r.has_pdf || r.has_md || r.image_count > 0);
  const pdf = byVersion.filter(({ r }) => r.has_pdf);
  const md = byVersion.filter(({ r }) => r.has_md);
  const latestPdf = pdf.at(-1);
  const latestMd = md.at(-1);
  return {
    yymm: rows[0]?.yymm ?? null,
    versions: withAsset.map(({ r }) => r.preprint_id),
    pdf_versions: pdf.map(({ r }) => r.preprint_id),
    md_versions: md.map(({ r }) => r.preprint_id),
    has_pdf: pdf.length > 0,
    has_md: md.length > 0,
    latest_pdf_version: latestPdf ? latestPdf.v : null,
    pdf_size: latestPdf?.r.pdf_size_bytes ?? null,
    pdf_sha256: latestPdf?.r.pdf_sha256 ?? null,
    latest_md_version: latestMd ? latestMd.v : null,
    md_size: latestMd?.r.md_size_bytes ?? null,
    md_sha256: latestMd?.r.md_sha256 ?? null,
    image_count: latestMd?.r.image_count ?? 0,
    assets_updated_at: now.toISOString(),
  };
}
