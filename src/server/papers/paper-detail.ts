/**
 * One preprint as the registry shows it (CONTRACT §18.2 `GET /api/papers/{id}`): every stored version from the
 * metadata index, its metadata (§18.1), the active parser claim and — with paper access on — the current jobs.
 * A pure read: it never starts a job (the metadata may be fetched, §18.1).
 */
import type { PaperDetail, PaperVersion } from '../../shared/api/registry.js';
import { NotFoundError } from '../../shared/domain-errors.js';
import { parsePreprintId, type VersionedPreprintId } from '../../shared/ids.js';
import { rfc3339 } from '../../shared/time.js';
import type { AccessEngine } from '../access/engine.js';
import type { Job } from '../access/job.js';
import { jobSnapshot, type Snapshot } from '../access/snapshot.js';
import type { Claim } from './claim-store.js';
import type { IndexRow } from './index/row.js';
import type { PaperMetadataService } from './metadata/service.js';
import type { PaperIndex } from './paper-index.js';

/** The active parser claims by preprint id (`PaperService`). */
export interface ActiveClaims {
  activeClaims(now: Date): Promise<Map<string, Claim>>;
}

export interface PaperDetailDeps {
  readonly index: PaperIndex;
  readonly claims: ActiveClaims;
  /** `null` when the server has no metadata service (metadata is then `null`). */
  readonly metadata: PaperMetadataService | null;
  /** The paper-access job engine when paper access is on, else `null` (jobs are then `null`). */
  readonly engine: AccessEngine | null;
}

export interface DetailTarget {
  /** Versionless canonical id. */
  readonly versionless: string;
  /** The versioned id whose jobs are shown (the resolved id with paper access on), or `null`. */
  readonly jobId: VersionedPreprintId | null;
  /** The id as requested, for the 404 text. */
  readonly requested: string;
}

function versionOf(row: IndexRow): PaperVersion {
  return {
    version: parsePreprintId(row.preprint_id)?.version ?? 0,
    has_pdf: row.has_pdf,
    has_md: row.has_md,
    pdf_size: row.pdf_size_bytes,
    pdf_sha256: row.pdf_sha256,
    md_size: row.md_size_bytes,
    image_count: row.image_count,
    updated_at: rfc3339(row.updated_at),
  };
}

/**
 * A job shows as the markdown job when it converts, and as the PDF job when it only fetches or has not stored the
 * PDF yet (fetching, or failed fetching): a markdown job in its fetch phase is both.
 */
function asJobs(snapshot: Snapshot, wantMarkdown: boolean): PaperDetail['jobs'] {
  const fetching = snapshot.phase === 'fetching_pdf' || snapshot.phase === 'error_fetching';
  return { markdown: wantMarkdown ? snapshot : null, pdf: !wantMarkdown || fetching ? snapshot : null };
}

/**
 * The job of `id` held here (a job followed on another instance shows that instance's snapshot), else in cluster
 * mode the job another instance runs or ended in a failure still cooling down (§21), from its lease row.
 */
async function jobsOf(engine: AccessEngine | null, id: VersionedPreprintId | null): Promise<PaperDetail['jobs']> {
  if (!engine || !id) return { markdown: null, pdf: null };
  const job: Job | undefined = engine.job(id);
  if (job) return asJobs(jobSnapshot(job, engine.queueView(job), engine.clock.now()), job.wantMarkdown);
  const row = await engine.leases?.elsewhere(id.id);
  if (!row) return { markdown: null, pdf: null };
  return asJobs(row.snapshot as unknown as Snapshot, row.kind === 'markdown');
}

/**
 * The detail body; `NotFoundError('not hosted: <id>')` when nothing is stored, no job runs and no metadata is
 * known. A claim-store failure is the claim store's 503.
 */
export async function paperDetail(deps: PaperDetailDeps, target: DetailTarget): Promise<PaperDetail> {
  const { versionless } = target;
  const versions = deps.index.versionsOf(versionless).map(versionOf);
  const jobs = await jobsOf(deps.engine, target.jobId);
  const metadata = deps.metadata ? await deps.metadata.get(versionless) : null;
  if (versions.length === 0 && jobs.markdown === null && jobs.pdf === null && metadata === null) {
    throw new NotFoundError(`not hosted: ${target.requested}`);
  }
  let claim: PaperDetail['claim'] = null;
  for (const c of (await deps.claims.activeClaims(new Date())).values()) {
    if (parsePreprintId(c.preprint_id)?.versionless !== versionless) continue;
    if (claim === null || rfc3339(c.expires_at) > claim.expires_at) {
      claim = { holder: c.requester, expires_at: rfc3339(c.expires_at) };
    }
  }
  return { preprint_id: versionless, versions, metadata, claim, jobs };
}
