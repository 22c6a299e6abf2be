/** Writing a new page file: frontmatter in the conventional field order, inside the checkout only. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Document, type YAMLSeq } from 'yaml';
import { resolveInsideRoot } from '../../../wiki/index.js';
import { CliExit, EXIT } from '../../errors.js';

/** `---\n<yaml>---\n\n<body>\n`, with `tags`/`related` in flow style (`[a, b]`). */
export function pageText(frontmatter: Record<string, unknown>, body: string): string {
  const doc = new Document(frontmatter);
  for (const key of ['tags', 'related']) {
    const node = doc.get(key, true) as YAMLSeq | undefined;
    if (node) node.flow = true;
  }
  const text = body.trim();
  return `---\n${doc.toString({ lineWidth: 0 })}---\n${text === '' ? '' : `\n${text}\n`}`;
}

/** Writes `<root>/<relPath>`; exit 1 when it exists (unless `force`), exit 2 when the path leaves the checkout. */
export async function writePageFile(root: string, relPath: string, text: string, force: boolean): Promise<string> {
  const target = resolveInsideRoot(root, relPath);
  if (target === null) throw new CliExit(EXIT.usage, `Error: ${relPath} is outside the wiki directory ${root}`);
  await mkdir(path.dirname(target), { recursive: true });
  try {
    await writeFile(target, text, { flag: force ? 'w' : 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new CliExit(EXIT.failure, `Error: ${target} already exists (use --force to overwrite)`);
    }
    throw err;
  }
  return target;
}
