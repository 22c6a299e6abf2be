/** `POST /api/papers/fetch` (CONTRACT §18.2): resolve and trigger 1..50 papers in one request. */
import { FetchAnswer, FetchRequest } from '../../../shared/api/registry.js';
import { fetchBatch, type FetchItemResult } from '../../access/fetch-batch.js';
import type { PaperAccess } from '../../access/service.js';
import { lookupCaller } from './resolution.js';
import { scope } from '../guard.js';
import type { PaperAction } from './action.js';
import { fetchBodyErrors, readFetchRequest } from './fetch-body.js';

/** The §18.2 answer: one result per item in request order; `enqueued` counts items that started or joined a job. */
export function fetchAnswer(results: readonly FetchItemResult[]): FetchAnswer {
  return {
    results: results.map((r) => ({ input: r.input, resolved_id: r.resolvedId, state: r.state, error: r.error })),
    enqueued: results.filter((r) => r.enqueued).length,
  };
}

/** Registered only with paper access on (the path is otherwise unknown, 404). */
export function fetchAction(access: PaperAccess): PaperAction {
  return {
    method: 'POST',
    path: '/api/papers/fetch',
    guard: scope('papers', 'write'),
    body: FetchRequest,
    schema: {
      summary: 'Fetch papers: resolve each item and start (or join) its job, as GET …/markdown or …/pdf would',
      description:
        'Items: ids in any accepted form, DOIs, arxiv.org/abs or /pdf URLs, doi.org URLs (1..50; `kind` default ' +
        '`markdown`). A failure belongs to its item (`error`: the message its GET would answer; `state`: the ' +
        'snapshot state). `enqueued` counts the items that started a job or joined one in progress.',
      tags: ['paper-access'],
      response: {
        200: FetchAnswer,
        ...fetchBodyErrors,
      },
    },
    handle: async (request, reply) => {
      const { items, kind } = await readFetchRequest(request, 'markdown');
      const results = await fetchBatch(access, { items, kind, caller: lookupCaller(request) });
      return reply.code(200).send(fetchAnswer(results));
    },
  };
}
