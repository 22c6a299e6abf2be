/**
 * `GET /api/health` gains a `database` probe (CONTRACT §21): the backend, where it is (redacted for anonymous
 * callers), the schema version and the latency; a database that goes away degrades the answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dropDatabase, usePostgres } from '../../support/postgres.js';
import { NEWEST_SCHEMA } from './newest-schema.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const postgres = usePostgres();
const SYSTEM_PAT = 'system-pat-for-health-0001';
const AUTH = { headers: { Authorization: `Bearer ${SYSTEM_PAT}` } };

let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('the database health probe', () => {
  it('SQLite: ok with its directory and schema version; anonymous callers see the directory redacted', async () => {
    srv = await startTestServer({ SVC_SYSTEM_PAT: SYSTEM_PAT, SVC_DB_URL: '' });
    const full = await (await srv.fetch('/api/health', AUTH)).json();
    expect(full.data.checks.database).toEqual({
      status: 'ok',
      backend: 'sqlite',
      dir: srv.config.dbDataDir,
      schema_version: NEWEST_SCHEMA,
      latency_ms: expect.any(Number),
    });
    const anonymous = await (await srv.fetch('/api/health')).json();
    expect(anonymous.data.checks.database).toMatchObject({ status: 'ok', backend: 'sqlite', dir: 'redacted' });
  });

  it('PostgreSQL: ok with the URL without its password; a dropped database degrades the health', async () => {
    const url = new URL(await postgres.newDatabase());
    url.password = 'probe-secret';
    srv = await startTestServer({ SVC_SYSTEM_PAT: SYSTEM_PAT, SVC_DB_URL: url.toString() });
    const res = await srv.fetch('/api/health', AUTH);
    const text = await res.text();
    expect(text).not.toContain('probe-secret');
    const body = JSON.parse(text);
    const shown = new URL(url);
    shown.password = '***';
    expect(body.data.checks.database).toEqual({
      status: 'ok',
      backend: 'postgres',
      uri: shown.toString(),
      schema_version: NEWEST_SCHEMA,
      latency_ms: expect.any(Number),
    });
    expect(body.data.status).toBe('healthy');
    // The start line names the instance and its database, without the password.
    const started = srv.logs.lines.map((l) => JSON.parse(l)).find((l) => /^pksd listening on /.test(l.msg));
    expect(started).toMatchObject({ instance: expect.stringMatching(/^.+:\d+$/), user_database: shown.toString() });
    expect(srv.logs.text).not.toContain('probe-secret');

    await dropDatabase(postgres.cluster, url.toString());
    // The probe results are cached for 2 s: poll until a fresh round sees the database gone.
    await expect
      .poll(async () => (await (await srv!.fetch('/api/health', AUTH)).json()).data.checks.database.status)
      .toBe('error');
    const degraded = await (await srv.fetch('/api/health', AUTH)).json();
    expect(degraded.code).toBe(200);
    expect(degraded.data.status).toBe('degraded');
    expect(degraded.message).toBe('Dependency degraded.');
    expect(degraded.data.checks.database).toMatchObject({ backend: 'postgres', uri: shown.toString() });
    expect(JSON.stringify(degraded)).not.toContain('probe-secret');
  });
});
