/**
 * The ingest answers (CONTRACT §10): the 202 of submit/continue and the task document. TypeBox only: the server
 * documents its routes with these schemas and `pks ingest` reads their bodies through the `Static<>` types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, OpenObject, Timestamp } from './common.js';

export const IngestStageName = Type.Union([Type.Literal('fetch'), Type.Literal('parse')]);

/** 202 of `POST /api/ingest` and `POST /api/ingest/{task_id}/continue`. */
export const IngestAccepted = Type.Object({
  task_id: Type.String({ pattern: '^[0-9a-f]{8}$' }),
  status: Type.Literal('queued'),
  message: Type.String(),
  status_url: Type.String(),
});
export type IngestAccepted = Static<typeof IngestAccepted>;

export const IngestStep = OpenObject({
  status: Type.String({ enum: ['pending', 'running', 'succeeded', 'failed', 'skipped'] }),
  message: Type.String(),
  attempts: Type.Integer(),
  started_at: Nullable(Timestamp()),
  finished_at: Nullable(Timestamp()),
  error: Nullable(Type.String()),
  progress: Nullable(OpenObject({}, 'phase and its fields (CONTRACT §10.3)')),
  result: Nullable(OpenObject({})),
  retry_after_iso: Type.Optional(Timestamp('daily limit: when a parser token recovers')),
});
export type IngestStep = Static<typeof IngestStep>;

/** `GET /api/ingest/{task_id}`. */
export const IngestTask = Type.Object({
  task_id: Type.String(),
  preprint_id: Type.String(),
  requested_id: Type.Optional(Type.String()),
  defaults_applied: Type.Optional(Type.Array(Type.String())),
  status: Type.String({ enum: ['queued', 'running', 'succeeded', 'partial', 'failed', 'cancelled'] }),
  message: Type.String(),
  requester: Type.String(),
  options: Type.Object({
    parser: Type.String(),
    stages: Type.Array(IngestStageName),
    stop_after: Nullable(IngestStageName),
    force_fetch: Type.Boolean(),
    force_parse: Type.Boolean(),
    no_cache: Type.Boolean(),
    source_task_id: Nullable(Type.String()),
  }),
  steps: Type.Object({ fetch: IngestStep, parse: IngestStep }),
  submitted_at: Timestamp(),
  started_at: Nullable(Timestamp()),
  finished_at: Nullable(Timestamp()),
  updated_at: Timestamp(),
});
export type IngestTask = Static<typeof IngestTask>;
