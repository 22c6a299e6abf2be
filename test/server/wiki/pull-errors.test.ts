/**
 * The wiki pull's failures as domain errors (CONTRACT §13.4; the HTTP layer maps them): a checkout that cannot be
 * pulled is a `ConflictError`, git failing is an `UpstreamError` of upstream `git`, with the contract's texts.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/server/config/types.js';
import { ConflictError, UpstreamError } from '../../../src/shared/domain-errors.js';
import { openWiki, type WikiService } from '../../../src/server/wiki/service.js';
import { createGitWiki, git, page } from './git-fixture.js';

let base: string;
let wiki: WikiService | null = null;
let cases = 0;
const open = async (dir: string) => {
  wiki = await openWiki({ wikiDir: dir } as Config, pino({ level: 'silent' }), { refreshIntervalMs: 0 });
  return wiki;
};

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-wiki-pull-errors-'));
});
afterEach(async () => {
  await wiki?.close();
  wiki = null;
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** The rejection of `pull()`, which must be one. */
async function pullError(service: WikiService): Promise<Error> {
  const outcome = await service.pull().then(
    () => null,
    (err: unknown) => err as Error,
  );
  expect(outcome).not.toBeNull();
  return outcome!;
}

const initial = { 'concepts/concept-a.md': page('concept-a', 'Alpha', 'Alpha.') };

describe('wiki pull failures', () => {
  it.each([
    ['a missing directory', 'wiki directory does not exist', async (dir: string) => dir],
    [
      'a directory that is not a git checkout',
      'wiki directory is not a git checkout',
      async (dir: string) => {
        await mkdir(dir, { recursive: true });
        return dir;
      },
    ],
    [
      'local changes',
      'wiki worktree has local changes',
      async (dir: string) => {
        await createGitWiki(path.join(base, `git-${path.basename(dir)}`), dir, initial);
        await writeFile(path.join(dir, 'scratch.md'), 'x');
        return dir;
      },
    ],
  ])('%s is a ConflictError', async (_case, message, prepare) => {
    const dir = await prepare(path.join(base, `conflict-${++cases}`));
    const err = await pullError(await open(dir));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.message).toBe(message);
  });

  it('diverged history is a ConflictError "cannot fast-forward: …"', async () => {
    const dir = path.join(base, 'diverged');
    const repo = await createGitWiki(path.join(base, 'git-diverged'), dir, initial);
    await writeFile(path.join(dir, 'local.md'), page('concept-l', 'Local', 'Local.'));
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '--quiet', '-m', 'local');
    await repo.publish({ 'remote.md': page('concept-r', 'Remote', 'Remote.') });
    const err = await pullError(await open(dir));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.message).toMatch(/^cannot fast-forward: /);
  });

  it('an unreachable remote is an UpstreamError of git "git fetch failed: …"', async () => {
    const dir = path.join(base, 'unreachable');
    await createGitWiki(path.join(base, 'git-unreachable'), dir, initial);
    await git(dir, 'remote', 'set-url', 'origin', path.join(base, 'no-such-remote.git'));
    const err = await pullError(await open(dir));
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).upstream).toBe('git');
    expect(err.message).toMatch(/^git fetch failed: .*no-such-remote\.git/s);
  });

  it('another git failure (no upstream) is an UpstreamError of git "git pull failed: …"', async () => {
    const dir = path.join(base, 'no-upstream');
    await createGitWiki(path.join(base, 'git-no-upstream'), dir, initial);
    await git(dir, 'checkout', '--quiet', '-b', 'topic');
    const err = await pullError(await open(dir));
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).upstream).toBe('git');
    expect(err.message).toMatch(/^git pull failed: /);
  });
});
