/**
 * The `{id}` of the registry's per-paper reads (CONTRACT §18): with paper access on, every §11.1 form resolved as
 * the paper-access routes resolve it (the `X-Svc-*` headers included); with it off, only what is stored (the
 * metadata index), never upstream.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../../shared/domain-errors.js';
import type { VersionedPreprintId } from '../../../shared/ids.js';
import type { AppContext } from '../../http/context.js';
import { requireIndex, resolveStored } from '../../papers/stored-ids.js';
import { paperAccessOf } from '../access.js';
import { ErrorBody } from '../schemas.js';
import { resolveRequested } from './resolution.js';

/**
 * The canonical versioned id `raw` stands for, or `null` when paper access is off and nothing stored matches it.
 * An invalid id or DOI, and every §11.1 resolution error with paper access on, are thrown (400, 404, 502, 503).
 */
export async function readId(
  ctx: AppContext,
  raw: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<VersionedPreprintId | null> {
  const access = paperAccessOf(ctx);
  if (access) return (await resolveRequested(access, raw, request, reply)).id;
  const index = ctx.papers.index;
  requireIndex(index);
  const lookup = resolveStored(index, raw);
  if (lookup.kind === 'invalid') throw lookup.error;
  if (lookup.kind === 'not_found' || index.get(lookup.id.id) === undefined) return null;
  return lookup.id;
}

/** `readId` of a read that needs the paper: nothing stored matches (paper access off) → 404 `notFound`. */
export async function requireRead(
  ctx: AppContext,
  raw: string,
  request: FastifyRequest,
  reply: FastifyReply,
  notFound: string,
): Promise<VersionedPreprintId> {
  const id = await readId(ctx, raw, request, reply);
  if (id === null) throw new NotFoundError(notFound);
  return id;
}

/** The failed answers of a read through `requireRead`; `notFound` says what its 404 means. */
export const readErrors = (notFound: string) => ({
  400: { ...ErrorBody, description: 'invalid id or DOI' },
  404: { ...ErrorBody, description: notFound },
  502: { ...ErrorBody, description: 'a resolution upstream error (paper access on)' },
  503: { ...ErrorBody, description: 'DOI resolution unavailable, or the version lookup is rate-limited' },
});
