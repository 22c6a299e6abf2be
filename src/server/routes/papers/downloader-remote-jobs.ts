/**
 * `GET /api/downloader/remote-jobs` (CONTRACT §19): the original's remote download fleet, which pksd does not have —
 * always `{"enabled":false,"jobs":[]}`, so `qatlas paper jobs --remote` reports it off. Deprecated alias.
 */
import { DownloaderRemoteJobs } from '../../../shared/api/registry.js';
import { scope } from '../guard.js';
import type { PaperAction } from './action.js';

export function downloaderRemoteJobsAction(): PaperAction {
  return {
    method: 'GET',
    path: '/api/downloader/remote-jobs',
    guard: scope('papers', 'read'),
    schema: {
      summary: "The original's remote download fleet: never enabled here (deprecated, CONTRACT §19)",
      tags: ['paper-access'],
      deprecated: true,
      response: { 200: DownloaderRemoteJobs },
    },
    handle: async (_request, reply) => {
      const answer: DownloaderRemoteJobs = { enabled: false, jobs: [] };
      return reply.code(200).send(answer);
    },
  };
}
