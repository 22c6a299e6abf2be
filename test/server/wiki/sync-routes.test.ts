import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { createGitWiki, git, page, type GitWiki } from './git-fixture.js';

const PAT = 'x'.repeat(20);
const auth = { Authorization: `Bearer ${PAT}` };

let base: string;
let wikiDir: string;
let server: TestServer;
let repo: GitWiki;

const pull = () => server.fetch('/api/wiki/sync/pull', { method: 'POST', headers: auth });
const status = async () => {
  const res = await server.fetch('/api/wiki/sync/status', { headers: auth });
  expect(res.status).toBe(200);
  return (await res.json()) as { wiki: Record<string, unknown>; git: Record<string, unknown> };
};
const getPage = async (id: string) => server.fetch(`/api/pages/${id}`, { headers: auth });

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-wiki-sync-'));
  wikiDir = path.join(base, 'wiki');
  server = await startTestServer({ SVC_WIKI_DIR: wikiDir, SVC_SYSTEM_PAT: PAT });
});
afterAll(async () => {
  await server?.close();
  await rm(base, { recursive: true, force: true });
});
beforeEach(async () => {
  repo = await createGitWiki(base, wikiDir, {
    'concepts/concept-a.md': page('concept-a', 'Alpha', 'The first version of alpha.'),
  });
});

describe('GET /api/wiki/sync/status', () => {
  it('reports the local checkout on main without warnings', async () => {
    const head = await repo.head(repo.wiki);
    const body = await status();
    expect(body.wiki).toEqual({ exists: true, external: true });
    expect(body.git).toEqual({
      enabled: true,
      branch: 'main',
      commit: head.slice(0, 7),
      commit_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      upstream: 'origin/main',
      ahead: 0,
      behind: 0,
      dirty: false,
      warnings: [],
    });
  });

  it('counts ahead/behind against the last fetched upstream, without network', async () => {
    await repo.publish({ 'concepts/concept-b.md': page('concept-b', 'Beta', 'Beta.') });
    expect((await status()).git).toMatchObject({ behind: 0, ahead: 0 }); // not fetched yet
    await git(repo.wiki, 'fetch', '--quiet');
    await writeFile(path.join(repo.wiki, 'local.md'), page('concept-l', 'Local', 'Local.'));
    await git(repo.wiki, 'add', 'local.md');
    await git(repo.wiki, 'commit', '--quiet', '-m', 'local');
    expect((await status()).git).toMatchObject({ behind: 1, ahead: 1, dirty: false });
    await writeFile(path.join(repo.wiki, 'scratch.txt'), 'x');
    expect((await status()).git).toMatchObject({ dirty: true });
  });

  it('warns when the checkout is not on main or master', async () => {
    await git(repo.wiki, 'checkout', '--quiet', '-b', 'feature/x');
    const body = await status();
    expect(body.git['branch']).toBe('feature/x');
    expect(body.git['upstream']).toBeNull();
    expect(body.git['warnings']).toEqual([
      {
        code: 'wiki_branch_not_main',
        message: "wiki checkout is on branch 'feature/x', expected main or master",
        branch: 'feature/x',
      },
    ]);
    await git(repo.wiki, 'checkout', '--quiet', '-b', 'master');
    expect((await status()).git['warnings']).toEqual([]);
  });

  it('reports git disabled for a plain directory and exists:false for a missing one', async () => {
    await rm(wikiDir, { recursive: true, force: true });
    expect(await status()).toEqual({ wiki: { exists: false, external: true }, git: { enabled: false } });
    await mkdir(wikiDir);
    expect(await status()).toEqual({ wiki: { exists: true, external: true }, git: { enabled: false } });
  });

  it('requires wiki:read', async () => {
    const res = await server.fetch('/api/wiki/sync/status');
    expect(res.status).toBe(401);
  });
});

describe('POST /api/wiki/sync/pull', () => {
  it('fast-forwards and the next GET shows the new content', async () => {
    // Prime the cache with the first version.
    await (await pull()).json();
    expect(((await (await getPage('concept-a')).json()) as { content: string }).content).toBe(
      'The first version of alpha.',
    );
    const oldHead = await repo.head(repo.wiki);
    const newHead = await repo.publish({
      'concepts/concept-a.md': page('concept-a', 'Alpha', 'The second version of alpha, see [[concept-b]].'),
      'concepts/concept-b.md': page('concept-b', 'Beta', 'Beta is new.'),
    });

    const res = await pull();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json; charset=utf-8/);
    expect(await res.json()).toEqual({
      status: 'ok',
      changed: true,
      old_commit: oldHead.slice(0, 7),
      new_commit: newHead.slice(0, 7),
      wiki: { exists: true, external: true },
      git: { commit: newHead.slice(0, 7), branch: 'main', dirty: false },
    });
    const detail = (await (await getPage('concept-a')).json()) as { content: string; links: string[] };
    expect(detail.content).toBe('The second version of alpha, see [[concept-b]].');
    expect(detail.links).toEqual(['concept-b']);
    const beta = (await (await getPage('concept-b')).json()) as { backlinks: string[] };
    expect(beta.backlinks).toEqual(['concept-a']);
    expect(await repo.head(repo.wiki)).toBe(newHead);
  });

  it('answers changed:false when there is nothing new, and accepts an empty JSON body', async () => {
    const head = (await repo.head(repo.wiki)).slice(0, 7);
    const res = await server.fetch('/api/wiki/sync/pull', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ changed: false, old_commit: head, new_commit: head });
    const post = (body: string) =>
      server.fetch('/api/wiki/sync/pull', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body,
      });
    expect((await post('{}')).status).toBe(200);
    const unknown = await post('{"force":true}');
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ detail: "unknown field 'force'" });
    const broken = await post('{');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { detail: string }).detail).toMatch(/^parse body: /);
  });

  it('refuses a dirty worktree with 409', async () => {
    await writeFile(
      path.join(repo.wiki, 'concepts', 'concept-a.md'),
      page('concept-a', 'Alpha', 'Edited on the server.'),
    );
    const res = await pull();
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ detail: 'wiki worktree has local changes' });
  });

  it('counts an untracked file as a local change', async () => {
    await writeFile(path.join(repo.wiki, 'concepts', 'concept-new.md'), page('concept-new', 'New', 'Untracked.'));
    const res = await pull();
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ detail: 'wiki worktree has local changes' });
  });

  it('refuses diverged history with 409 cannot fast-forward', async () => {
    await writeFile(path.join(repo.wiki, 'concepts', 'concept-l.md'), page('concept-l', 'Local', 'Local commit.'));
    await git(repo.wiki, 'add', '-A');
    await git(repo.wiki, 'commit', '--quiet', '-m', 'local only');
    const localHead = await repo.head(repo.wiki);
    await repo.publish({ 'concepts/concept-r.md': page('concept-r', 'Remote', 'Remote commit.') });
    const res = await pull();
    expect(res.status).toBe(409);
    const body = (await res.json()) as { detail: string };
    expect(body.detail).toMatch(/^cannot fast-forward: /);
    expect(Object.keys(body)).toEqual(['detail']);
    expect(await repo.head(repo.wiki)).toBe(localHead);
  });

  it('refuses a directory that is not a git checkout, and a missing one, with 409', async () => {
    await rm(wikiDir, { recursive: true, force: true });
    let res = await pull();
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ detail: 'wiki directory does not exist' });
    await mkdir(wikiDir);
    await writeFile(path.join(wikiDir, 'concept-a.md'), page('concept-a', 'Alpha', 'Plain.'));
    res = await pull();
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ detail: 'wiki directory is not a git checkout' });
  });

  it('answers 502 when the remote is unreachable', async () => {
    await git(repo.wiki, 'remote', 'set-url', 'origin', path.join(base, 'no-such-remote.git'));
    const res = await pull();
    expect(res.status).toBe(502);
    const body = (await res.json()) as { detail: string };
    expect(body.detail).toMatch(/^git fetch failed: .*does not appear to be a git repository/s);
  });

  it('answers 502 for another git failure (no upstream to pull from)', async () => {
    await git(repo.wiki, 'checkout', '--quiet', '-b', 'topic');
    const res = await pull();
    expect(res.status).toBe(502);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/^git pull failed: /);
  });

  it('serialises concurrent pulls', async () => {
    const newHead = await repo.publish({ 'concepts/concept-c.md': page('concept-c', 'Gamma', 'Gamma.') });
    const results = await Promise.all([pull(), pull(), pull()]);
    const bodies = (await Promise.all(results.map((r) => r.json()))) as { changed: boolean; new_commit: string }[];
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(bodies.filter((b) => b.changed)).toHaveLength(1);
    expect(bodies.every((b) => b.new_commit === newHead.slice(0, 7))).toBe(true);
  });

  it('requires wiki:write', async () => {
    expect((await server.fetch('/api/wiki/sync/pull', { method: 'POST' })).status).toBe(401);
    const res = await server.fetch('/api/wiki/sync/pull', { headers: auth });
    expect(res.status).toBe(405);
  });
});

describe('wiki scopes', () => {
  it('a wiki:read credential can read the status but not pull (403 with obj/act)', async () => {
    const readOnly = await startTestServer({
      SVC_WIKI_DIR: wikiDir,
      SVC_SYSTEM_PAT: PAT,
      SVC_SYSTEM_PAT_SCOPES: 'wiki:read',
    });
    try {
      expect((await readOnly.fetch('/api/wiki/sync/status', { headers: auth })).status).toBe(200);
      const res = await readOnly.fetch('/api/wiki/sync/pull', { method: 'POST', headers: auth });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ obj: 'wiki', act: 'write' });
    } finally {
      await readOnly.close();
    }
  });
});
