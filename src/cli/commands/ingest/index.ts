import { requestTimeoutOption } from '../common-options.js';
import type { RegisterCommand } from '../host.js';
import { defineAction } from '../host.js';
import { requestTimeoutMs } from '../options.js';
import { addIngestOptions, parseIngestOptions } from './options.js';
import { submitAndFollow } from './task.js';
import { EXIT } from '../../errors.js';
import { jsonObject } from '../../http/json-body.js';
import { renderHttpError } from '../paper/access.js';

/** `pks ingest <id>`, `pks ingest continue <task_id>`, `pks ingest status <task_id>` (CONTRACT §16.3). */
export const registerIngest: RegisterCommand = (program, host) => {
  const ingest = addIngestOptions(
    program
      .command('ingest')
      .description('server-side fetch (arXiv → PDF) and parse (PDF → markdown) of a paper, then follow the task')
      .argument('<id>', 'preprint id (canonical, versionless or bare old-style)'),
  )
    .enablePositionalOptions()
    .action(
      defineAction(
        host,
        ([id], o) => ({ id: id!, options: parseIngestOptions(o) }),
        (ctx, { id, options }) =>
          submitAndFollow(ctx, '/api/ingest/paper', { preprint_id: id, ...options.fields }, options),
      ),
    );

  addIngestOptions(
    ingest
      .command('continue')
      .description('run the remaining stages of a task as a new task, then follow it')
      .argument('<task_id>', 'the source task'),
  ).action(
    defineAction(
      host,
      ([taskId], o) => ({ taskId: taskId!, options: parseIngestOptions(o) }),
      (ctx, { taskId, options }) =>
        submitAndFollow(ctx, `/api/ingest/${encodeURIComponent(taskId)}/continue`, options.fields, options),
    ),
  );

  ingest
    .command('status')
    .description('print the task document once')
    .argument('<task_id>', 'task id')
    .addOption(requestTimeoutOption())
    .action(
      defineAction(
        host,
        ([taskId], o) => ({ taskId: taskId!, timeoutMs: requestTimeoutMs(o['requestTimeout']) }),
        async (ctx, { taskId, timeoutMs }) => {
          const res = await ctx
            .api({ timeoutMs })
            .request('GET', `/api/ingest/${encodeURIComponent(taskId)}`, { kind: 'read' });
          const text = await res.text();
          if (res.status !== 200) {
            ctx.io.stderr(renderHttpError('ingest status failed', res.status, res.statusText, text));
            return EXIT.failure;
          }
          ctx.io.stdout(`${JSON.stringify(jsonObject(res, text), null, 2)}\n`);
          return EXIT.ok;
        },
      ),
    );
};
