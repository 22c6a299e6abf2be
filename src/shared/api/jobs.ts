/**
 * The paper-access job snapshot (CONTRACT §11.2): the body of every status answer, 202 and job failure, and an item
 * of the registry's job lists (§18.2). TypeBox only: the browser imports this too.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, OpenObject, Timestamp } from './common.js';

export const JobQueue = Type.Object({
  position: Type.Optional(Type.Integer()),
  ahead_of_me: Type.Optional(Type.Integer()),
  running_count: Type.Integer(),
  max_concurrent: Type.Integer(),
  eta_seconds: Type.Optional(Type.Integer()),
  avg_duration_seconds: Type.Integer(),
  eta_basis: Type.String(),
});

export const JobSnapshot = OpenObject(
  {
    preprint_id: Type.String(),
    state: Type.String({ enum: ['cached', 'queued', 'running', 'failed', 'cooldown', 'none', 'unavailable'] }),
    phase: Type.String({ enum: ['fetching_pdf', 'converting_md', 'ready', 'error_fetching', 'error_converting', ''] }),
    pdf_ready: Type.Boolean(),
    md_ready: Type.Boolean(),
    submitted_at: Type.Optional(Timestamp()),
    started_at: Type.Optional(Timestamp()),
    detail: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String({ enum: ['fatal', 'retryable', 'daily_limit'] })),
    retry_after: Type.Optional(Type.Integer({ description: 'end of the cooldown, epoch seconds' })),
    retry_after_iso: Type.Optional(Timestamp('end of the cooldown')),
    markdown_url: Type.Optional(Type.String()),
    pdf_url: Type.Optional(Type.String()),
    operation: Type.Optional(Type.Object({ status_url: Type.String(), next_poll_after_iso: Timestamp() })),
    fetch: Type.Optional(
      OpenObject({
        started_at: Timestamp(),
        completed_at: Nullable(Timestamp()),
        bytes_received: Type.Integer(),
        bytes_total: Nullable(Type.Integer({ description: 'from Content-Length' })),
        sha256: Nullable(Type.String()),
        attempts: Type.Integer(),
      }),
    ),
    convert: Type.Optional(
      OpenObject({
        started_at: Timestamp(),
        parser_task_id: Nullable(Type.String()),
        stage: Type.String(),
        polled_count: Type.Integer(),
        completed_at: Nullable(Timestamp()),
        extracted_pages: Nullable(Type.Integer()),
        total_pages: Nullable(Type.Integer()),
      }),
    ),
    queue: Type.Optional(JobQueue),
    requested_id: Type.Optional(Type.String()),
    resolved_id: Type.Optional(Type.String()),
    defaults_applied: Type.Optional(Type.Array(Type.String())),
  },
  'a paper-access job snapshot (CONTRACT §11.2)',
);

export type JobSnapshot = Static<typeof JobSnapshot>;
/** A snapshot's `state` (the schema documents it as a string enum). */
export type JobState = 'cached' | 'queued' | 'running' | 'failed' | 'cooldown' | 'none' | 'unavailable';
