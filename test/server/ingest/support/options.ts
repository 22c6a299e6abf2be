import type { TaskOptions } from '../../../../src/server/ingest/task.js';

/** A task's options when its submission names none: the defaults of CONTRACT §10.1, both stages, not a continuation. */
export const DEFAULT_OPTIONS: TaskOptions = {
  parser: 'pdfparser',
  stages: ['fetch', 'parse'],
  stop_after: null,
  force_fetch: false,
  force_parse: false,
  no_cache: false,
  source_task_id: null,
};
