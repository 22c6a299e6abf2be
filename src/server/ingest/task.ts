/**
 * Ingest task documents (CONTRACT §10.2–10.3): the persisted shape, stage selection and the task status rule.
 */

export const STAGES = ['fetch', 'parse'] as const;
export type Stage = (typeof STAGES)[number];
export const PARSERS = ['pdfparser'] as const;

export type TaskStatus = 'queued' | 'running' | 'succeeded' | 'partial' | 'failed' | 'cancelled';
export type StepStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';

export interface TaskOptions {
  parser: string;
  stages: Stage[];
  stop_after: Stage | null;
  force_fetch: boolean;
  force_parse: boolean;
  no_cache: boolean;
  source_task_id: string | null;
}

export interface StepDocument {
  status: StepStatus;
  message: string;
  attempts: number;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
  progress: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  /** Daily-limit failures: when the earliest parser token recovers. */
  retry_after_iso?: string;
}

export interface TaskDocument {
  task_id: string;
  preprint_id: string;
  requested_id?: string;
  defaults_applied?: string[];
  status: TaskStatus;
  message: string;
  requester: string;
  options: TaskOptions;
  steps: Record<Stage, StepDocument>;
  submitted_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export const RESTART_MESSAGE = 'server restarted before the task finished; use continue';

/** Stage selection (§10.1): `stages` (canonical order, duplicates removed), else up to `stop_after`, else all. */
export function selectStages(stages: readonly Stage[] | null, stopAfter: Stage | null): Stage[] {
  if (stages !== null) return STAGES.filter((s) => stages.includes(s));
  if (stopAfter !== null) return STAGES.slice(0, STAGES.indexOf(stopAfter) + 1);
  return [...STAGES];
}

export function pendingStep(selected: boolean): StepDocument {
  return {
    status: selected ? 'pending' : 'skipped',
    message: selected ? 'waiting' : 'not selected',
    attempts: 0,
    started_at: null,
    finished_at: null,
    error: null,
    progress: null,
    result: null,
  };
}

/** The task status once its steps ended (§10.3). */
export function finalStatus(task: TaskDocument): TaskStatus {
  const steps = task.options.stages.map((s) => task.steps[s]);
  const succeeded = steps.filter((s) => s.status === 'succeeded').length;
  const failed = steps.filter((s) => s.status === 'failed').length;
  if (failed === 0) return 'succeeded';
  return succeeded > 0 ? 'partial' : 'failed';
}

/** The stages a continuation runs (§10.4): after the source's last succeeded step, bounded by `stop_after`. */
export function remainingStages(source: TaskDocument, stopAfter: Stage | null): Stage[] {
  let next = 0;
  STAGES.forEach((stage, i) => {
    if (source.steps[stage].status === 'succeeded') next = i + 1;
  });
  const bound = stopAfter === null ? STAGES.length : STAGES.indexOf(stopAfter) + 1;
  return STAGES.slice(next, Math.max(next, bound));
}
