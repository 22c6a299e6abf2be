/** Real git repositories for the wiki sync tests: a bare "remote", the wiki checkout cloned from it, and an author clone. */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs git in `cwd` with a fixed identity; resolves to trimmed stdout. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    'git',
    ['-c', 'user.name=Wiki Tester', '-c', 'user.email=wiki@test.invalid', '-c', 'commit.gpgsign=false', ...args],
    { cwd },
  );
  return stdout.trim();
}

export function page(id: string, title: string, body: string, extra: Record<string, string> = {}): string {
  const fm = {
    id,
    title,
    type: 'concept',
    category: 'technique',
    created_at: '2026-01-05',
    status: 'published',
    ...extra,
  };
  return `---\n${Object.entries(fm)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}\n---\n\n${body}\n`;
}

export interface GitWiki {
  /** The bare repository acting as `origin`. */
  readonly remote: string;
  /** The checkout the server serves (`SVC_WIKI_DIR`). */
  readonly wiki: string;
  /** A second clone where "other people" commit and push. */
  readonly author: string;
  /** Writes files in the author clone, commits and pushes; resolves to the new full commit hash. */
  publish(files: Record<string, string>, message?: string): Promise<string>;
  /** Full HEAD hash of a repository. */
  head(repo: string): Promise<string>;
}

/**
 * Creates (replacing whatever was there) `<base>/remote.git`, `<base>/author` with one commit on `main` holding
 * `initial`, and `wikiDir` cloned from the remote.
 */
export async function createGitWiki(base: string, wikiDir: string, initial: Record<string, string>): Promise<GitWiki> {
  const remote = path.join(base, 'remote.git');
  const author = path.join(base, 'author');
  for (const dir of [remote, author, wikiDir]) await rm(dir, { recursive: true, force: true });
  await mkdir(remote, { recursive: true });
  await git(remote, 'init', '--quiet', '--bare', '-b', 'main');
  await git(base, 'clone', '--quiet', remote, author);
  await git(author, 'checkout', '--quiet', '-B', 'main');
  const writeFiles = async (files: Record<string, string>) => {
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(author, rel)), { recursive: true });
      await writeFile(path.join(author, rel), text);
    }
  };
  const publish = async (files: Record<string, string>, message = 'update wiki'): Promise<string> => {
    await writeFiles(files);
    await git(author, 'add', '-A');
    await git(author, 'commit', '--quiet', '-m', message);
    await git(author, 'push', '--quiet', 'origin', 'main');
    return git(author, 'rev-parse', 'HEAD');
  };
  await publish(initial, 'initial wiki');
  await git(base, 'clone', '--quiet', '-b', 'main', remote, wikiDir);
  return { remote, wiki: wikiDir, author, publish, head: (repo) => git(repo, 'rev-parse', 'HEAD') };
}
