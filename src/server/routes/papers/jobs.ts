/** `GET /api/papers/jobs?state=` (CONTRACT §18.2): the paper-access jobs this instance holds. */
import { Type } from '@sinclair/typebox';
import { InvalidInputError } from '../../../shared/domain-errors.js';
import { RegistryJobs } from '../../../shared/api/registry.js';
import type { ListedJob, PaperAccess } from '../../access/service.js';
import { SNAPSHOT_STATES, type SnapshotState } from '../../access/snapshot.js';
import { queryString } from '../../http/query.js';
import { querySchema } from '../../http/query-schema.js';
import { scope } from '../guard.js';
import { definePaperAction, type PaperAction } from './action.js';
import { ErrorBody } from '../schemas.js';

/** The `state` filter: absent or empty → every job; else a comma-separated list of §11.2 states. */
export function stateFilter(raw: unknown): ReadonlySet<SnapshotState> | null {
  const text = queryString(raw)?.trim() ?? '';
  if (text === '') return null;
  const known = new Set<string>(SNAPSHOT_STATES);
  const states = text.split(',').map((s) => s.trim());
  const unknown = states.find((s) => !known.has(s));
  if (unknown !== undefined) {
    throw new InvalidInputError(
      `state: unknown state ${JSON.stringify(unknown)} (one or more of ${SNAPSHOT_STATES.join(', ')}, comma-separated)`,
    );
  }
  return new Set(states as SnapshotState[]);
}

const Query = querySchema({
  state: {
    schema: Type.String({ description: `only jobs in these states, comma-separated: ${SNAPSHOT_STATES.join(', ')}` }),
    decode: stateFilter,
  },
});

/** The jobs the filter keeps; `queued` and `running` count every job held. */
function jobsAnswer(held: readonly ListedJob[], wanted: ReadonlySet<SnapshotState> | null): RegistryJobs {
  return {
    jobs: held
      .filter((j) => wanted === null || wanted.has(j.snapshot.state))
      .map((j) => ({ ...j.snapshot, asset: j.asset })),
    queued: held.filter((j) => j.snapshot.state === 'queued').length,
    running: held.filter((j) => j.snapshot.state === 'running').length,
  };
}

/** Registered always; with paper access off (`access` null) there are no jobs. */
export function jobsAction(access: PaperAccess | null): PaperAction {
  return definePaperAction({
    method: 'GET',
    path: '/api/papers/jobs',
    guard: scope('papers', 'read'),
    schema: {
      summary: 'The paper-access jobs this instance holds: in progress, cooling down after a failure, or ended lately',
      description:
        'Oldest first (by submission time, ties by id). An ended job (`cached`, or `failed` after its cooldown) stays ' +
        'listed for an hour (the last 100). `queued` and `running` count every job listed, whatever the filter.',
      tags: ['paper-access'],
      querystring: Query,
      response: {
        200: RegistryJobs,
        400: { ...ErrorBody, description: 'an unknown state' },
      },
    },
    handle: async (_request, reply, _params, { state: wanted }) =>
      reply.code(200).send(jobsAnswer((await access?.jobs()) ?? [], wanted)),
  });
}
