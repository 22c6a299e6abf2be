/** `GET /api/papers/status/batch?ids=…` (CONTRACT §18.2): many papers' states at once, a pure probe. */
import { Type } from '@sinclair/typebox';
import { BATCH_MAX_IDS, BatchStatus } from '../../../shared/api/registry.js';
import type { AppContext } from '../../http/context.js';
import { batchIds, batchStatus, type JobProbe } from '../../papers/status-batch.js';
import type { PaperAction } from '../papers.js';
import { ErrorBody } from '../schemas.js';
import { paperAccessOf } from './read-id.js';

/** The jobs of paper access when it is on; none otherwise. */
function jobProbe(ctx: AppContext): JobProbe {
  const access = paperAccessOf(ctx);
  if (!access) return { jobOf: () => null, conversionEnabled: false };
  return {
    jobOf: (id) => {
      const job = access.engine.job(id);
      return job
        ? { state: job.state === 'done' ? 'cached' : job.state, phase: job.phase, pdfReady: job.pdfReady }
        : null;
    },
    conversionEnabled: access.engine.conversion.enabled,
  };
}

export function statusBatchAction(ctx: AppContext): PaperAction {
  const probe = jobProbe(ctx);
  return {
    method: 'GET',
    path: '/api/papers/status/batch',
    schema: {
      summary: 'The states of many papers at once (no resolution upstream, no job started)',
      tags: ['papers'],
      querystring: Type.Object({
        // An array: a single `ids=` arrives as a one-element list (query coercion), a repeated one as several.
        ids: Type.Optional(
          Type.Array(Type.String(), {
            description: `comma-separated ids or DOIs (repeatable); at most ${BATCH_MAX_IDS} after trimming and de-duplication`,
          }),
        ),
      }),
      response: {
        200: BatchStatus,
        400: { ...ErrorBody, description: `no ids, or more than ${BATCH_MAX_IDS} (\`{detail, max}\`)` },
      },
    },
    handle: async (request) => {
      const ids = batchIds((request.query as { ids?: string[] } | undefined)?.ids ?? []);
      return { results: batchStatus(ctx.papers.catalog.index, ids, probe) };
    },
  };
}
