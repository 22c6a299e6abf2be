import type { PaperList } from '../../../shared/api/registry.js';
import type { CliIO } from '../../context.js';
import { EXIT } from '../../errors.js';
import { fit, oneLine } from '../../text.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { parseChoice, parseIntOption } from '../options.js';
import { InvalidInputError } from '../../../shared/domain-errors.js';
import { addRegistryOptions, printJson, registryOptions, yesNo } from './registry.js';

const SORTS = ['updated_at', 'id'] as const;
const BOOLEANS = ['true', 'false'] as const;
/** The server clamps `per_page` to 1..100 (CONTRACT §18.2); the client refuses what it would change. */
const MAX_PER_PAGE = 100;

export interface PaperListInput {
  readonly q: string | undefined;
  readonly hasMd: 'true' | 'false' | undefined;
  readonly hasPdf: 'true' | 'false' | undefined;
  readonly sort: (typeof SORTS)[number];
  readonly page: number;
  readonly perPage: number;
  readonly json: boolean;
  readonly timeoutMs: number;
}

/** `pks paper list`: one page of the stored papers (CONTRACT §16.8, `GET /api/papers`). */
export const registerPaperList: RegisterCommand = (parent, host) => {
  addRegistryOptions(
    parent
      .command('list')
      .description('list the papers the server stores, one page at a time')
      .option('-q, --query <text>', 'only papers whose id or title contains TEXT (case-insensitive)')
      .option('--has-md <bool>', 'only papers with (true) or without (false) markdown')
      .option('--has-pdf <bool>', 'only papers with (true) or without (false) a PDF')
      .option('--sort <key>', 'updated_at (newest first) or id', 'updated_at')
      .option('--page <n>', 'page number, from 1', '1')
      .option('--per-page <n>', `papers per page, 1..${MAX_PER_PAGE}`, '20'),
  ).action(
    defineAction(
      host,
      (_args, o): PaperListInput => ({
        q: o['query'] as string | undefined,
        hasMd: optionalChoice('--has-md', o['hasMd']),
        hasPdf: optionalChoice('--has-pdf', o['hasPdf']),
        sort: parseChoice('--sort', o['sort'] as string, SORTS),
        page: intInRange('--page', o['page'] as string, 1),
        perPage: intInRange('--per-page', o['perPage'] as string, 1, MAX_PER_PAGE),
        ...registryOptions(o),
      }),
      async (ctx, input) => {
        const { body } = await ctx.api({ timeoutMs: input.timeoutMs }).json<PaperList>('GET', '/api/papers', {
          ok: [200],
          query: {
            q: input.q,
            has_md: input.hasMd,
            has_pdf: input.hasPdf,
            sort: input.sort,
            page: String(input.page),
            per_page: String(input.perPage),
          },
        });
        if (input.json) printJson(ctx.io, body);
        else ctx.io.stdout(renderList(body, titleWidth(ctx.io)));
        return EXIT.ok;
      },
    ),
  );
};

/** `<total> paper(s) (page P of Q)`, then `<id>  md:yes|no  pdf:yes|no  <title>` per item. */
export function renderList(list: PaperList, width: number | null): string {
  const pages = Math.max(1, Math.ceil(list.total / Math.max(1, list.per_page)));
  const lines = [`${list.total} paper(s) (page ${list.page} of ${pages})`];
  for (const item of list.items) {
    const head = `${item.preprint_id}  md:${yesNo(item.has_md)}  pdf:${yesNo(item.has_pdf)}  `;
    const title = oneLine(item.title ?? '(no title)');
    lines.push(head + (width === null ? title : fit(title, Math.max(MIN_TITLE, width - head.length))));
  }
  return `${lines.join('\n')}\n`;
}

/** Titles are cut to the terminal's width; piped or redirected output keeps them whole. */
const titleWidth = (io: CliIO): number | null => (io.stdoutIsTTY ? io.columns() - 1 : null);
const MIN_TITLE = 10;

function optionalChoice(flag: string, value: unknown): 'true' | 'false' | undefined {
  return value === undefined ? undefined : parseChoice(flag, String(value), BOOLEANS);
}

/** An integer in `min..max` (`max` absent: no upper bound), else `Invalid input` (exit 2). */
function intInRange(flag: string, text: string, min: number, max?: number): number {
  const n = parseIntOption(flag, text);
  if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) {
    throw new InvalidInputError(
      max === undefined
        ? `${flag} must be an integer of at least ${min}, got '${text}'`
        : `${flag} must be in ${min}..${max}, got '${text}'`,
    );
  }
  return n;
}
