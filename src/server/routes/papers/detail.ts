/**
 * `GET /api/papers/{preprint_id}` (CONTRACT §18.2): one preprint — its stored versions, metadata (§18.1), active
 * parser claim and, with paper access on, its current jobs. With paper access on the id takes every §11.1 form
 * (resolution may go upstream, with the `X-Svc-*` headers); with it off, only what is stored. Never starts a job.
 */
import { PaperDetail } from '../../../shared/api/registry.js';
import { looksLikeDoi } from '../../../shared/doi.js';
import { NotFoundError } from '../../../shared/domain-errors.js';
import { parsePreprintId } from '../../../shared/ids.js';
import type { AppContext } from '../../http/context.js';
import { paperDetail, type DetailTarget } from '../../papers/paper-detail.js';
import { requireIndex, resolveStored } from '../../papers/stored-ids.js';
import { definePaperAction, ReadParams, type PaperAction } from './action.js';
import { ErrorBody } from '../schemas.js';
import { paperAccessOf } from '../access.js';
import { readId } from './read-id.js';

export function detailAction(ctx: AppContext): PaperAction {
  const index = ctx.papers.index;
  return definePaperAction({
    method: 'GET',
    path: '/api/papers/{preprint_id}',
    params: ReadParams,
    // Anything else under /api/papers/ stays an unknown path (404 before authentication).
    takes: (id) => parsePreprintId(id) !== null || looksLikeDoi(id),
    schema: {
      summary: 'One paper: its stored versions, metadata, parser claim and current jobs (starts nothing)',
      tags: ['papers'],
      response: {
        200: PaperDetail,
        400: { ...ErrorBody, description: 'invalid DOI (`{detail, doi}`)' },
        404: {
          ...ErrorBody,
          description: '`not hosted: <id>`: nothing stored, no job, no metadata; or a resolution 404',
        },
        429: {
          ...ErrorBody,
          description: 'too many DOI lookups through OpenAlex for this credential (paper access on)',
        },
        502: { ...ErrorBody, description: 'OpenAlex or the arXiv version lookup failed (paper access on)' },
        503: {
          ...ErrorBody,
          description:
            'the metadata index is not loaded yet; DOI resolution unavailable or rate-limited (paper access on); claim store unreachable',
        },
      },
    },
    handle: async (request, reply, { preprint_id: requested }) => {
      // An unavailable index would read as "nothing stored": a 503, never a false 404 or empty versions.
      requireIndex(index);
      const access = paperAccessOf(ctx);
      let target: DetailTarget;
      if (access) {
        const id = (await readId(ctx, requested, request, reply))!;
        target = { versionless: id.versionless, jobId: id, requested };
      } else {
        const stored = resolveStored(index, requested);
        if (stored.kind === 'invalid') throw stored.error;
        if (stored.kind === 'not_found') throw new NotFoundError(`not hosted: ${requested}`);
        target = { versionless: stored.id.versionless, jobId: null, requested };
      }
      const detail = await paperDetail(
        {
          index,
          claims: ctx.papers,
          metadata: ctx.metadata?.service ?? null,
          engine: access?.engine ?? null,
        },
        target,
      );
      return reply.code(200).send(detail);
    },
  });
}
