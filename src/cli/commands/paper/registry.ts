/**
 * Shared pieces of the registry commands (CONTRACT §16.8): the `--json` and `--request-timeout` options, input
 * lists from the command line and a file, batching to the server's per-request limits, and small formatters.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { CliContext, CliIO } from '../../context.js';
import { CliExit, EXIT, UsageError } from '../../errors.js';
import { readAll } from '../../input.js';
import { stderrProgress } from '../../progress/line.js';
import { defineAction, type CommandHost } from '../host.js';
import { requestTimeoutMs } from '../options.js';
import { DefaultsNotes, encodePaperId } from './access.js';

/**
 * Adds `--json` and `--request-timeout` (the options every registry command shares). `timeoutSeconds` is the
 * default idle timeout: `fetch` takes longer, as the server answers a slice only once every item is resolved.
 */
export function addRegistryOptions(command: Command, json = true, timeoutSeconds = 120): Command {
  if (json) command.option('--json', 'print the server answer as JSON');
  return command.option('--request-timeout <seconds>', 'idle timeout per request', String(timeoutSeconds));
}

/** The shared options, validated. */
export function registryOptions(o: Record<string, unknown>): { json: boolean; timeoutMs: number } {
  return { json: o['json'] === true, timeoutMs: requestTimeoutMs(o['requestTimeout']) };
}

/** `/api/papers/<id>` with the id encoded as `paper get` does (CONTRACT §16.6). */
export const paperPath = (id: string): string => `/api/papers/${encodePaperId(id)}`;

/** A paper id argument: trimmed, not empty (usage error before any I/O). */
export function requireId(raw: string | undefined, what = 'paper id'): string {
  const id = (raw ?? '').trim();
  if (id === '') throw new UsageError(`empty ${what}`);
  return id;
}

/** The body as JSON (indent 2) on stdout. */
export function printJson(io: CliIO, body: unknown): void {
  io.stdout(`${JSON.stringify(body, null, 2)}\n`);
}

/** What a one-paper read command (`pks paper show`, `pks paper figures`) asks and how it shows the answer. */
export interface PaperReadCommand<T> {
  name: string;
  description: string;
  /** The request path for the (validated) paper id. */
  path: (id: string) => string;
  /** The answer for a terminal (without `--json`). */
  render: (body: T) => string;
}

/**
 * Registers `pks paper <name> <id>`: one `GET` of the paper's path, defaults notes on stderr, then the body as
 * JSON (`--json`) or rendered.
 */
export function registerPaperRead<T extends object>(
  parent: Command,
  host: CommandHost,
  spec: PaperReadCommand<T>,
): void {
  addRegistryOptions(
    parent
      .command(spec.name)
      .description(spec.description)
      .argument('<id>', 'arXiv id (with or without version), bare old-style number, or DOI'),
  ).action(
    defineAction(
      host,
      ([id], o) => ({ id: requireId(id), ...registryOptions(o) }),
      async (ctx, input) => {
        const answer = await ctx.api({ timeoutMs: input.timeoutMs }).json<T>('GET', spec.path(input.id), { ok: [200] });
        new DefaultsNotes(ctx.io.stderr, false, input.id).observe(answer);
        if (input.json) printJson(ctx.io, answer.body);
        else ctx.io.stdout(spec.render(answer.body));
        return EXIT.ok;
      },
    ),
  );
}

export const yesNo = (flag: boolean): string => (flag ? 'yes' : 'no');

/**
 * The items named on the command line followed by those of `file` (`-` = stdin): one per line, trimmed, blank
 * lines and `#` comments skipped. A file that cannot be read ends the command with exit 1.
 */
export async function itemsWithFile(
  ctx: CliContext,
  args: readonly string[],
  file: string | undefined,
): Promise<string[]> {
  const items = args.map((a) => a.trim()).filter((a) => a !== '');
  if (file === undefined) return items;
  let text: string;
  try {
    text = file === '-' ? await readAll(ctx.io.stdin) : await readFile(file, 'utf8');
  } catch (err) {
    throw new CliExit(EXIT.failure, `Error: cannot read ${file}: ${(err as Error).message}`);
  }
  const fromFile = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  return [...items, ...fromFile];
}

/** An item of a comma-separated query list (`ids=a,b`): one holding a comma cannot be sent (usage error). */
export function batchable(item: string): string {
  if (item.includes(',')) throw new UsageError(`'${item}' holds a comma, which separates the ids of one request`);
  return item;
}

/** Trimmed items without repeats (first seen kept), as the server counts them. */
export const distinct = (items: readonly string[]): string[] => [...new Set(items.map((i) => i.trim()))];

/**
 * `ask` for each slice of at most `size` items, in order. With more than one slice a live line on a terminal's
 * stderr counts the items asked (`looking up 400/450`); it ends on the total, or where a failure stopped it.
 */
export async function inSlices<T, R>(
  io: CliIO,
  label: string,
  items: readonly T[],
  size: number,
  ask: (slice: T[]) => Promise<R>,
): Promise<R[]> {
  const slices = batches(items, size);
  const progress = stderrProgress(io, slices.length < 2);
  const answers: R[] = [];
  let done = 0;
  try {
    for (const slice of slices) {
      progress.live(`${label} ${done}/${items.length}`);
      answers.push(await ask(slice));
      done += slice.length;
    }
    progress.live(`${label} ${done}/${items.length}`);
  } finally {
    progress.end();
  }
  return answers;
}

/** `items` in consecutive slices of at most `size`. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
