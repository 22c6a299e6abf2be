/**
 * `POST /api/downloader/fetch` (CONTRACT §19): the original clients' batch fetch (`qatlas paper fetch`), answered
 * from the same batch as `POST /api/papers/fetch` in the original's shape. Deprecated alias.
 */
import { UnavailableError } from '../../../shared/domain-errors.js';
import { DownloaderFetch, FetchRequest } from '../../../shared/api/registry.js';
import { fetchBatch, type FetchItemResult } from '../../access/fetch-batch.js';
import type { PaperAccess } from '../../access/service.js';
import { lookupCaller } from './resolution.js';
import { scope } from '../guard.js';
import type { PaperAction } from './action.js';
import { ErrorBody } from '../schemas.js';
import { fetchBodyErrors, readFetchRequest } from './fetch-body.js';

export const DOWNLOADER_OFF = 'downloader not configured (paper access is off)';

/** The §19 answer: `created` = this item started a job; `enqueued` counts items that started or joined one. */
export function downloaderAnswer(results: readonly FetchItemResult[]): DownloaderFetch {
  return {
    items: results.map((r) => ({
      input: r.input,
      kind: r.refKind,
      ...(r.resolvedId !== null ? { paper_id: r.resolvedId } : {}),
      created: r.created,
      ...(r.error !== null ? { error: r.error } : {}),
    })),
    enqueued: results.filter((r) => r.enqueued).length,
  };
}

/** Registered always; with paper access off (`access` null) it answers 503. */
export function downloaderFetchAction(access: PaperAccess | null): PaperAction {
  return {
    method: 'POST',
    path: '/api/downloader/fetch',
    guard: scope('papers', 'write'),
    body: FetchRequest,
    schema: {
      summary: 'Batch fetch as the original clients call it (deprecated alias of POST /api/papers/fetch, CONTRACT §19)',
      description:
        'The body of POST /api/papers/fetch (`kind` default `markdown`). ' +
        'Item `kind`: arxiv, doi, url or invalid; `created`: this item started a job.',
      tags: ['paper-access'],
      deprecated: true,
      response: {
        200: DownloaderFetch,
        ...fetchBodyErrors,
        503: { ...ErrorBody, description: DOWNLOADER_OFF },
      },
    },
    handle: async (request, reply) => {
      // The body is checked first: bad input is a 400 whatever the configuration (guard → validate → handler).
      const { items, kind } = await readFetchRequest(request, 'markdown');
      if (access === null) throw new UnavailableError(DOWNLOADER_OFF);
      const results = await fetchBatch(access, { items, kind, caller: lookupCaller(request) });
      return reply.code(200).send(downloaderAnswer(results));
    },
  };
}
