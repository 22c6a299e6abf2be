/** Where the extractor reads a paper's markdown: `<papers-dir>/<stem>.md`, else the server (then saved there). */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidInputError, UnavailableError } from '../../shared/domain-errors.js';
import { parsePreprintId } from '../../shared/ids.js';

/** Fetches a paper's markdown from the server (the `pks paper get markdown` flow); throws when unavailable. */
export type MarkdownFetcher = (preprintId: string) => Promise<string>;

export interface PaperMarkdown {
  readonly text: string;
  readonly path: string;
  /** `true` when it came from the server this run. */
  readonly fetched: boolean;
}

export function markdownPath(preprintId: string, papersDir: string): string {
  const id = parsePreprintId(preprintId);
  if (id === null) throw new InvalidInputError(`invalid preprint id: "${preprintId}"`);
  return path.join(papersDir, `${id.stem}.md`);
}

export async function paperMarkdown(
  preprintId: string,
  papersDir: string,
  fetchMarkdown: MarkdownFetcher | undefined,
): Promise<PaperMarkdown> {
  const file = markdownPath(preprintId, papersDir);
  try {
    return { text: await readFile(file, 'utf8'), path: file, fetched: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const hint = `run 'pks contrib parser ${preprintId}' to parse it, or enable paper access on the server`;
  if (fetchMarkdown === undefined)
    throw new UnavailableError(`markdown for ${preprintId} not found at ${file}; ${hint}`);
  let text: string;
  try {
    text = await fetchMarkdown(preprintId);
  } catch (err) {
    throw new UnavailableError(
      `markdown for ${preprintId} is not at ${file} and the server could not provide it (${(err as Error).message}); ${hint}`,
    );
  }
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return { text, path: file, fetched: true };
}
