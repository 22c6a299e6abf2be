import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { usePostgres } from '../../support/postgres.js';

const pgFixture = usePostgres();

describe('test PostgreSQL (test/support/postgres.ts)', () => {
  it('gives this file a fresh, empty database on a loopback cluster', async () => {
    const url = new URL(pgFixture.url);
    expect(url.hostname).toBe('127.0.0.1');
    const client = new pg.Client({ connectionString: pgFixture.url });
    await client.connect();
    try {
      const tables = await client.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`);
      expect(tables.rows[0].n).toBe(0);
      const version = await client.query('SHOW server_version_num');
      expect(Number(version.rows[0].server_version_num)).toBeGreaterThanOrEqual(140000);
    } finally {
      await client.end();
    }
  });

  it('makes further databases on the same cluster, isolated from each other', async () => {
    const other = await pgFixture.newDatabase();
    expect(new URL(other).port).toBe(new URL(pgFixture.url).port);
    expect(other).not.toBe(pgFixture.url);
    const a = new pg.Client({ connectionString: pgFixture.url });
    const b = new pg.Client({ connectionString: other });
    await a.connect();
    await b.connect();
    try {
      await a.query('CREATE TABLE only_here (x int)');
      const seen = await b.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_here'`);
      expect(seen.rows[0].n).toBe(0);
    } finally {
      await a.end();
      await b.end();
    }
  });
});
