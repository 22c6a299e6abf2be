/**
 * Shared pieces of the registry commands (CONTRACT §16.8): the `--json` and `--request-timeout` options, input
 * lists from the command line and a file, batching to the server's per-request limits, and small formatters.
 */
import { readFile } from 'node:fs/promises';
import type { Command, Option } from 'commander';
import type { CliContext, CliIO } from '../../context.js';
import { CliExit, EXIT, UsageError } from '../../errors.js';
import { readAll } from '../../input.js';
import { stderrProgress } from '../../progress/line.js';
import { jsonOption, requestTimeoutOption } from '../common-options.js';
import { defineAction, type CommandHost } from '../host.js';
import { requestTimeoutMs } from '../options.js';
import { DefaultsNotes, encodePaperId } from './access.js';

/**
 * Adds `--json` and `--request-timeout` (the options every registry command shares). `timeoutSeconds` is the
 * default idle timeout: `fetch` takes longer, as the server answers a slice only once every item is resolved.
 */
export function addRegistryOptions(command: Command, json = true, timeoutSeconds = 120): Command {
  if (json) command.addOption(jsonOption());
  return command.addOption(requestTimeoutOption(timeoutSeconds));
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
 * A list command (`pks paper fetch`, `lookup`): it takes items on the command line and from `--file`, and the
 * registry options.
 */
export interface ListSpec {
  readonly name: string;
  readonly description: string;
  /** The items in the singular and plural, for help and messages. */
  readonly noun: readonly [one: string, many: string];
  /** The positional argument (`[items...]`) and what it takes. */
  readonly items: readonly [argument: string, description: string];
  /** The command's own options, listed after `--file`. */
  readonly options?: readonly Option[];
  /** The default of `--request-timeout` (s), as `addRegistryOptions` takes it. */
  readonly timeoutSeconds?: number;
}

/** The items of a list command's command line and its registry options, checked before any I/O. */
export interface ListInput {
  readonly args: readonly string[];
  readonly file: string | undefined;
  readonly json: boolean;
  readonly timeoutMs: number;
}

export interface ListCommand {
  /**
   * Adds `pks paper <name> [items...] [--file <file>]`, the spec's options, `--json` and `--request-timeout` to
   * `parent` (its action still to add).
   */
  add(parent: Command): Command;
  /** The command line's items (at least one, or `--file`: a usage error otherwise) and registry options. */
  input(args: readonly string[], o: Record<string, unknown>): ListInput;
  /**
   * The items named on the command line followed by those of the file (`-` = stdin): one per line, trimmed, blank
   * lines and `#` comments skipped. A file that cannot be read ends the command with exit 1; none at all is a
   * usage error.
   */
  items(ctx: CliContext, input: ListInput): Promise<string[]>;
}

export function listCommand(spec: ListSpec): ListCommand {
  const [one, many] = spec.noun;
  return {
    add: (parent) => {
      const command = parent
        .command(spec.name)
        .description(spec.description)
        .argument(...spec.items)
        .option('--file <file>', `also the ${many} in FILE, one per line (- = stdin; # starts a comment)`);
      for (const option of spec.options ?? []) command.addOption(option);
      return addRegistryOptions(command, true, spec.timeoutSeconds);
    },
    input: (args, o) => {
      const file = o['file'] as string | undefined;
      if (args.length === 0 && file === undefined) throw new UsageError(`give at least one ${one} or --file`);
      return { args, file, ...registryOptions(o) };
    },
    items: async (ctx, { args, file }) => {
      const items = [...args, ...(file === undefined ? [] : await fileLines(ctx, file))]
        .map((item) => item.trim())
        .filter((item) => item !== '');
      if (items.length === 0) throw new UsageError(`no ${many} ${file === undefined ? 'given' : `in ${file}`}`);
      return items;
    },
  };
}

/** The lines of `file` (`-` = stdin) that are not blank or `#` comments; unreadable → exit 1. */
async function fileLines(ctx: CliContext, file: string): Promise<string[]> {
  let text: string;
  try {
    text = file === '-' ? await readAll(ctx.io.stdin) : await readFile(file, 'utf8');
  } catch (err) {
    throw new CliExit(EXIT.failure, `Error: cannot read ${file}: ${(err as Error).message}`);
  }
  return text.split(/\r?\n/).filter((line) => !line.trim().startsWith('#'));
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
