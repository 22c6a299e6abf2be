import { cacheDir } from '../../config/paths.js';
import { fit } from '../../text.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { parseIntOption } from '../options.js';
import { wikiRoot } from './checkout.js';
import { searchCheckout } from './search-cache.js';

const SNIPPET_WIDTH = 80;

/** The library's snippet (≤ 160 chars) cut to 80 characters. */
export const shortSnippet = (snippet: string): string => fit(snippet, SNIPPET_WIDTH, '...');

/**
 * `pks wiki search <q>`: ranked exactly like `GET /api/search` (same tokenizer and ranking), over term vectors
 * cached per page in the user's cache directory.
 */
export const registerWikiSearch: RegisterCommand = (parent, host) => {
  parent
    .command('search')
    .description('search the pages (BM25, the ranking of GET /api/search)')
    .argument('<query>', 'search terms')
    .option('--limit <n>', 'maximum results (1..100)', '10')
    .option('--include-sources', 'include source pages')
    .option('--json', 'print the GET /api/search response body')
    .action(
      defineAction(
        host,
        ([q], o) => ({
          q: q!,
          limit: parseIntOption('--limit', o['limit'] as string),
          includeSources: o['includeSources'] === true,
          json: o['json'] === true,
        }),
        async (ctx, input) => {
          const result = await searchCheckout(wikiRoot(ctx), cacheDir(), {
            q: input.q,
            limit: input.limit,
            include_sources: input.includeSources,
          });
          if (input.json) {
            ctx.io.stdout(`${JSON.stringify(result, null, 2)}\n`);
            return;
          }
          if (result.results.length === 0) {
            ctx.io.stdout(`No results for '${input.q}'\n`);
            return;
          }
          const shown = result.results.length < result.total ? ` (showing ${result.results.length})` : '';
          const lines = [`Found ${result.total} results for '${input.q}'${shown}:`];
          for (const hit of result.results) {
            lines.push(`  [${hit.type}] ${hit.id} (score: ${hit.score.toFixed(1)})`, `      ${hit.title}`);
            if (hit.snippet !== '') lines.push(`      ${shortSnippet(hit.snippet)}`);
          }
          ctx.io.stdout(lines.join('\n') + '\n');
        },
      ),
    );
};
