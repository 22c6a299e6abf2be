import { backlinksOf, linksOf } from '../../../wiki/index.js';
import { CliExit, EXIT } from '../../errors.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { loadSnapshot } from './checkout.js';

/** `pks wiki links <id> [--backlinks]`: existing pages the page links to (or that link to it). */
export const registerWikiLinks: RegisterCommand = (parent, host) => {
  parent
    .command('links')
    .description('list the pages a page links to (or, with --backlinks, the pages linking to it)')
    .argument('<id>', 'page id')
    .option('--backlinks', 'pages linking to this page')
    .action(
      defineAction(
        host,
        ([id], o) => ({ id: id!, backlinks: o['backlinks'] === true }),
        async (ctx, { id, backlinks }) => {
          const snapshot = await loadSnapshot(ctx);
          const page = snapshot.byId.get(id);
          if (!page) throw new CliExit(EXIT.failure, `Page not found: ${id}`);
          const ids = backlinks ? backlinksOf(snapshot, id) : linksOf(snapshot, id);
          const targets = ids.map((t) => snapshot.byId.get(t)).filter((p) => p !== undefined);
          const lines = [`${backlinks ? 'Backlinks to' : 'Links from'} ${page.id} (${page.title}):`];
          if (targets.length === 0) lines.push('  No links found.');
          for (const target of targets) lines.push(`  - [${target.type}] ${target.id}: ${target.title}`);
          ctx.io.stdout(lines.join('\n') + '\n');
        },
      ),
    );
};
