import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../../../shared/domain-errors.js';
import { isKebabCase, isSafePageId, localDate, PAGE_STATUSES, PAGE_TYPES } from '../../../wiki/index.js';
import { readAll } from '../../input.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { csv, parseChoice } from '../options.js';
import { wikiRoot } from './checkout.js';
import { pageText, writePageFile } from './page-file.js';

/** The default directory of a new page (CONTRACT §16.3 `wiki create`). */
export function defaultSubdir(type: string, category: string | undefined): string {
  if (type === 'concept') return 'concepts';
  if (type === 'source') return 'sources/papers';
  if (type === 'comparison') return 'comparisons';
  if (category === 'algorithm') return 'entities/algorithms';
  if (category === 'primitive') return 'entities/primitives';
  if (category === 'person') return 'entities/people';
  return 'entities';
}

/** `pks wiki create <id> --title T …`: a new page file with frontmatter; the body from --content, -f or stdin. */
export const registerWikiCreate: RegisterCommand = (parent, host) => {
  parent
    .command('create')
    .description('create a page file (body from --content, --file or stdin)')
    .argument('<id>', 'page id, kebab-case (e.g. concept-amplitude-amplification)')
    .requiredOption('--title <title>', 'page title')
    .option('--type <type>', 'concept, entity, source or comparison', 'concept')
    .option('--category <category>', 'algorithm, primitive, technique, problem, framework, paper, person, …')
    .option('--tags <csv>', 'tags')
    .option('--status <status>', 'draft, review or published', 'draft')
    .option('--content <text>', 'page body')
    .option('-f, --file <path>', 'read the page body from a file')
    .option('--subdir <dir>', 'directory inside the wiki (default by type and category)')
    .option('--force', 'overwrite an existing file')
    .action(
      defineAction(
        host,
        ([id], o) => {
          if (!isKebabCase(id!) || !isSafePageId(id!))
            throw new InvalidInputError(`page id must be kebab-case: '${id}'`);
          const title = (o['title'] as string).trim();
          if (title === '') throw new InvalidInputError('--title must not be empty');
          if (o['content'] !== undefined && o['file'] !== undefined) {
            throw new InvalidInputError('--content and --file exclude each other');
          }
          const type = parseChoice('--type', o['type'] as string, PAGE_TYPES);
          const category = (o['category'] as string | undefined)?.trim() || undefined;
          return {
            id: id!,
            title,
            type,
            category,
            tags: o['tags'] === undefined ? [] : csv(o['tags'] as string),
            status: parseChoice('--status', o['status'] as string, PAGE_STATUSES),
            content: o['content'] as string | undefined,
            file: o['file'] as string | undefined,
            subdir: (o['subdir'] as string | undefined) ?? defaultSubdir(type, category),
            force: o['force'] === true,
          };
        },
        async (ctx, input) => {
          const body =
            input.content ??
            (input.file !== undefined ? await readFile(input.file, 'utf8') : await readAll(ctx.io.stdin));
          const frontmatter: Record<string, unknown> = { id: input.id, title: input.title, type: input.type };
          if (input.category !== undefined) frontmatter['category'] = input.category;
          Object.assign(frontmatter, {
            tags: input.tags,
            created_at: localDate(ctx.now()),
            status: input.status,
            related: [],
          });
          const target = await writePageFile(
            wikiRoot(ctx),
            `${input.subdir.replace(/\/+$/, '')}/${input.id}.md`,
            pageText(frontmatter, body),
            input.force,
          );
          ctx.io.stdout(`Created page: ${target}\n`);
        },
      ),
    );
};
