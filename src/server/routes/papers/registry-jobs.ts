/** Paper registry routes (CONTRACT §18.2): fetch, jobs and the original clients' downloader routes (§19). */
import type { AppContext } from '../../http/context.js';
import { paperAccessOf } from '../access.js';
import type { PaperAction } from './action.js';
import { downloaderFetchAction } from './downloader-fetch.js';
import { downloaderJobsAction } from './downloader-jobs.js';
import { downloaderRemoteJobsAction } from './downloader-remote-jobs.js';
import { fetchAction } from './fetch.js';
import { jobsAction } from './jobs.js';

/**
 * `POST /api/papers/fetch` only with paper access on (otherwise the path is unknown, 404); the jobs lists always
 * (empty with access off); the downloader's fetch always (503 with access off).
 */
export function jobActions(ctx: AppContext): PaperAction[] {
  const access = paperAccessOf(ctx);
  return [
    ...(access ? [fetchAction(access)] : []),
    jobsAction(access),
    downloaderFetchAction(access),
    downloaderJobsAction(access),
    downloaderRemoteJobsAction(),
  ];
}
