/** `GET /api/papers/status/batch?ids=…` (CONTRACT §18.2): many papers' states at once, a pure probe. */
import { BATCH_MAX_IDS, BatchStatus } from '../../../shared/api/registry.js';
import type { AppContext } from '../../http/context.js';
import { listField, mapField, querySchema } from '../../http/query-schema.js';
import type { Snapshot } from '../../access/snapshot.js';
import { batchIds, batchStatus, type JobProbe, type JobView } from '../../papers/status-batch.js';
import { definePaperAction, type PaperAction } from './action.js';
import { ErrorBody } from '../schemas.js';
import { paperAccessOf } from '../access.js';

/**
 * The jobs of paper access when it is on; none otherwise. A job held here answers from memory (a job it follows on
 * another instance, with that instance's snapshot); in cluster mode the other ids are read from the job rows in one
 * query.
 */
function jobProbe(ctx: AppContext): JobProbe {
  const access = paperAccessOf(ctx);
  if (!access) return { jobsOf: () => Promise.resolve(new Map()), conversionEnabled: false };
  const { engine } = access;
  return {
    jobsOf: async (ids) => {
      const views = new Map<string, JobView>();
      const absent: string[] = [];
      for (const id of ids) {
        const job = engine.job(id);
        if (!job) absent.push(id.id);
        else if (job.remote !== null && job.inProgress) views.set(id.id, remoteView(job.remote));
        else {
          const state = job.state === 'done' ? 'cached' : job.state;
          views.set(id.id, { state, phase: job.phase, pdfReady: job.pdfReady });
        }
      }
      if (engine.leases && absent.length > 0) {
        for (const [id, row] of await engine.leases.elsewhereAll(absent)) {
          views.set(id, remoteView(row.snapshot as unknown as Snapshot));
        }
      }
      return views;
    },
    conversionEnabled: engine.conversion.enabled,
  };
}

const remoteView = (s: Snapshot): JobView => ({ state: s.state, phase: s.phase, pdfReady: s.pdf_ready });

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
    handle: async (_request, _reply, _params, { ids }) => ({
      results: await batchStatus(ctx.papers.index, ids, probe),
    }),
  });
}
