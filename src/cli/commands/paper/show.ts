import type { PaperDetail, PaperVersion } from '../../../shared/api/registry.js';
import type { JobSnapshot } from '../../../shared/api/jobs.js';
import { formatBytes } from '../../progress/line.js';
import { oneLine } from '../../text.js';
import type { RegisterCommand } from '../host.js';
import { etaLine } from './access.js';
import { paperPath, registerPaperRead } from './registry.js';

/** Authors listed by name before the rest are counted. */
const MAX_AUTHORS = 10;

/** `pks paper show <id>`: what the server holds of one paper (CONTRACT §16.8, `GET /api/papers/{id}`). */
export const registerPaperShow: RegisterCommand = (parent, host) => {
  registerPaperRead<PaperDetail>(parent, host, {
    name: 'show',
    description: 'show a paper: metadata, stored versions with sizes, parser claim and running jobs',
    path: paperPath,
    render: renderDetail,
  });
};

export function renderDetail(paper: PaperDetail): string {
  const lines = [paper.preprint_id];
  const meta = paper.metadata;
  if (meta === null) {
    lines.push('Metadata:  not known to the server');
  } else {
    lines.push(`Title:     ${oneLine(meta.title)}`, `Authors:   ${authors(meta.authors)}`);
    lines.push(`Published: ${meta.published || 'unknown'}`, `DOI:       ${meta.doi ?? 'none'}`);
    if (meta.cited_by_count !== null) lines.push(`Cited by:  ${meta.cited_by_count}`);
  }
  if (paper.versions.length === 0) lines.push('Versions:  none stored');
  else lines.push('Versions:', ...paper.versions.map((v) => `  ${versionLine(v)}`));
  lines.push(
    paper.claim === null
      ? 'Claim:     none'
      : `Claim:     held by ${oneLine(paper.claim.holder)} until ${paper.claim.expires_at}`,
  );
  const jobs = (['markdown', 'pdf'] as const).flatMap((kind) => {
    const job = paper.jobs[kind];
    return job === null ? [] : [`  ${`${kind}:`.padEnd(9)} ${jobWords(job)}`];
  });
  if (jobs.length === 0) lines.push('Jobs:      none');
  else lines.push('Jobs:', ...jobs);
  return `${lines.join('\n')}\n`;
}

/** `v2: PDF 1.2 MiB, markdown 34.5 KiB, 3 images; updated 2026-05-01T12:00:00Z`. */
function versionLine(v: PaperVersion): string {
  const pdf = v.has_pdf ? `PDF ${v.pdf_size === null ? 'of unknown size' : formatBytes(v.pdf_size)}` : 'no PDF';
  const md = v.has_md ? `markdown ${v.md_size === null ? 'of unknown size' : formatBytes(v.md_size)}` : 'no markdown';
  const images = v.image_count === 0 ? 'no images' : v.image_count === 1 ? '1 image' : `${v.image_count} images`;
  return `v${v.version}: ${pdf}, ${md}, ${images}; updated ${v.updated_at}`;
}

function authors(names: readonly string[]): string {
  if (names.length === 0) return 'unknown';
  const shown = names.slice(0, MAX_AUTHORS).map(oneLine).join(', ');
  return names.length > MAX_AUTHORS ? `${shown} and ${names.length - MAX_AUTHORS} more` : shown;
}

/** The eta line of `paper get` (state, phase, progress, queue, eta), and the detail of a job that ended. */
function jobWords(job: JobSnapshot): string {
  const line = etaLine(job);
  return job.detail && (job.state === 'failed' || job.state === 'cooldown') ? `${line}: ${oneLine(job.detail)}` : line;
}
