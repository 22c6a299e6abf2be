import { InvalidInputError } from '../../../shared/domain-errors.js';
import { localDate, paperPageIdFor, parsePreprintId } from '../../../wiki/index.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { wikiRoot } from './checkout.js';
import { pageText, writePageFile } from './page-file.js';

/** `pks wiki ingest <preprint_id>` (legacy): writes a source-page stub; no network. */
export const registerWikiIngest: RegisterCommand = (parent, host) => {
  parent
    .command('ingest')
    .description("legacy: write a source-page stub for a paper (no network; see 'pks ingest')")
    .argument('<preprint_id>', 'arXiv id, e.g. 2501.00010v1 or quant-ph/9508027')
    .option('--title <title>', 'paper title')
    .option('--doi <doi>', 'DOI of the paper (stored with doi_source: manual)')
    .action(
      defineAction(
        host,
        ([raw], o) => {
          const parsed = parsePreprintId(raw!.trim());
          if (!parsed) throw new InvalidInputError(`not an arXiv id: '${raw}'`);
          const doi = (o['doi'] as string | undefined)?.trim();
          return { id: parsed.id, title: (o['title'] as string | undefined)?.trim() || undefined, doi };
        },
        async (ctx, { id, title, doi }) => {
          ctx.io.stderr(
            "warning: 'pks wiki ingest' is deprecated: it only writes a source-page stub; " +
              "'pks ingest <id>' fetches and parses the paper on the server\n",
          );
          const pageId = paperPageIdFor(id);
          const frontmatter: Record<string, unknown> = {
            id: pageId,
            title: title ?? `arXiv ${id}`,
            type: 'source',
            category: 'paper',
            tags: [],
            created_at: localDate(ctx.now()),
            status: 'draft',
            related: [],
            external_links: [
              { label: 'arXiv abstract', url: `https://arxiv.org/abs/${id}`, kind: 'abstract' },
              { label: 'arXiv PDF', url: `https://arxiv.org/pdf/${id}`, kind: 'pdf' },
            ],
          };
          if (doi) Object.assign(frontmatter, { doi, doi_source: 'manual' });
          const body = `# ${title ?? `arXiv ${id}`}\n\n## Summary\n\nSource stub for arXiv ${id}.`;
          const target = await writePageFile(
            wikiRoot(ctx),
            `sources/papers/${pageId}.md`,
            pageText(frontmatter, body),
            false,
          );
          ctx.io.stdout(`Created page: ${target}\n`);
        },
      ),
    );
};
