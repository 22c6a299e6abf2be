/**
 * Job snapshots (CONTRACT §11.2–11.3): the body of every paper-access status answer, 202 and failure.
 */
import type { VersionedPreprintId } from '../../shared/ids.js';
import { rfc3339 } from '../../shared/time.js';
import type { AccessKind, QueueView } from './engine.js';
import type { Job } from './job.js';
import type { Resolution } from './resolver.js';

/** Every `state` of a snapshot (§11.2), in the contract's order. */
export const SNAPSHOT_STATES = ['cached', 'queued', 'running', 'failed', 'cooldown', 'none', 'unavailable'] as const;
export type SnapshotState = (typeof SNAPSHOT_STATES)[number];

/** A snapshot's `fetch` (§11.2). */
export interface FetchView {
  started_at: string;
  completed_at: string | null;
  bytes_received: number;
  bytes_total: number | null;
  sha256: string | null;
  attempts: number;
}

/** A snapshot's `convert` (§11.2). */
export interface ConvertView {
  started_at: string;
  parser_task_id: string | null;
  stage: string;
  polled_count: number;
  completed_at: string | null;
  extracted_pages: number | null;
  total_pages: number | null;
}

export interface Snapshot {
  preprint_id: string;
  state: SnapshotState;
  phase: string;
  pdf_ready: boolean;
  md_ready: boolean;
  submitted_at?: string;
  started_at?: string;
  detail?: string;
  kind?: string;
  retry_after?: number;
  retry_after_iso?: string;
  markdown_url?: string;
  pdf_url?: string;
  operation?: { status_url: string; next_poll_after_iso: string };
  fetch?: FetchView;
  convert?: ConvertView;
  queue?: QueueView;
  requested_id?: string;
  resolved_id?: string;
  defaults_applied?: string[];
}

export const POLL_AFTER_SECONDS = 5;

export const resourcePath = (id: VersionedPreprintId, kind: AccessKind) => `/api/papers/${id.id}/${kind}`;
export const statusPath = (id: VersionedPreprintId, kind: AccessKind) => `${resourcePath(id, kind)}/status`;

const iso = (ms: number | null) => (ms === null ? null : rfc3339(ms));

export function cachedSnapshot(
  id: VersionedPreprintId,
  kind: AccessKind,
  pdfReady: boolean,
  mdReady: boolean,
): Snapshot {
  const urlField = kind === 'markdown' ? 'markdown_url' : 'pdf_url';
  return {
    preprint_id: id.id,
    state: 'cached',
    phase: 'ready',
    pdf_ready: pdfReady,
    md_ready: mdReady,
    [urlField]: resourcePath(id, kind),
  };
}

export function noneSnapshot(id: VersionedPreprintId, kind: AccessKind, pdfReady: boolean, mdReady: boolean): Snapshot {
  const what = kind === 'markdown' ? 'starts a conversion' : 'starts a download from arXiv';
  return {
    preprint_id: id.id,
    state: 'none',
    phase: '',
    pdf_ready: pdfReady,
    md_ready: mdReady,
    detail: `not cached; GET ${resourcePath(id, kind)} ${what}`,
  };
}

export function unavailableSnapshot(id: VersionedPreprintId, pdfReady: boolean, detail: string): Snapshot {
  return { preprint_id: id.id, state: 'unavailable', phase: '', pdf_ready: pdfReady, md_ready: false, detail };
}

/** A job's snapshot; `now` for the cooldown fields. */
export function jobSnapshot(job: Job, queue: QueueView | null, now: number): Snapshot {
  // A job another instance runs: the snapshot it stored (§21).
  if (job.remote !== null && job.inProgress) return { ...job.remote };
  const snapshot: Snapshot = {
    preprint_id: job.id,
    state: job.state === 'done' ? 'cached' : job.state,
    phase: job.phase,
    pdf_ready: job.pdfReady,
    md_ready: job.mdReady,
    submitted_at: rfc3339(job.submittedAt),
  };
  if (job.state === 'done') {
    // An ended job as the registry lists it: cached, with the URL of its asset (§11.2).
    const kind: AccessKind = job.wantMarkdown ? 'markdown' : 'pdf';
    snapshot[kind === 'markdown' ? 'markdown_url' : 'pdf_url'] = resourcePath(job.preprint, kind);
  }
  if (job.startedAt !== null) snapshot.started_at = rfc3339(job.startedAt);
  if (job.failure && !job.inProgress) {
    snapshot.detail = job.failure.detail;
    snapshot.kind = job.failure.kind;
    if (job.failure.kind === 'daily_limit') snapshot.retry_after = Math.floor(job.failure.until / 1000);
    if (job.failure.kind !== 'fatal') snapshot.retry_after_iso = rfc3339(Math.max(job.failure.until, now));
  }
  if (job.fetch) {
    snapshot.fetch = {
      started_at: rfc3339(job.fetch.started_at),
      completed_at: iso(job.fetch.completed_at),
      bytes_received: job.fetch.bytes_received,
      bytes_total: job.fetch.bytes_total,
      sha256: job.fetch.sha256,
      attempts: job.fetch.attempts,
    };
  }
  if (job.convert) {
    snapshot.convert = {
      started_at: rfc3339(job.convert.started_at),
      parser_task_id: job.convert.parser_task_id,
      stage: job.convert.stage,
      polled_count: job.convert.polled_count,
      completed_at: iso(job.convert.completed_at),
      extracted_pages: job.convert.extracted_pages,
      total_pages: job.convert.total_pages,
    };
  }
  if (queue) snapshot.queue = queue;
  return snapshot;
}

/** 202 additions: `detail` and `operation` (§11.2). */
export function accepted(snapshot: Snapshot, id: VersionedPreprintId, kind: AccessKind, now: number): Snapshot {
  return {
    ...snapshot,
    detail: kind === 'markdown' ? 'conversion in progress' : 'PDF not in store; fetching from arXiv',
    operation: { status_url: statusPath(id, kind), next_poll_after_iso: rfc3339(now + POLL_AFTER_SECONDS * 1000) },
  };
}

/** `requested_id`, `resolved_id`, `defaults_applied` when a default was applied (§11.1). */
export function withResolution(snapshot: Snapshot, resolution: Resolution): Snapshot {
  if (resolution.defaults.length === 0) return snapshot;
  return {
    ...snapshot,
    requested_id: resolution.requestedId,
    resolved_id: resolution.id.id,
    defaults_applied: [...resolution.defaults],
  };
}
