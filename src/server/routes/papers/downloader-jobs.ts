/**
 * `GET /api/downloader/jobs` (CONTRACT §19): the jobs of `GET /api/papers/jobs` in the original downloader's shape
 * (`qatlas paper jobs`), with its counters. Deprecated alias.
 */
import { rfc3339 } from '../../../shared/time.js';
import { DownloaderJobs } from '../../../shared/api/registry.js';
import type { ListedJob, PaperAccess } from '../../access/service.js';
import { scope } from '../guard.js';
import type { PaperAction } from './action.js';

type DownloaderJob = DownloaderJobs['jobs'][number];

/** A held job as the original downloader listed it: `failed` covers a parser cooldown too. */
export function downloaderJob(listed: ListedJob): DownloaderJob {
  const { snapshot } = listed;
  const state =
    snapshot.state === 'queued' || snapshot.state === 'running'
      ? snapshot.state
      : snapshot.state === 'cached'
        ? 'done'
        : 'failed';
  return {
    paper_id: snapshot.preprint_id,
    state,
    phase: snapshot.phase,
    active: listed.active,
    ...(state === 'failed' && snapshot.detail !== undefined ? { error: snapshot.detail } : {}),
    submitted_at: snapshot.submitted_at ?? rfc3339(listed.updatedAt),
    updated_at: rfc3339(listed.updatedAt),
    ...(listed.finishedAt !== null ? { finished_at: rfc3339(listed.finishedAt) } : {}),
    events: [],
  };
}

/** Registered always; with paper access off (`access` null) there are no jobs and every counter is 0. */
export function downloaderJobsAction(access: PaperAccess | null): PaperAction {
  return {
    method: 'GET',
    path: '/api/downloader/jobs',
    guard: scope('papers', 'read'),
    schema: {
      summary:
        'The paper-access jobs as the original clients read them (deprecated alias of GET /api/papers/jobs, CONTRACT §19)',
      description:
        'counters: queued and in_flight (running) now; succeeded and failed = jobs ended since the start; ' +
        'skipped = fetch items that were already stored.',
      tags: ['paper-access'],
      deprecated: true,
      response: { 200: DownloaderJobs },
    },
    handle: async (_request, reply) => {
      const held = (await access?.jobs()) ?? [];
      const totals = access?.jobTotals() ?? { succeeded: 0, failed: 0, skipped: 0 };
      const jobs = held.map(downloaderJob);
      const answer: DownloaderJobs = {
        jobs,
        counters: {
          queued: jobs.filter((j) => j.state === 'queued').length,
          in_flight: jobs.filter((j) => j.state === 'running').length,
          ...totals,
        },
      };
      return reply.code(200).send(answer);
    },
  };
}
