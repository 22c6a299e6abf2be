import { listPages } from '../../../wiki/index.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { fit } from '../../text.js';
import { loadSnapshot } from './checkout.js';

const COLUMNS = [
  ['ID', 30],
  ['Type', 12],
  ['Status', 10],
  ['Title', 40],
] as const;

/** Cells padded to their column; the id is never cut (it is what `wiki show` takes), other cells are. */
const row = (cells: readonly string[]) =>
  COLUMNS.map(([, width], i) => (i === 0 ? (cells[i] ?? '') : fit(cells[i] ?? '', width)).padEnd(width))
    .join(' ')
    .trimEnd();

/** `pks wiki list [--type T] [--tags CSV] [--status S]`: the pages of the checkout (sources only with --type source). */
export const registerWikiList: RegisterCommand = (parent, host) => {
  parent
    .command('list')
    .description('list pages (source pages only with --type source)')
    .option('--type <type>', 'only this type (concept, entity, source, comparison)')
    .option('--tags <csv>', 'only pages with any of these tags')
    .option('--status <status>', 'only this status (draft, review, published)')
    .action(
      defineAction(
        host,
        (_args, o) => ({
          page_type: o['type'] as string | undefined,
          tags: o['tags'] as string | undefined,
          status: o['status'] as string | undefined,
        }),
        async (ctx, query) => {
          const { pages } = listPages(await loadSnapshot(ctx), query);
          if (pages.length === 0) {
            ctx.io.stdout('No pages found.\n');
            return;
          }
          const lines = [
            `Found ${pages.length} pages:`,
            row(COLUMNS.map(([name]) => name)),
            row(COLUMNS.map(([, width]) => '-'.repeat(width))),
            ...pages.map((p) => row([p.id, p.type, p.status, p.title])),
          ];
          ctx.io.stdout(lines.join('\n') + '\n');
        },
      ),
    );
};
