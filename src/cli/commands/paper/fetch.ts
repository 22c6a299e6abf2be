import {
  FETCH_MAX_ITEMS,
  type FetchAnswer,
  type FetchRequest,
  type FetchResult,
} from '../../../shared/api/registry.js';
import { Option } from 'commander';
import { CliExit, EXIT, HttpStatusError } from '../../errors.js';
import { oneLine } from '../../text.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { batches, listCommand, printJson } from './registry.js';

/** The default idle timeout of one fetch request. */
const FETCH_TIMEOUT_SECONDS = 600;

const FETCH = listCommand({
  name: 'fetch',
  description: 'have the server fetch papers from arXiv and convert them to markdown (or fetch the PDF only)',
  noun: ['item', 'items'],
  items: ['[items...]', 'arXiv ids, DOIs, arxiv.org abs/pdf URLs or doi.org URLs'],
  options: [new Option('--pdf', 'fetch the PDF only (no conversion to markdown)')],
  // A slice of 50 versionless ids may wait ~150 s for arXiv version lookups at the default rate (CONTRACT §11.5).
  timeoutSeconds: FETCH_TIMEOUT_SECONDS,
});

/**
 * `pks paper fetch <id-or-url>… [--file F] [--pdf]`: has the server fetch (and convert) papers (CONTRACT §16.8,
 * `POST /api/papers/fetch`). More items than one request takes are sent in slices of `FETCH_MAX_ITEMS`; each
 * slice's lines are printed as its answer arrives. Exit 0 only when at least one item was enqueued.
 */
export const registerPaperFetch: RegisterCommand = (parent, host) => {
  FETCH.add(parent).action(
    defineAction(
      host,
      (args, o) => {
        const kind: NonNullable<FetchRequest['kind']> = o['pdf'] === true ? 'pdf' : 'markdown';
        return { ...FETCH.input(args, o), kind };
      },
      async (ctx, input) => {
        const items = await FETCH.items(ctx, input);
        const api = ctx.api({ timeoutMs: input.timeoutMs });
        const all: FetchAnswer = { results: [], enqueued: 0 };
        for (const slice of batches(items, FETCH_MAX_ITEMS)) {
          const request: FetchRequest = { items: slice, kind: input.kind };
          const { body } = await api
            .json<FetchAnswer>('POST', '/api/papers/fetch', { ok: [200], body: request })
            .catch(explainNotFound);
          all.results.push(...body.results);
          all.enqueued += body.enqueued;
          if (!input.json) ctx.io.stdout(body.results.map((r) => `${resultLine(r)}\n`).join(''));
        }
        const enqueued = all.results.filter((r) => r.error === null).length;
        if (input.json) printJson(ctx.io, all);
        else ctx.io.stdout(`enqueued ${enqueued}/${items.length}\n`);
        return enqueued > 0 ? EXIT.ok : EXIT.failure;
      },
    ),
  );
};

/** `enqueued <input> -> <resolved> (<state>)` or `failed <input>: <error>`. */
export function resultLine(r: FetchResult): string {
  if (r.error !== null) return `failed ${r.input}: ${oneLine(r.error)}`;
  return `enqueued ${r.input} -> ${r.resolved_id ?? '?'} (${r.state ?? 'unknown'})`;
}

/** The route answers 404 when paper access is off (CONTRACT §18.2): say so rather than `not found`. */
function explainNotFound(err: unknown): never {
  if (err instanceof HttpStatusError && err.status === 404) {
    throw new CliExit(
      EXIT.failure,
      `Request failed: HTTP 404 ${err.reason}: this server does not fetch papers (paper access is off)`,
    );
  }
  throw err;
}
