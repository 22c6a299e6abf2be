import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectStoreConfig } from '../../../src/server/config/types.js';
import { startMoto, type MotoServer } from '../../support/moto.js';
import { graphEnv, startNeo4j, type Neo4jServer } from '../../support/neo4j.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { motoBuckets, objectStoreEnv } from '../storage/backends.js';

const SYSTEM_PAT = 'health-test-system-pat-0001';

function gitWiki(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wiki-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'qubit.md'), '---\nid: concept-qubit\n---\n');
  git('add', '.');
  git('commit', '-qm', 'first');
  return dir;
}

describe('GET /api/health with real dependencies', () => {
  let moto: MotoServer;
  let neo4j: Neo4jServer;
  let s3: ObjectStoreConfig;
  let srv: TestServer;
  let wiki: string;

  beforeAll(async () => {
    [moto, neo4j] = await Promise.all([startMoto(), startNeo4j()]);
    s3 = await motoBuckets(moto);
    wiki = gitWiki();
    srv = await startTestServer({
      SVC_SYSTEM_PAT: SYSTEM_PAT,
      ...objectStoreEnv(s3),
      ...graphEnv(neo4j),
      SVC_WIKI_DIR: wiki,
    });
  });
  afterAll(async () => {
    await srv?.close();
    await Promise.all([moto?.stop(), neo4j?.stop()]);
  });

  const health = async (token?: string) =>
    (await srv.fetch('/api/health', token ? { headers: { Authorization: `Bearer ${token}` } } : {})).json();

  it('is healthy with S3, Neo4j and the wiki checkout up, full details for a credential', async () => {
    const body = await health(SYSTEM_PAT);
    expect(body).toMatchObject({ code: 200, message: 'API is healthy.', data: { status: 'healthy' } });
    const { rawstore, graphdb, wiki: wikiCheck } = body.data.checks;
    expect(rawstore).toMatchObject({
      status: 'ok',
      backend: 's3-router',
      endpoint: moto.endpoint,
      buckets: Object.values(s3.buckets),
    });
    expect(Number.isInteger(rawstore.latency_ms)).toBe(true);
    expect(graphdb).toMatchObject({ status: 'ok', uri: neo4j.boltUri, database: null });
    expect(Number.isInteger(graphdb.latency_ms)).toBe(true);
    const commit = execFileSync('git', ['-C', wiki, 'rev-parse', '--short=7', 'HEAD']).toString().trim();
    expect(wikiCheck).toMatchObject({ status: 'ok', dir: wiki, commit, branch: 'main', dirty: false });
    expect(wikiCheck.commit_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('redacts endpoint, buckets, uri, database and dir for anonymous callers', async () => {
    const { rawstore, graphdb, wiki: wikiCheck } = (await health()).data.checks;
    expect(rawstore).toMatchObject({ endpoint: 'redacted', buckets: ['redacted', 'redacted', 'redacted'] });
    expect(graphdb.uri).toBe('redacted');
    expect(graphdb.database).toBeNull();
    expect(wikiCheck.dir).toBe('redacted');
    expect(JSON.stringify(await health())).not.toContain(moto.endpoint);
  });

  it('reports a dirty checkout (once the cached probe round has lapsed)', async () => {
    writeFileSync(path.join(wiki, 'untracked.md'), 'x');
    await expect.poll(async () => (await health(SYSTEM_PAT)).data.checks.wiki.dirty, { timeout: 10_000 }).toBe(true);
  });

  it('a missing bucket degrades the rawstore check with the bucket named', async () => {
    const other = await startTestServer({
      SVC_SYSTEM_PAT: SYSTEM_PAT,
      ...objectStoreEnv(s3),
      SVC_OBJ_BUCKET_MD: 'no-such-bucket',
    });
    try {
      const body = await (
        await other.fetch('/api/health', { headers: { Authorization: `Bearer ${SYSTEM_PAT}` } })
      ).json();
      expect(body.data.status).toBe('degraded');
      expect(body.data.checks.rawstore.status).toBe('error');
      expect(body.data.checks.rawstore.error).toMatch(/^bucket no-such-bucket: /);
    } finally {
      await other.close();
    }
  });

  it('is degraded (still HTTP 200) after the Neo4j server is stopped', async () => {
    await neo4j.stop();
    await expect.poll(async () => (await health(SYSTEM_PAT)).data.status, { timeout: 15_000 }).toBe('degraded');
    const res = await srv.fetch('/api/health', { headers: { Authorization: `Bearer ${SYSTEM_PAT}` } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ code: 200, message: 'Dependency degraded.', data: { status: 'degraded' } });
    expect(body.data.checks.graphdb).toMatchObject({ status: 'error', uri: neo4j.boltUri });
    expect(typeof body.data.checks.graphdb.error).toBe('string');
    expect(body.data.checks.rawstore.status).toBe('ok');
  });
});

describe('wiki check states', () => {
  it('a directory that is not a git work tree is an error; a missing one is not_configured', async () => {
    const plain = mkdtempSync(path.join(os.tmpdir(), 'plain-'));
    const srv = await startTestServer({ SVC_WIKI_DIR: plain, SVC_SYSTEM_PAT: SYSTEM_PAT });
    try {
      const body = await (
        await srv.fetch('/api/health', { headers: { Authorization: `Bearer ${SYSTEM_PAT}` } })
      ).json();
      expect(body.data.status).toBe('degraded');
      expect(body.data.checks.wiki).toMatchObject({ status: 'error', dir: plain });
      const anon = await (await srv.fetch('/api/health')).json();
      expect(anon.data.checks.wiki).toMatchObject({ status: 'error', dir: 'redacted', error: 'redacted' });
    } finally {
      await srv.close();
    }
  });
});
