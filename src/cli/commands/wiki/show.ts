import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { getPageDetail } from '../../../wiki/index.js';
import { CliExit, EXIT } from '../../errors.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { loadSnapshot, wikiRoot } from './checkout.js';

/** `pks wiki show <id> [--raw]`: a header block then the body, or the file as written. */
export const registerWikiShow: RegisterCommand = (parent, host) => {
  parent
    .command('show')
    .description('show a page')
    .argument('<id>', 'page id')
    .option('--raw', 'print the file as written (frontmatter included)')
    .action(
      defineAction(
        host,
        ([id], o) => ({ id: id!, raw: o['raw'] === true }),
        async (ctx, { id, raw }) => {
          const snapshot = await loadSnapshot(ctx);
          const page = snapshot.byId.get(id);
          const detail = getPageDetail(snapshot, id);
          if (!page || !detail) throw new CliExit(EXIT.failure, `Page not found: ${id}`);
          if (raw) {
            ctx.io.stdout(await readFile(path.join(wikiRoot(ctx), page.path), 'utf8'));
            return;
          }
          const field = (label: string, value: string | null) => `${`${label}:`.padEnd(10)}${value || '-'}`;
          ctx.io.stdout(
            [
              field('ID', page.id),
              field('Title', page.title),
              field('Type', page.type),
              field('Category', page.category),
              field('Status', page.status),
              field('Tags', page.tags.join(', ')),
              field('Created', page.created_at),
              field('Updated', page.updated_at),
              '',
              page.body,
            ].join('\n') + '\n',
          );
        },
      ),
    );
};
