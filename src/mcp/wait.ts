/**
 * What an agent is told while `paper_markdown` waits for a conversion (CONTRACT §20): the job's state, phase, stage
 * and pages, and an ETA read from the §11.2 snapshot.
 */
import type { JobSnapshot } from '../shared/api/jobs.js';

/** States after which waiting longer changes nothing. */
export const ENDED_STATES: ReadonlySet<string> = new Set(['failed', 'cooldown', 'unavailable', 'none']);

/** Seconds until the job is expected to be done: the queue's estimate, else the average minus the time spent. */
export function etaSeconds(job: JobSnapshot, now: number): number | null {
  const queue = job.queue;
  if (queue === undefined) return null;
  if (queue.eta_seconds !== undefined) return queue.eta_seconds;
  if (job.started_at === undefined || queue.avg_duration_seconds <= 0) return null;
  const spent = (now - Date.parse(job.started_at)) / 1000;
  return Number.isFinite(spent) ? Math.max(0, Math.round(queue.avg_duration_seconds - spent)) : null;
}

/** `running converting_md (stage running, 3/12 pages; position 2 in queue); ETA ~190 s`. */
export function progressMessage(job: JobSnapshot, now: number): string {
  const parts: string[] = [];
  if (job.convert) {
    const pages =
      job.convert.total_pages !== null ? `, ${job.convert.extracted_pages ?? 0}/${job.convert.total_pages} pages` : '';
    parts.push(`stage ${job.convert.stage}${pages}`);
  } else if (job.fetch && job.phase === 'fetching_pdf') {
    const total = job.fetch.bytes_total === null ? '' : `/${job.fetch.bytes_total}`;
    parts.push(`${job.fetch.bytes_received}${total} bytes of the PDF`);
  }
  if (job.queue?.position !== undefined) parts.push(`position ${job.queue.position} in queue`);
  const eta = etaSeconds(job, now);
  const details = parts.length > 0 ? ` (${parts.join('; ')})` : '';
  return `${job.state} ${job.phase}${details}${eta === null ? '' : `; ETA ~${eta} s`}`;
}
