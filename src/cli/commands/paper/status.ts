import { BATCH_MAX_IDS, type BatchStatus, type BatchStatusItem } from '../../../shared/api/registry.js';
import type { CliContext } from '../../context.js';
import { EXIT, UsageError } from '../../errors.js';
import { jsonObject } from '../../http/json-body.js';
import { jsonOption, quietNotesOption, requestTimeoutOption } from '../common-options.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { parseChoice, requestTimeoutMs } from '../options.js';
import { ASSET_KINDS, DefaultsNotes, encodePaperId, renderHttpError, type AssetKind } from './access.js';
import { batchable, distinct, inSlices, printJson, yesNo } from './registry.js';

interface SingleInput {
  readonly ids: readonly [string];
  readonly kind: AssetKind;
  readonly quietNotes: boolean;
  readonly timeoutMs: number;
}

interface BatchInput {
  readonly ids: readonly string[];
  readonly json: boolean;
  readonly timeoutMs: number;
}

/**
 * `pks paper status <id_or_doi> [--kind markdown|pdf]`: the job snapshot, without side effects (CONTRACT §16.3);
 * `pks paper status <id> <id>…`: the batch probe, one line per id (§16.8).
 */
export const registerPaperStatus: RegisterCommand = (parent, host) => {
  parent
    .command('status')
    .description('one id: print its job snapshot; two or more: one status line per id (never starts a job)')
    .argument('<id_or_doi...>', 'arXiv ids (with or without version), bare old-style numbers, or DOIs')
    .option('--kind <kind>', 'one id: markdown or pdf (default: markdown)')
    .addOption(quietNotesOption('one id: '))
    .addOption(jsonOption('two or more ids: '))
    .addOption(requestTimeoutOption())
    .action(
      defineAction(
        host,
        (args, o): SingleInput | BatchInput => {
          const ids = args.map((id) => id.trim());
          if (ids.some((id) => id === '')) throw new UsageError('empty paper id');
          const timeoutMs = requestTimeoutMs(o['requestTimeout']);
          if (ids.length === 1) {
            return {
              ids: [ids[0]!],
              kind: parseChoice('--kind', (o['kind'] as string | undefined) ?? 'markdown', ASSET_KINDS),
              quietNotes: o['quietNotes'] === true,
              timeoutMs,
            };
          }
          if (o['kind'] !== undefined) {
            throw new UsageError('--kind takes one id; the status of several ids covers markdown and PDF');
          }
          return { ids: distinct(ids.map(batchable)), json: o['json'] === true, timeoutMs };
        },
        (ctx, input) => ('kind' in input ? singleStatus(ctx, input) : batchStatus(ctx, input)),
      ),
    );
};

async function singleStatus(ctx: CliContext, input: SingleInput): Promise<number> {
  const [id] = input.ids;
  const api = ctx.api({ timeoutMs: input.timeoutMs });
  const res = await api.request('GET', `/api/papers/${encodePaperId(id)}/${input.kind}/status`, { kind: 'read' });
  new DefaultsNotes(ctx.io.stderr, input.quietNotes, id).observe(res);
  const text = await res.text();
  if (res.status >= 200 && res.status < 300) {
    printJson(ctx.io, jsonObject(res, text));
    return EXIT.ok;
  }
  ctx.io.stderr(renderHttpError(`${input.kind} status failed`, res.status, res.statusText, text));
  return EXIT.failure;
}

/** More ids than one request takes are asked in slices of `BATCH_MAX_IDS`; `--json` prints the joined answer. */
async function batchStatus(ctx: CliContext, input: BatchInput): Promise<number> {
  const api = ctx.api({ timeoutMs: input.timeoutMs });
  const answers = await inSlices(ctx.io, 'probing', input.ids, BATCH_MAX_IDS, (slice) =>
    api.json<BatchStatus>('GET', '/api/papers/status/batch', { ok: [200], query: { ids: slice.join(',') } }),
  );
  const results: BatchStatusItem[] = answers.flatMap((answer) => answer.body.results);
  const body: BatchStatus = { results };
  if (input.json) printJson(ctx.io, body);
  else ctx.io.stdout(results.map((r) => `${batchLine(r)}\n`).join(''));
  return EXIT.ok;
}

/** `<requested> → <resolved>  md:yes|no pdf:yes|no <state> <error>` (`-` for an id that did not resolve). */
export function batchLine(r: BatchStatusItem): string {
  const tail = [r.state, r.error].filter((part) => part !== '').join(' ');
  return `${r.requested_id} → ${r.resolved_id || '-'}  md:${yesNo(r.md_ready)} pdf:${yesNo(r.pdf_ready)} ${tail}`.trimEnd();
}
