/**
 * NUL characters in request paths reaching the cluster stores (CONTRACT §7, §21): PostgreSQL TEXT cannot hold
 * U+0000, so the ingest task and parser-claim lookups of a server on PostgreSQL must answer what the embedded
 * database answers — the id matches nothing — never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usePostgres } from '../../support/postgres.js';
import { AUTH, startBackend, type Backend } from '../papers/helpers.js';

const postgres = usePostgres();

const cases: [string, string, string, number][] = [
  ['task status', 'GET', '/api/ingest/ab%00cd', 404],
  ['task continue', 'POST', '/api/ingest/ab%00cd/continue', 404],
  ['claim release', 'DELETE', '/api/papers/2501.00010v1/parser-claim/x%00y', 204],
];

describe.each([
  ['embedded SQLite', async () => ({}) as Record<string, string>],
  ['PostgreSQL', async () => ({ SVC_DB_URL: await postgres.newDatabase() })],
])('NUL in an id on %s: no match, as on every database', (_name, env) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await startBackend('local', null, await env());
  });
  afterAll(() => backend?.close());

  it.each(cases)('%s: %s %s → %i', async (_label, method, url, status) => {
    const res = await backend.server.fetch(url, { method, headers: AUTH });
    expect({ status: res.status, body: res.status === 204 ? '' : await res.text() }).toMatchObject({ status });
  });
});
