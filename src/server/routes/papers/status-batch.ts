/** `GET /api/papers/status/batch?ids=…` (CONTRACT §18.2): many papers' states at once, a pure probe. */
import { BATCH_MAX_IDS, BatchStatus } from '../../../shared/api/registry.js';
import type { AppContext } from '../../http/context.js';
import { listField, mapField, querySchema } from '../../http/query-schema.js';
import { batchIds, batchStatus, type JobProbe } from '../../papers/status-batch.js';
import { definePaperAction, type PaperAction } from './action.js';
import { ErrorBody } from '../schemas.js';
import { paperAccessOf } from '../access.js';

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

const Query = querySchema({
  // Repeatable; none, or more than 200 after splitting and de-duplication, is a 400 (`too many ids` carries `max`).
  ids: mapField(
    listField(`comma-separated ids or DOIs (repeatable); at most ${BATCH_MAX_IDS} after trimming and de-duplication`),
    batchIds,
  ),
});

export function statusBatchAction(ctx: AppContext): PaperAction {
  const probe = jobProbe(ctx);
  return definePaperAction({
    method: 'GET',
    path: '/api/papers/status/batch',
    schema: {
      summary: 'The states of many papers at once (no resolution upstream, no job started)',
      tags: ['papers'],
      querystring: Query,
      response: {
        200: BatchStatus,
        400: { ...ErrorBody, description: `no ids, or more than ${BATCH_MAX_IDS} (\`{detail, max}\`)` },
      },
    },
    handle: async (_request, _reply, _params, { ids }) => ({ results: batchStatus(ctx.papers.index, ids, probe) }),
  });
}
