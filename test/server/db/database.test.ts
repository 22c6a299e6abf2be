import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase, schemaVersion } from '../../../src/server/db/database.js';
import { loadOrCreateInstanceKey } from '../../../src/server/db/instance-key.js';
import { MIGRATIONS } from '../../../src/server/db/migrations.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'pksd-db-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('user database', () => {
  it('creates pksd.db in WAL mode with a 30 s busy timeout and every migration applied', () => {
    const dir = path.join(tmp(), 'nested', 'pb_data');
    const db = openDatabase(dir);
    expect(statSync(path.join(dir, 'pksd.db')).isFile()).toBe(true);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(30_000);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(
      expect.arrayContaining(['users', 'pat_tokens', 'device_requests', 'superusers', 'schema_migrations']),
    );
    db.close();
  });

  it('runs each migration once across reopenings and applies only newer ones', () => {
    const dir = tmp();
    openDatabase(dir).close();
    const extra = [
      ...MIGRATIONS,
      { version: 999, name: 'test column', sql: 'ALTER TABLE users ADD COLUMN extra TEXT' },
    ];
    const db = openDatabase(dir, extra);
    expect(schemaVersion(db)).toBe(999);
    expect(migrate(db, extra)).toEqual([]);
    const rows = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    expect(rows).toEqual([...MIGRATIONS.map((m) => m.version), 999]);
    db.close();
  });

  it('two connections (server and a command) share the database concurrently', () => {
    const dir = tmp();
    const a = openDatabase(dir);
    const b = openDatabase(dir);
    a.prepare(
      "INSERT INTO superusers (id, email, password_hash, token_key, created, updated) VALUES ('s1', 'a@b.cd', 'x', 'k', 1, 1)",
    ).run();
    expect(b.prepare('SELECT email FROM superusers').pluck().get()).toBe('a@b.cd');
    a.close();
    b.close();
  });
});

describe('instance secret', () => {
  it('is 32 random bytes in instance.key, mode 0600, created once and then reused', () => {
    const dir = tmp();
    const k1 = loadOrCreateInstanceKey(dir);
    expect(k1).toHaveLength(32);
    expect(statSync(path.join(dir, 'instance.key')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateInstanceKey(dir).equals(k1)).toBe(true);
    expect(loadOrCreateInstanceKey(tmp()).equals(k1)).toBe(false);
  });

  it('refuses a corrupt key file instead of silently replacing it', () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'instance.key'), 'short');
    expect(() => loadOrCreateInstanceKey(dir)).toThrow(/corrupt/);
  });
});
