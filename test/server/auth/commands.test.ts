import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Identity } from '../../../src/server/auth/identity.js';
import { verifyPassword } from '../../../src/server/auth/superusers.js';
import { SCOPES } from '../../../src/shared/scopes.js';
import { pksd } from '../../support/cli.js';
import { openTestIdentity } from '../../support/server.js';
import { sql, TEST_USER_DB, userDbEnv } from '../../support/user-db.js';
import { testConfig } from './harness.js';

let dir: string;
let env: Record<string, string>;

/** Opens the database the commands will open, for `fn`. */
async function withDb<T>(fn: (identity: Identity) => T | Promise<T>): Promise<T> {
  const identity = await openTestIdentity(testConfig(dir, env));
  try {
    return await fn(identity);
  } finally {
    await identity.close();
  }
}

/** Seeds users straight into the database the commands will open. */
function seedUsers(...logins: string[]) {
  return withDb(async (identity) => {
    const users = [];
    for (const login of logins) {
      const { user } = await identity.users.upsertFromIdp({
        provider: 'github',
        providerUserId: `id-${login}`,
        login,
        email: `${login}@example.org`,
        name: `Name ${login}`,
        avatar: '',
      });
      users.push(user);
    }
    return users;
  });
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pksd-cmd-'));
  env = {
    ...(await userDbEnv(dir)),
    SVC_DB_DATA_DIR: path.join(dir, 'pb_data'),
    SVC_RAW_DIR: path.join(dir, 'raw'),
    SVC_DATA_DIR: path.join(dir, 'data'),
    SVC_ALLOWED_IDP_LOGINS: 'alice,bob,carol',
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('pksd pat', () => {
  it('mint prints only the plaintext on stdout and the metadata on stderr; the PAT verifies', async () => {
    const [alice] = await seedUsers('alice');
    const r = await pksd(
      [
        'pat',
        'mint',
        '--user',
        'ALICE',
        '--name',
        'ci',
        '--scopes',
        'wiki:read, papers:write,',
        '--expires-in-days',
        '30',
      ],
      env,
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^pat_[A-Za-z0-9]{32}\n$/);
    const plaintext = r.stdout.trim();
    const pat = await withDb(async (id) => await id.pats.verify(plaintext, false));
    expect(pat).toMatchObject({ source: 'pat', userId: alice!.id, scopes: ['wiki:read', 'papers:write'] });
    expect(r.stderr).toMatch(
      new RegExp(
        `^minted PAT [a-z0-9]{15} \\(prefix ${plaintext.slice(0, 12)}\\) for alice scopes=wiki:read,papers:write expires=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\n$`,
      ),
    );
  });

  it('mint finds the user by id or email too', async () => {
    const [alice] = await seedUsers('alice');
    for (const ref of [alice!.id, 'alice@example.org']) {
      const r = await pksd(
        ['pat', 'mint', '--user', ref, '--name', 'n', '--scopes', '', '--expires-in-days', '1'],
        env,
        dir,
      );
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it('mint: unknown user → exit 1 with the contract message', async () => {
    await seedUsers('alice');
    const r = await pksd(
      ['pat', 'mint', '--user', 'mallory', '--name', 'n', '--scopes', 'wiki:read', '--expires-in-days', '1'],
      env,
      dir,
    );
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: "pksd: unknown user 'mallory' (see pksd users list)\n" });
  });

  it.each([
    [['--scopes', '*'], 'wildcard scope is not allowed'],
    [['--scopes', 'nope'], 'unknown scope "nope"'],
    [['--expires-in-days', '366'], 'expires_in_days exceeds maximum of 365 (one year)'],
    [['--expires-in-days', 'ten'], 'expires_in_days is required and must be an integer between 1 and 365'],
    [['--name', ' '], 'name required'],
  ])('mint validates as POST /api/pat: %j → exit 2', async (override, message) => {
    await seedUsers('alice');
    const args: Record<string, string> = {
      '--user': 'alice',
      '--name': 'n',
      '--scopes': 'wiki:read',
      '--expires-in-days': '5',
    };
    args[override[0]!] = override[1]!;
    const r = await pksd(['pat', 'mint', ...Object.entries(args).flat()], env, dir);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: `pksd: ${message}\n` });
  });

  it('mint without a required option is a usage error (exit 2)', async () => {
    const r = await pksd(['pat', 'mint', '--user', 'alice'], env, dir);
    expect(r.code).toBe(2);
  });

  it('list prints the table and JSON lines; --user filters; revoke deletes', async () => {
    await seedUsers('alice', 'bob');
    const a = (
      await pksd(
        ['pat', 'mint', '--user', 'alice', '--name', 'alpha', '--scopes', 'graph:read', '--expires-in-days', '7'],
        env,
        dir,
      )
    ).stdout.trim();
    await pksd(['pat', 'mint', '--user', 'bob', '--name', 'beta', '--scopes', '', '--expires-in-days', '7'], env, dir);

    const table = await pksd(['pat', 'list'], env, dir);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+USER\s+NAME\s+PREFIX\s+SCOPES\s+EXPIRES\s+LAST_USED$/);
    expect(lines).toHaveLength(3);
    expect(table.stdout).toContain(a.slice(0, 12));
    expect(table.stdout).not.toContain(a);

    const json = await pksd(['pat', 'list', '--user', 'alice', '--json'], env, dir);
    const rows = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!)).toEqual([
      'id',
      'user_id',
      'user_login',
      'user_email',
      'name',
      'prefix',
      'scopes',
      'expires_at',
      'last_used_at',
      'created',
    ]);
    expect(rows[0]).toMatchObject({
      user_login: 'alice',
      user_email: 'alice@example.org',
      name: 'alpha',
      scopes: ['graph:read'],
      last_used_at: null,
    });

    const revoked = await pksd(['pat', 'revoke', String(rows[0]!['id'])], env, dir);
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toBe(`revoked: ${String(rows[0]!['id'])} (prefix ${a.slice(0, 12)})\n`);
    expect(await withDb(async (id) => await id.pats.verify(a, false))).toBeNull();
    const unknown = await pksd(['pat', 'revoke', String(rows[0]!['id'])], env, dir);
    expect(unknown.code).toBe(1);
  });

  it('scopes prints name<TAB>description per scope and needs no database', async () => {
    const r = await pksd(['pat', 'scopes'], { SVC_DB_DATA_DIR: '/nonexistent/definitely/not' }, dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(SCOPES.map((s) => `${s.name}\t${s.description}\n`).join(''));
  });
});

describe('pksd users list', () => {
  it('prints ID LOGIN EMAIL NAME PROVIDER CREATED, or JSON lines', async () => {
    const [alice, bob] = await seedUsers('alice', 'bob');
    const r = await pksd(['users', 'list'], env, dir);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+LOGIN\s+EMAIL\s+NAME\s+PROVIDER\s+CREATED$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${alice!.id}\\s+alice\\s+alice@example.org\\s+Name alice\\s+github\\s+\\d{4}-`),
    );
    expect(lines[2]).toContain(bob!.id);
    const json = await pksd(['users', 'list', '--json'], env, dir);
    expect(JSON.parse(json.stdout.split('\n')[0]!)).toMatchObject({
      id: alice!.id,
      login: 'alice',
      provider: 'github',
    });
  });
});

describe('pksd superuser', () => {
  it('upsert creates the database directory, stores an scrypt hash, and resets on a second run', async () => {
    const nested = { ...env, SVC_DB_DATA_DIR: path.join(dir, 'fresh', 'pb_data') };
    const c = await pksd(['superuser', 'upsert', 'Admin@Example.org', 'correct horse'], nested, dir);
    expect(c.code).toBe(0);
    expect(c.stderr).toBe('superuser admin@example.org created\n');
    if (TEST_USER_DB === 'sqlite') expect(statSync(path.join(dir, 'fresh', 'pb_data', 'pksd.db')).isFile()).toBe(true);
    const u = await pksd(['superuser', 'upsert', 'admin@example.org', 'battery staple'], nested, dir);
    expect(u.stderr).toBe('superuser admin@example.org updated\n');
    env = nested;
    const [row] = await withDb((id) => sql(id.db, 'SELECT password_hash FROM superusers'));
    const hash = row!['password_hash'] as string;
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword('battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse', hash)).toBe(false);
  });

  it.each([[['not-an-email', 'long enough pw']], [['a@b.cd', 'short']]])(
    'upsert %j → exit 2',
    async ([email, password]) => {
      const r = await pksd(['superuser', 'upsert', email!, password!], env, dir);
      expect(r.code).toBe(2);
    },
  );

  it('delete removes a superuser; unknown → exit 1', async () => {
    await pksd(['superuser', 'upsert', 'a@b.cd', 'long enough pw'], env, dir);
    const d = await pksd(['superuser', 'delete', 'a@b.cd'], env, dir);
    expect(d.code).toBe(0);
    expect(d.stderr).toBe('superuser a@b.cd deleted\n');
    expect((await pksd(['superuser', 'delete', 'a@b.cd'], env, dir)).code).toBe(1);
  });
});
