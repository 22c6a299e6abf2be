/**
 * The `{id}` of the registry's per-paper reads (CONTRACT §18): with paper access on, every §11.1 form resolved as
 * the paper-access routes resolve it (the `X-Svc-*` headers included); with it off, only what is stored (the
 * metadata index), never upstream.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VersionedPreprintId } from '../../../shared/ids.js';
import type { PaperAccess } from '../../access/service.js';
import type { AppContext } from '../../http/context.js';
import { requireIndex, resolveStored } from '../../papers/stored-ids.js';
import { resolveRequested } from './resolution.js';

/** The paper-access service when paper access is on (the engine also exists with it off, for ingest). */
export function paperAccessOf(ctx: AppContext): PaperAccess | null {
  return ctx.config.paperAccessEnabled && ctx.access ? ctx.access : null;
}

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
