/**
 * `pksd db status`, `pksd db copy --from-sqlite` and the schema guard at start (CONTRACT §21), in-process on a
 * real SQLite file and a real PostgreSQL.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { openIdentity, type Identity } from '../../../src/server/auth/identity.js';
import { SqliteUserDatabase } from '../../../src/server/db/sqlite-user-database.js';
import { freePort } from '../../support/free-port.js';
import { pksd } from '../../support/cli.js';
import { query, usePostgres } from '../../support/postgres.js';
import { NEWEST_SCHEMA } from './newest-schema.js';
import { useTempDirs } from './support.js';
import { testConfig } from '../../support/server.js';

const postgres = usePostgres();
const tempDir = useTempDirs('pks-dbcmd-');

const withPassword = (url: string, password: string): string => {
  const u = new URL(url);
  u.password = password;
  return u.toString();
};

const SPEC = { name: 'ci', description: '', expiresInDays: 30, scopes: ['wiki:read'] as const };

async function openFor(env: Record<string, string>, dir: string): Promise<Identity> {
  return openIdentity(testConfig(dir, env), pino({ level: 'silent' }), { background: false });
}

describe('pksd db status', () => {
  it('SQLite: absent before the first start, then current; --json', async () => {
    const dir = await tempDir();
    const env = { SVC_DB_DATA_DIR: path.join(dir, 'pb_data') };
    const before = await pksd(['db', 'status'], env, dir);
    expect(before).toEqual({
      code: 0,
      stdout:
        'backend: sqlite\n' +
        `location: ${path.join(dir, 'pb_data', 'pksd.db')}\n` +
        `schema version: - (this pksd: ${NEWEST_SCHEMA}; not created yet (created at the first start))\n`,
      stderr: '',
    });
    await new SqliteUserDatabase(path.join(dir, 'pb_data')).close();
    const after = await pksd(['db', 'status', '--json'], env, dir);
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual({
      backend: 'sqlite',
      location: path.join(dir, 'pb_data', 'pksd.db'),
      schema_version: NEWEST_SCHEMA,
      pksd_schema_version: NEWEST_SCHEMA,
      state: 'current',
    });
  });

  it('PostgreSQL: reads without migrating, masks the password, names a newer schema', async () => {
    const url = withPassword(await postgres.newDatabase(), 'hunter2-secret');
    const env = { SVC_DB_URL: url };
    const fresh = await pksd(['db', 'status', '--json'], env);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(JSON.parse(fresh.stdout)).toMatchObject({ backend: 'postgres', schema_version: 0, state: 'behind' });
    expect(fresh.stdout).not.toContain('hunter2-secret');
    expect(JSON.parse(fresh.stdout).location).toBe(withPassword(url, '***'));
    // Still nothing migrated: status changed nothing.
    expect((await query(url, `SELECT to_regclass('users') AS t`)).rows[0].t).toBeNull();

    await (await openFor(env, await tempDir())).close();
    const text = await pksd(['db', 'status'], env);
    expect(text.stdout).toBe(
      `backend: postgres\nlocation: ${withPassword(url, '***')}\nschema version: ${NEWEST_SCHEMA} (this pksd: ${NEWEST_SCHEMA}; current)\n`,
    );
    await query(url, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9, 'future', 'x')`);
    const newer = await pksd(['db', 'status', '--json'], env);
    expect(JSON.parse(newer.stdout)).toMatchObject({ schema_version: 9, state: 'newer' });
  });

  it('an unreachable PostgreSQL is exit 1 with the URL, never the password', async () => {
    const url = `postgres://pks:topsecret@127.0.0.1:${await freePort()}/pks`;
    const run = await pksd(['db', 'status'], { SVC_DB_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^pksd: cannot open the user database at postgres:\/\/pks:\*\*\*@127\.0\.0\.1:\d+\/pks: /,
    );
    expect(run.stderr + run.stdout).not.toContain('topsecret');
  });

  it('SVC_DB_URL that is no postgres URL is a configuration error (exit 2), without echoing it', async () => {
    const run = await pksd(['db', 'status'], { SVC_DB_URL: 'mysql://root:pw-in-url@db/x' });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('pksd: configuration error: SVC_DB_URL: must be a postgres:// URL, got scheme "mysql:"\n');
  });
});

describe('the schema guard', () => {
  it('a database migrated by a newer pksd: commands and serve exit 2 with the contract message', async () => {
    const url = await postgres.newDatabase();
    const dir = await tempDir();
    await (await openFor({ SVC_DB_URL: url }, dir)).close();
    await query(
      url,
      `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${NEWEST_SCHEMA + 1}, 'future', 'x')`,
    );
    const env = { SVC_DB_URL: url, SVC_DB_DATA_DIR: path.join(dir, 'pb_data'), SVC_DATA_DIR: path.join(dir, 'data') };
    const users = await pksd(['users', 'list'], env, dir);
    expect(users).toEqual({
      code: 2,
      stdout: '',
      stderr: `pksd: database schema ${NEWEST_SCHEMA + 1} is newer than this pksd (${NEWEST_SCHEMA})\n`,
    });
    const serve = await pksd(
      ['serve', '--http', `127.0.0.1:${await freePort()}`, '--raw-dir', path.join(dir, 'raw'), '--wiki-dir', dir],
      env,
      dir,
    );
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain(
      `pksd: database schema ${NEWEST_SCHEMA + 1} is newer than this pksd (${NEWEST_SCHEMA})\n`,
    );
  });
});

describe('pksd db copy --from-sqlite', () => {
  /** An embedded database with a user, a PAT, a superuser and a cached paper; its PAT and a session token. */
  async function embedded(): Promise<{ dir: string; pat: string; session: string; patId: string }> {
    const dir = await tempDir();
    const identity = await openFor({ SVC_ALLOWED_IDP_LOGINS: 'alice' }, dir);
    try {
      const { user } = await identity.users.upsertFromIdp({
        provider: 'github',
        providerUserId: '42',
        login: 'alice',
        email: 'alice@example.org',
        name: 'Alice',
        avatar: '',
      });
      const pat = await identity.pats.mint(user.id, SPEC);
      await identity.superusers.upsert('root@example.org', 'correct horse battery');
      await identity.db.metadata.put(
        {
          preprintId: '2501.00001',
          metadata: {
            title: 'T',
            authors: ['A'],
            abstract: 'X',
            published: '2025-01-01',
            doi: '10.1/x',
            openalex_id: null,
            cited_by_count: null,
            source: 'arxiv',
          },
        },
        new Date(),
      );
      return { dir, pat: pat.plaintext, patId: pat.id, session: identity.sessions.issue(user) };
    } finally {
      await identity.close();
    }
  }

  it('moves users, PATs, superusers, the metadata cache and the instance key: credentials keep working', async () => {
    const src = await embedded();
    const url = await postgres.newDatabase();
    const run = await pksd(['db', 'copy', '--from-sqlite', 'pb_data'], { SVC_DB_URL: url }, src.dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(
      `copied: 1 users, 1 superusers, 1 PATs, 0 device requests, 1 cached papers and the instance key, from ` +
        `${path.join(src.dir, 'pb_data', 'pksd.db')} to ${url}\n`,
    );
    const target = await openFor({ SVC_DB_URL: url, SVC_ALLOWED_IDP_LOGINS: 'alice' }, await tempDir());
    try {
      expect(target.db.backend).toBe('postgres');
      expect(await target.pats.verify(src.pat, false)).toMatchObject({ source: 'pat', login: 'alice' });
      expect(await target.sessions.principal(src.session)).toMatchObject({ source: 'session', login: 'alice' });
      expect(await target.superusers.authenticate('root@example.org', 'correct horse battery')).not.toBeNull();
      expect((await target.db.metadata.findByDoi('10.1/x'))?.preprintId).toBe('2501.00001');
      // A new PAT lists after the copied one (insertion order survives).
      const users = await target.users.list();
      const minted = await target.pats.mint(users[0]!.id, SPEC);
      expect((await target.pats.list()).map((p) => p.id)).toEqual([minted.id, src.patId]);
    } finally {
      await target.close();
    }
    // Idempotent: a second run of the same copy succeeds and changes nothing it should keep.
    const again = await pksd(['db', 'copy', '--from-sqlite', path.join(src.dir, 'pb_data')], { SVC_DB_URL: url });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^copied again \(the target already held this database\): 1 users, /);
    const count = await query(url, 'SELECT COUNT(*)::int AS n FROM pat_tokens');
    expect(count.rows[0].n).toBe(2);
  });

  it("refuses another deployment's database without --force, replaces it with --force", async () => {
    const src = await embedded();
    const url = await postgres.newDatabase();
    const other = await openFor({ SVC_DB_URL: url }, await tempDir());
    await other.users.upsertFromIdp({
      provider: 'github',
      providerUserId: '7',
      login: 'bob',
      email: '',
      name: '',
      avatar: '',
    });
    await other.close();
    const refused = await pksd(['db', 'copy', '--from-sqlite', path.join(src.dir, 'pb_data')], { SVC_DB_URL: url });
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'pksd: db copy: the target database already holds 1 users of another deployment; pass --force to replace them\n',
    });
    expect((await query(url, 'SELECT login FROM users')).rows).toEqual([{ login: 'bob' }]);
    const forced = await pksd(['db', 'copy', '--from-sqlite', path.join(src.dir, 'pb_data'), '--force'], {
      SVC_DB_URL: url,
    });
    expect(forced.code, forced.stderr).toBe(0);
    expect((await query(url, 'SELECT login FROM users')).rows).toEqual([{ login: 'alice' }]);
  });

  it('usage errors: no SVC_DB_URL, no pksd.db in the directory, a running server on it', async () => {
    const src = await embedded();
    const url = await postgres.newDatabase();
    expect(await pksd(['db', 'copy', '--from-sqlite', src.dir], {})).toEqual({
      code: 2,
      stdout: '',
      stderr: 'pksd: db copy: SVC_DB_URL is not set (the PostgreSQL database to copy into)\n',
    });
    expect(await pksd(['db', 'copy', '--from-sqlite', src.dir], { SVC_DB_URL: url })).toEqual({
      code: 2,
      stdout: '',
      stderr: `pksd: db copy: no pksd.db in ${src.dir}\n`,
    });
    expect((await pksd(['db', 'copy'], { SVC_DB_URL: url })).code).toBe(2);
    // The lock of a running `pksd serve`: the file names a live process (a `sleep` stands in for it).
    const server = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      await writeFile(path.join(src.dir, 'pb_data', 'pksd.lock'), `${server.pid}\n`);
      const held = await pksd(['db', 'copy', '--from-sqlite', path.join(src.dir, 'pb_data')], { SVC_DB_URL: url });
      expect(held).toEqual({
        code: 1,
        stdout: '',
        stderr: `pksd: another pksd process is using ${path.join(src.dir, 'pb_data')}; stop it before copying\n`,
      });
    } finally {
      server.kill();
    }
    // Nothing was copied by any of them.
    expect((await query(url, `SELECT to_regclass('users') AS t`)).rows[0].t).toBeNull();
  });
});

describe('pksd config show', () => {
  it('masks SVC_DB_URL and shows SVC_INSTANCE_ID with its default', async () => {
    const run = await pksd(['config', 'show'], { SVC_DB_URL: 'postgres://pks:pw-very-secret@db:5432/pks' });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('pw-very-secret');
    expect(run.stdout).toContain('\nSVC_DB_URL=<set, 41 chars>  # env\n');
    expect(run.stdout).toContain(`\nSVC_INSTANCE_ID=${os.hostname()}:${process.pid}  # default\n`);
  });
});
