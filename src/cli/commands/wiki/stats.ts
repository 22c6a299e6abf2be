import { wikiStats } from '../../../wiki/index.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { loadSnapshot, wikiRoot } from './checkout.js';

/** `pks wiki stats`: the counts of `GET /api/stats` for the local checkout. */
export const registerWikiStats: RegisterCommand = (parent, host) => {
  parent
    .command('stats')
    .description('page counts by type, status and category; graph-sync counts')
    .action(
      defineAction(
        host,
        () => null,
        async (ctx) => {
          const stats = wikiStats(await loadSnapshot(ctx));
          const section = (title: string, counts: Record<string, number>) => [
            `${title}:`,
            ...Object.entries(counts).map(([name, n]) => `  ${name}: ${n}`),
          ];
          ctx.io.stdout(
            [
              `Wiki: ${wikiRoot(ctx)}`,
              `Total pages: ${stats.total_pages} (${stats.entries} entries, ${stats.sources} sources)`,
              ...section('By type', stats.by_type),
              ...section('By status', stats.by_status),
              ...section('By category', stats.by_category),
              `Graph: ${stats.synced_to_graph} synced, ${stats.needs_sync} need sync`,
              `Invalid pages: ${stats.invalid_pages}`,
            ].join('\n') + '\n',
          );
        },
      ),
    );
};
