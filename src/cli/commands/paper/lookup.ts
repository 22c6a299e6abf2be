import { BATCH_MAX_IDS, type Lookup, type LookupItem } from '../../../shared/api/registry.js';
import { InvalidInputError } from '../../../shared/domain-errors.js';
import { EXIT } from '../../errors.js';
import { oneLine } from '../../text.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { batchable, distinct, inSlices, listCommand, printJson } from './registry.js';

/** `<namespace>:<value>`: the server echoes an unknown namespace as unresolved, a ref without one is a typo. */
const REF = /^[A-Za-z][\w.-]*:\S/;

const LOOKUP = listCommand({
  name: 'lookup',
  description: 'look up papers by reference: is each hosted, is its markdown ready, what is it',
  noun: ['reference', 'references'],
  items: ['[refs...]', 'references such as arxiv:2501.00010, doi:10.1103/PhysRevLett.1, openalex:W123'],
});

/**
 * `pks paper lookup <kind:id>… [--file F]`: which papers the server hosts (CONTRACT §16.8,
 * `GET /api/papers/lookup`). More refs than one request takes are asked in slices of `BATCH_MAX_IDS`.
 */
export const registerPaperLookup: RegisterCommand = (parent, host) => {
  LOOKUP.add(parent).action(
    defineAction(
      host,
      (args, o) => {
        args.forEach(checkRef);
        return LOOKUP.input(args, o);
      },
      async (ctx, input) => {
        const refs = distinct(await LOOKUP.items(ctx, input));
        refs.forEach(checkRef);
        const api = ctx.api({ timeoutMs: input.timeoutMs });
        const answers = await inSlices(ctx.io, 'looking up', refs, BATCH_MAX_IDS, (slice) =>
          api.json<Lookup>('GET', '/api/papers/lookup', { ok: [200], query: { ids: slice.join(',') } }),
        );
        const answer: Lookup = {
          results: answers.flatMap((a) => a.body.results),
          corpus_available: answers.at(-1)!.body.corpus_available,
        };
        if (input.json) printJson(ctx.io, answer);
        else ctx.io.stdout(answer.results.map((r) => `${lookupLine(r)}\n`).join(''));
        return EXIT.ok;
      },
    ),
  );
};

function checkRef(ref: string): void {
  batchable(ref);
  if (!REF.test(ref.trim())) {
    throw new InvalidInputError(`'${ref}' is not a <kind>:<id> reference (arxiv:…, doi:…, openalex:…)`);
  }
}

/** `<ref>: hosted|not hosted[, markdown ready] (<year>) — <title>` or `<ref>: unresolved`. */
export function lookupLine(r: LookupItem): string {
  if (!r.resolved) return `${r.ref}: unresolved`;
  let line = `${r.ref}: ${r.hosted ? 'hosted' : 'not hosted'}${r.has_md ? ', markdown ready' : ''}`;
  if (r.year !== undefined) line += ` (${r.year})`;
  if (r.title !== undefined && r.title !== '') line += ` — ${oneLine(r.title)}`;
  return line;
}
