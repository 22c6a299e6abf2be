/**
 * `GET /api/papers/status/batch?ids=…` (CONTRACT §18.2): a pure probe of many papers at once — ids resolved
 * against what is stored (never upstream), states from the metadata index and, with paper access on, from the
 * jobs this instance holds — in cluster mode also from the job rows of the other instances (§21). Nothing is
 * started.
 */
import { BATCH_MAX_IDS, type BatchStatusItem } from '../../shared/api/registry.js';
import { InvalidInputError } from '../../shared/domain-errors.js';
import type { VersionedPreprintId } from '../../shared/ids.js';
import type { PaperIndex } from './paper-index.js';
import { requireIndex, resolveStored } from './stored-ids.js';

/** What a paper-access job shows of itself here. */
export interface JobView {
  readonly state: string;
  readonly phase: string;
  readonly pdfReady: boolean;
}

export interface JobProbe {
  /**
   * The jobs held for `ids` (paper access on), by canonical id — in cluster mode also those other instances run,
   * read at once for all ids (one query, §21).
   */
  jobsOf(ids: readonly VersionedPreprintId[]): Promise<ReadonlyMap<string, JobView>>;
  /** Whether this server makes markdown of a stored PDF (paper access on and conversion enabled). */
  readonly conversionEnabled: boolean;
}

/**
 * The ids of the `ids` values: split at commas, trimmed, empty ones dropped, duplicates dropped (the first kept).
 * None → 400 `ids required`; more than 200 → 400 `too many ids: <n> (max 200)` with `max`.
 */
export function batchIds(values: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const value of values) {
    for (const part of value.split(',')) {
      const id = part.trim();
      if (id !== '') ids.add(id);
    }
  }
  if (ids.size === 0) throw new InvalidInputError('ids required');
  if (ids.size > BATCH_MAX_IDS) {
    throw new InvalidInputError(`too many ids: ${ids.size} (max ${BATCH_MAX_IDS})`, { fields: { max: BATCH_MAX_IDS } });
  }
  return [...ids];
}

const failed = (requested: string, error: BatchStatusItem['error']): BatchStatusItem => ({
  requested_id: requested,
  resolved_id: '',
  md_ready: false,
  pdf_ready: false,
  image_count: 0,
  state: '',
  phase: '',
  error,
});

/**
 * One result per id, in order: markdown stored → `cached`; else a job's state and phase; else, when a PDF is
 * stored but the server cannot convert it, `unavailable`; else `none` (a resolvable id with nothing stored).
 */
export async function batchStatus(
  index: PaperIndex,
  ids: readonly string[],
  probe: JobProbe,
): Promise<BatchStatusItem[]> {
  requireIndex(index);
  const lookups = ids.map((requested) => ({ requested, lookup: resolveStored(index, requested) }));
  const probed = lookups.flatMap(({ lookup }) =>
    lookup.kind === 'found' && !(index.get(lookup.id.id)?.has_md ?? false) ? [lookup.id] : [],
  );
  const jobs = probed.length > 0 ? await probe.jobsOf(probed) : new Map<string, JobView>();
  return lookups.map(({ requested, lookup }) => {
    if (lookup.kind === 'invalid') return failed(requested, 'invalid paper id');
    if (lookup.kind === 'not_found') return failed(requested, 'not found');
    const { id } = lookup;
    const row = index.get(id.id);
    const mdReady = row?.has_md ?? false;
    const job = mdReady ? null : (jobs.get(id.id) ?? null);
    const pdfReady = (row?.has_pdf ?? false) || (job?.pdfReady ?? false);
    let state: string;
    let phase = '';
    if (mdReady) [state, phase] = ['cached', 'ready'];
    else if (job) [state, phase] = [job.state, job.phase];
    else if (pdfReady && !probe.conversionEnabled) state = 'unavailable';
    else state = 'none';
    return {
      requested_id: requested,
      resolved_id: id.id,
      md_ready: mdReady,
      pdf_ready: pdfReady,
      image_count: row?.image_count ?? 0,
      state,
      phase,
      error: '',
    };
  });
}
