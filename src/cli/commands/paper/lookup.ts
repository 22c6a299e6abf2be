import { BATCH_MAX_IDS, type Lookup, type LookupItem } from '../../../shared/api/registry.js';
import { InvalidInputError } from '../../../shared/domain-errors.js';
import { EXIT, UsageError } from '../../errors.js';
import { oneLine } from '../../text.js';
import { defineAction, type RegisterCommand } from '../host.js';
import {
  addRegistryOptions,
  batchable,
  distinct,
  inSlices,
  itemsWithFile,
  printJson,
  registryOptions,
} from './registry.js';

/** `<namespace>:<value>`: the server echoes an unknown namespace as unresolved, a ref without one is a typo. */
const REF = /^[A-Za-z][\w.-]*:\S/;

/**
 * `pks paper lookup <kind:id>… [--file F]`: which papers the server hosts (CONTRACT §16.8,
 * `GET /api/papers/lookup`). More refs than one request takes are asked in slices of `BATCH_MAX_IDS`.
 */
export const registerPaperLookup: RegisterCommand = (parent, host) => {
  addRegistryOptions(
    parent
      .command('lookup')
      .description('look up papers by reference: is each hosted, is its markdown ready, what is it')
      .argument('[refs...]', 'references such as arxiv:2501.00010, doi:10.1103/PhysRevLett.1, openalex:W123')
      .option('--file <file>', 'also the references in FILE, one per line (- = stdin; # starts a comment)'),
  ).action(
    defineAction(
      host,
      (args, o) => {
        const file = o['file'] as string | undefined;
        if (args.length === 0 && file === undefined) throw new UsageError('give at least one reference or --file');
        args.forEach(checkRef);
        return { args, file, ...registryOptions(o) };
      },
      async (ctx, input) => {
        const refs = distinct(await itemsWithFile(ctx, input.args, input.file));
        refs.forEach(checkRef);
        if (refs.length === 0) throw new UsageError(`no references in ${input.file}`);
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
