/**
 * Wiki pull fan-out (CONTRACT §21: a wiki pull on one instance brings every instance to the same commit within
 * 10 s). Two wiki services on two clones of one bare remote, each with its own PostgreSQL listener, stand for two
 * instances (refresh timers off, so only the notification can move the second): a pull on A announces its commit
 * and B pulls to it and serves it; an announcement of the commit B is already on changes nothing; B pulls through
 * its own serialised path, so a B whose checkout has local changes refuses like its own pull would and keeps
 * serving what it had. A pull announced while B's listener could not connect is pulled by B when it reconnects: the
 * commit is recorded in PostgreSQL (`wiki_announced`) before it is notified.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/server/config/types.js';
import { PostgresNotifications } from '../../../src/server/db/notifications-postgres.js';
import { PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { announcedWikiHeadOf, type AnnouncedWikiHead } from '../../../src/server/db/wiki-announced.js';
import { openWiki, type WikiService } from '../../../src/server/wiki/service.js';
import { loadWiki } from '../../../src/wiki/index.js';
import { query, usePostgres } from '../../support/postgres.js';
import { LogCapture } from '../../support/server.js';
import { createGitWiki, git, page, type GitWiki } from '../wiki/git-fixture.js';

const postgres = usePostgres();
const SAME_COMMIT_WITHIN_MS = 10_000;

let base: string;
let db: PostgresUserDatabase;
let announced: AnnouncedWikiHead;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-wiki-fanout-'));
  db = await PostgresUserDatabase.open(postgres.url); // migrates: wiki_announced
  announced = announcedWikiHeadOf(db)!;
});
afterAll(async () => {
  await db?.close();
  await rm(base, { recursive: true, force: true });
});

/** Runs `sql` as the cluster's superuser. */
const admin = (sql: string) => query(postgres.url, sql);

describe('wiki pull fan-out', () => {
  const closing: (() => Promise<unknown>)[] = [];
  // Each test has its own remote: a commit an earlier test announced must not be followed by a listener that
  // reconnects (a heartbeat missed on a loaded machine) in the next one.
  beforeEach(async () => {
    await admin('DELETE FROM wiki_announced');
  });
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  const instance = async (
    wikiDir: string,
    listenerUrl = postgres.url,
  ): Promise<{ wiki: WikiService; logs: LogCapture; notifications: PostgresNotifications }> => {
    const logs = new LogCapture();
    const logger = pino({ level: 'info' }, logs);
    const notifications = PostgresNotifications.start(listenerUrl, logger);
    closing.push(() => notifications.close());
    await notifications.ready;
    const wiki = await openWiki({ wikiDir } as Config, logger, {
      refreshIntervalMs: 0,
      load: loadWiki,
      notifications,
      announced,
    });
    closing.push(() => wiki.close());
    return { wiki, logs, notifications };
  };

  const twoCheckouts = async (name: string): Promise<{ repo: GitWiki; dirB: string }> => {
    const root = path.join(base, name);
    const repo = await createGitWiki(root, path.join(root, 'wiki-a'), {
      'concepts/concept-a.md': page('concept-a', 'A', 'First text.'),
    });
    const dirB = path.join(root, 'wiki-b');
    await git(root, 'clone', '--quiet', '-b', 'main', repo.remote, dirB);
    return { repo, dirB };
  };

  it('a pull on A brings B to the same commit and B serves it', async () => {
    const { repo, dirB } = await twoCheckouts('follow');
    const a = await instance(repo.wiki);
    const b = await instance(dirB);
    const commit = await repo.publish({ 'concepts/concept-a.md': page('concept-a', 'A', 'Second text.') });
    expect(b.wiki.snapshot().byId.get('concept-a')?.body).toBe('First text.');

    const pulled = await a.wiki.pull();
    expect(pulled).toMatchObject({ changed: true, new_commit: commit.slice(0, 7) });
    await expect
      .poll(() => b.wiki.snapshot().byId.get('concept-a')?.body, { timeout: SAME_COMMIT_WITHIN_MS })
      .toBe('Second text.');
    expect(await repo.head(dirB)).toBe(commit);
    expect((await b.wiki.syncStatus()).git).toMatchObject({ commit: commit.slice(0, 7), dirty: false });
  });

  it('instances sharing one checkout: A’s pull makes B reload the snapshot without pulling again', async () => {
    const { repo } = await twoCheckouts('shared');
    const a = await instance(repo.wiki);
    const b = await instance(repo.wiki);
    const commit = await repo.publish({ 'concepts/concept-a.md': page('concept-a', 'A', 'Shared text.') });
    await a.wiki.pull();
    await expect
      .poll(() => b.wiki.snapshot().byId.get('concept-a')?.body, { timeout: SAME_COMMIT_WITHIN_MS })
      .toBe('Shared text.');
    expect(await repo.head(repo.wiki)).toBe(commit);
    expect(b.logs.text).not.toContain('wiki pull done'); // b reloaded; it did not pull
  });

  it('B with local changes refuses the pull like its own would, keeps its snapshot, and follows once clean', async () => {
    const { repo, dirB } = await twoCheckouts('dirty');
    const a = await instance(repo.wiki);
    const b = await instance(dirB);
    const before = await repo.head(dirB);
    await writeFile(path.join(dirB, 'scratch.md'), 'local notes');
    const first = await repo.publish({ 'concepts/concept-a.md': page('concept-a', 'A', 'Second text.') });
    await a.wiki.pull();
    // B's catch-up fails like its own pull would (its worktree is dirty): B stays where it was, serving that.
    await expect
      .poll(() => b.logs.text, { timeout: SAME_COMMIT_WITHIN_MS })
      .toContain("wiki pull after another instance's pull failed");
    expect(b.logs.text).toContain('wiki worktree has local changes');
    expect(await repo.head(dirB)).toBe(before);
    expect(b.wiki.snapshot().byId.get('concept-a')?.body).toBe('First text.');
    // A's own notification came back to A as well: A is on that commit already and stays there.
    expect(await repo.head(repo.wiki)).toBe(first);

    // A later announcement is followed once B is clean.
    await rm(path.join(dirB, 'scratch.md'));
    const second = await repo.publish({ 'concepts/concept-a.md': page('concept-a', 'A', 'Third text.') });
    await a.wiki.pull();
    await expect
      .poll(() => b.wiki.snapshot().byId.get('concept-a')?.body, { timeout: SAME_COMMIT_WITHIN_MS })
      .toBe('Third text.');
    expect(await repo.head(dirB)).toBe(second);
  });

  it('a pull announced while B’s listener could not connect is pulled by B once it reconnects', async () => {
    const { repo, dirB } = await twoCheckouts('missed');
    // B listens as its own role, so the test can keep B's listener out while A works on.
    const role = `pks_wiki_b_${process.pid}`;
    await admin(`CREATE ROLE ${role} LOGIN`);
    closing.push(() => admin(`DROP ROLE IF EXISTS ${role}`));
    const listenerUrl = new URL(postgres.url);
    listenerUrl.username = role;
    const a = await instance(repo.wiki);
    const b = await instance(dirB, listenerUrl.toString());
    expect(b.notifications.live).toBe(true);
    const before = await repo.head(dirB);

    // B's listener is cut off and cannot come back: A's pull is announced while nobody listens for B.
    await admin(`ALTER ROLE ${role} NOLOGIN`);
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);
    await expect.poll(() => b.notifications.live, { timeout: 10_000 }).toBe(false);
    const commit = await repo.publish({ 'concepts/concept-a.md': page('concept-a', 'A', 'Missed text.') });
    await a.wiki.pull();
    await expect.poll(() => announced.latest(), { timeout: 10_000 }).toBe(commit);
    expect(await repo.head(dirB)).toBe(before);
    expect(b.wiki.snapshot().byId.get('concept-a')?.body).toBe('First text.');

    // Back: B reconnects (its backoff is at most 5 s), compares its HEAD with the recorded commit, and pulls.
    await admin(`ALTER ROLE ${role} LOGIN`);
    await expect
      .poll(() => b.wiki.snapshot().byId.get('concept-a')?.body, { timeout: SAME_COMMIT_WITHIN_MS + 5_000 })
      .toBe('Missed text.');
    expect(await repo.head(dirB)).toBe(commit);
    expect(b.notifications.live).toBe(true);
  });
});
