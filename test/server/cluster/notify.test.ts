/**
 * Cluster mode's notifications between two real `pksd serve` processes on one PostgreSQL (CONTRACT §21):
 * - a revoked PAT, an ended session or a deleted user is refused by every instance within 1 s;
 * - a wiki pull on one instance brings every instance to the same commit within 10 s (each instance has its own
 *   checkout of one bare remote);
 * - an upload on one instance is in `stats` and `needs-parser` of every other within 15 s.
 * The bounds are the contract's; every wait is a poll for the condition, failing only past the bound.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Identity } from '../../../src/server/auth/identity.js';
import { startCluster, type Cluster } from '../../support/cluster.js';
import { testUser } from '../../support/server.js';
import { multipart, pdfBytes } from '../papers/helpers.js';
import { createGitWiki, git, page, type GitWiki } from '../wiki/git-fixture.js';

const REFUSED_WITHIN_MS = 1_000;
const SAME_COMMIT_WITHIN_MS = 10_000;
const UPLOAD_EVERYWHERE_WITHIN_MS = 15_000;
const SPEC = { name: 'ci', description: '', expiresInDays: 30, scopes: ['wiki:read' as const] };

let base: string;
let repo: GitWiki;
let cluster: Cluster;
let shared: Identity;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-cluster-notify-'));
  const checkouts = [path.join(base, 'wiki-a'), path.join(base, 'wiki-b')];
  await mkdir(path.join(base, 'git'));
  repo = await createGitWiki(path.join(base, 'git'), checkouts[0]!, {
    'concepts/concept-a.md': page('concept-a', 'A', 'First text.'),
  });
  await git(base, 'clone', '--quiet', '-b', 'main', repo.remote, checkouts[1]!);
  cluster = await startCluster({ instanceEnv: (i) => ({ SVC_WIKI_DIR: checkouts[i]! }) });
  shared = await cluster.identity();
}, 180_000);
afterAll(async () => {
  await cluster?.stop();
  await rm(base, { recursive: true, force: true });
}, 120_000);

const call = (i: number, pathname: string, token = cluster.systemPat, init: RequestInit = {}) =>
  fetch(cluster.instances[i]!.url + pathname, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, ...init.headers },
  });
const json = async (res: Response): Promise<Record<string, unknown>> => {
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};
/** Polls `check` until it holds; fails when that took longer than `withinMs` after `started`. */
async function within(withinMs: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('revocation reaches every instance within 1 s', () => {
  const status = async (i: number, token: string) => (await call(i, '/api/stats', token)).status;

  it('a PAT revoked elsewhere, and the PATs of a deleted user, are refused by both instances', async () => {
    const alice = await testUser(shared, 'alice');
    const pat = await shared.pats.mint(alice.id, SPEC);
    expect([await status(0, pat.plaintext), await status(1, pat.plaintext)]).toEqual([200, 200]); // cached on both
    await shared.pats.revoke(pat.id);
    await within(REFUSED_WITHIN_MS, 'revoked PAT refused by a and b', async () => {
      return (await status(0, pat.plaintext)) === 401 && (await status(1, pat.plaintext)) === 401;
    });

    const bob = await testUser(shared, 'bob');
    const bobs = await shared.pats.mint(bob.id, SPEC);
    expect([await status(0, bobs.plaintext), await status(1, bobs.plaintext)]).toEqual([200, 200]);
    await shared.deleteUser(bob.id);
    await within(REFUSED_WITHIN_MS, "deleted user's PAT refused by a and b", async () => {
      return (await status(0, bobs.plaintext)) === 401 && (await status(1, bobs.plaintext)) === 401;
    });
  });

  it('with b’s listener connection terminated, a PAT revoked elsewhere is still refused by b within 1 s', async () => {
    const alice = await testUser(shared, 'alice');
    const pat = await shared.pats.mint(alice.id, SPEC);
    expect(await status(1, pat.plaintext)).toBe(200);
    const admin = new pg.Client({ connectionString: cluster.pgUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ ok: boolean }>(
        // This file's database only: other files run instances named `b` on the same cluster at the same time.
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
         WHERE application_name = 'pksd listener b' AND datname = current_database()`,
      );
      expect(rows.map((r) => r.ok)).toEqual([true]);
    } finally {
      await admin.end();
    }
    await shared.pats.revoke(pat.id);
    await within(REFUSED_WITHIN_MS, 'revoked PAT refused by b', async () => (await status(1, pat.plaintext)) === 401);
    // b's listener comes back by itself.
    await within(10_000, 'b listening again', async () => {
      const admin2 = new pg.Client({ connectionString: cluster.pgUrl });
      await admin2.connect();
      try {
        const { rowCount } = await admin2.query(
          `SELECT 1 FROM pg_stat_activity WHERE application_name = 'pksd listener b' AND datname = current_database()`,
        );
        return rowCount === 1;
      } finally {
        await admin2.end();
      }
    });
  });

  it('a session ended elsewhere is refused by both instances', async () => {
    const { user, session } = await cluster.signIn('carol');
    expect([await status(0, session), await status(1, session)]).toEqual([200, 200]);
    await shared.sessions.revokeAll(user.id);
    await within(REFUSED_WITHIN_MS, 'ended session refused by a and b', async () => {
      return (await status(0, session)) === 401 && (await status(1, session)) === 401;
    });
  });
});

describe('a wiki pull on one instance brings the other to the same commit', () => {
  it('pull on a → b serves the new commit within 10 s', async () => {
    const body = async (i: number) => (await json(await call(i, '/api/pages/concept-a')))['content'];
    expect(await body(1)).toContain('First text.');
    const commit = await repo.publish({ 'concepts/concept-a.md': page('concept-a', 'A', 'Second text.') });
    const pulled = await json(await call(0, '/api/wiki/sync/pull', cluster.systemPat, { method: 'POST' }));
    expect(pulled).toMatchObject({ status: 'ok', changed: true, new_commit: commit.slice(0, 7) });
    await within(SAME_COMMIT_WITHIN_MS, 'b on the new commit', async () => {
      const sync = await json(await call(1, '/api/wiki/sync/status'));
      return (sync['git'] as { commit: string | null }).commit === commit.slice(0, 7);
    });
    await within(SAME_COMMIT_WITHIN_MS, 'b serving the new commit', async () =>
      String(await body(1)).includes('Second text.'),
    );
    expect(await repo.head(path.join(base, 'wiki-b'))).toBe(commit);
  });
});

describe('an upload on one instance reaches the other’s stats and needs-parser', () => {
  it('upload on b → in a’s stats and needs-parser within 15 s', async () => {
    const id = '2501.00042v1';
    const stats = async (i: number) => (await json(await call(i, '/api/papers/stats'))) as { has_pdf: number };
    const before = await stats(0);
    const { body, contentType } = multipart([
      { name: 'pdf', filename: 'paper.pdf', content: pdfBytes('cluster'), contentType: 'application/pdf' },
    ]);
    const upload = await call(1, `/api/papers/${id}/upload-pdf`, cluster.systemPat, {
      method: 'POST',
      headers: { 'Content-Type': contentType },
      body,
    });
    expect(upload.status).toBe(201);
    await within(UPLOAD_EVERYWHERE_WITHIN_MS, 'the upload in a’s stats and needs-parser', async () => {
      const [s, needs] = await Promise.all([stats(0), json(await call(0, '/api/papers/needs-parser?limit=100'))]);
      const ids = (needs['papers'] as { preprint_id: string }[]).map((p) => p.preprint_id);
      return s.has_pdf === before.has_pdf + 1 && ids.includes(id);
    });
  });
});
