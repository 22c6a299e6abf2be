/**
 * The trigger reads of paper access (CONTRACT §11.4): `GET …/markdown` and `GET …/pdf` answer the stored content,
 * or start (or join) a job and answer its §11.2 snapshot.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { AccessKind } from '../../access/engine.js';
import type { PaperAccess, TriggerSnapshot } from '../../access/service.js';
import { statusPath } from '../../access/snapshot.js';
import { JobSnapshot as Snapshot } from '../../../shared/api/jobs.js';
import { objectStoreError, type ByteRange } from '../../storage/object-store.js';
import { ErrorBody } from '../schemas.js';
import { definePaperAction, ReadParams, type PaperAction } from './action.js';
import { resolutionErrors, resolveRequested } from './resolution.js';

const STATUS_OF: Readonly<Record<TriggerSnapshot['outcome'], number>> = {
  accepted: 202,
  not_found: 404,
  failed: 502,
  cooldown: 503,
  unavailable: 503,
};

/**
 * A markdown read's `Range` of one part, `bytes=<first>-[<last>]` (what the MCP tools send for a piece); any other
 * form is ignored and the whole markdown sent, as RFC 9110 allows.
 */
function byteRange(header: string | undefined): ByteRange | undefined {
  const match = /^bytes=(\d{1,15})-(\d{0,15})$/.exec(header?.trim() ?? '');
  if (!match) return undefined;
  const range = { start: Number(match[1]), end: match[2] === '' ? null : Number(match[2]) };
  return range.end === null || range.end >= range.start ? range : undefined;
}

/** The answers of a markdown read with a `Range`. */
const RANGE_ANSWERS: Readonly<Record<number, TSchema>> = {
  206: Type.String({ description: 'the bytes of a `Range: bytes=<first>-[<last>]` (Content-Range)' }),
  416: { ...ErrorBody, description: 'the range starts past the end (Content-Range: bytes */<size>)' },
};

/**
 * A markdown body of at most this many bytes is read whole and sent as one buffer: cheaper per request than piping
 * the store's stream into the answer (issue 25), and held only as long as the write takes. The stored-object
 * compression opt-out keys on the declared `Content-Length` (http/compression.ts), so it passes as stored either way.
 */
const WHOLE_BODY_BYTES = 64 * 1024;

/**
 * The store's `body` of `bytes` bytes: whole when small (a store failure while reading it, or fewer bytes than
 * declared, is a 500), else as is.
 */
async function markdownBody(body: Readable, bytes: number, key: string): Promise<Readable | Buffer> {
  if (bytes > WHOLE_BODY_BYTES) return body;
  let whole: Buffer;
  try {
    whole = await buffer(body);
  } catch (err) {
    throw objectStoreError(`get ${key}: ${(err as Error).message}`, err);
  }
  if (whole.length !== bytes) throw objectStoreError(`get ${key}: ${whole.length} of ${bytes} bytes read`);
  return whole;
}

/** The trigger read of `kind` at `path` (each path is declared by its own module). */
export function triggerAction(access: PaperAccess, kind: AccessKind, path: string): PaperAction {
  return definePaperAction({
    method: 'GET',
    path,
    params: ReadParams,
    schema: {
      summary:
        kind === 'markdown'
          ? 'The paper as markdown; starts a fetch and conversion when it is not stored (202)'
          : 'The paper as PDF; starts a fetch from arXiv when it is not stored (202)',
      tags: ['paper-access'],
      response: {
        200: Type.String({
          description:
            kind === 'markdown' ? 'the markdown (text/markdown; charset=utf-8)' : 'the PDF (application/pdf)',
        }),
        ...(kind === 'markdown' ? RANGE_ANSWERS : {}),
        202: { ...Snapshot, description: 'a job runs: poll Operation-Location after Retry-After seconds' },
        ...resolutionErrors,
        404: { ...Snapshot, description: 'arXiv does not have the paper (failed snapshot), or a resolution 404' },
        502: { ...Snapshot, description: 'the job failed (failed snapshot), or a resolution upstream error' },
        503: {
          ...Snapshot,
          description:
            kind === 'markdown'
              ? 'conversion disabled (unavailable snapshot) or every parser token at its daily limit (cooldown)'
              : 'a resolution 503',
        },
      },
    },
    handle: async (request, reply, { preprint_id: requested }) => {
      const resolution = await resolveRequested(access, requested, request, reply);
      // With `If-Range` (not evaluated here) the whole markdown is the right answer whatever it names.
      const ranged = kind === 'markdown' && request.headers['if-range'] === undefined;
      const range = ranged ? byteRange(request.headers.range) : undefined;
      const result = await access.trigger(resolution, kind, range);
      if (result.type === 'content' && kind === 'markdown') {
        reply.header('Accept-Ranges', 'bytes');
        if (result.etag !== null) reply.header('ETag', result.etag);
        if (result.range === 'unsatisfiable') {
          reply.header('Content-Range', `bytes */${result.size}`);
          return reply.code(416).send({ detail: `range not satisfiable: the markdown has ${result.size} bytes` });
        }
        if (result.range !== undefined) {
          const { start, end } = result.range;
          const body = await markdownBody(result.body, end - start + 1, result.key);
          reply.header('Content-Type', result.contentType).header('Content-Length', String(end - start + 1));
          reply.header('Content-Range', `bytes ${start}-${end}/${result.size}`);
          return reply.code(206).send(body);
        }
        const body = await markdownBody(result.body, result.size, result.key);
        reply.header('Content-Type', result.contentType).header('Content-Length', String(result.size));
        return reply.code(200).send(body);
      }
      if (result.type === 'content') {
        reply.header('Content-Type', result.contentType).header('Content-Length', String(result.size));
        if (kind === 'pdf') reply.header('Content-Disposition', `inline; filename="${resolution.id.stem}.pdf"`);
        return reply.code(200).send(result.body);
      }
      if (result.outcome === 'accepted') reply.header('Operation-Location', statusPath(resolution.id, kind));
      if (result.retryAfterSeconds !== null) reply.header('Retry-After', String(result.retryAfterSeconds));
      return reply.code(STATUS_OF[result.outcome]).send(result.snapshot);
    },
  });
}
