import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/shared/version.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { TEST_USER_DB } from '../support/user-db.js';
import { NEWEST_SCHEMA } from './db/newest-schema.js';

const SYSTEM_PAT = 'system-pat-for-app-tests-0001';

describe('public endpoints', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_SYSTEM_PAT: SYSTEM_PAT });
  });
  afterAll(() => srv.close());

  it('GET /api/health answers the envelope with code 200, redacted for anonymous callers', async () => {
    const res = await srv.fetch('/api/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = await res.json();
    expect(body).toMatchObject({
      code: 200,
      message: 'API is healthy.',
      data: { status: 'healthy', version: VERSION },
    });
    expect(body.data.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number.isInteger(body.data.uptime_seconds)).toBe(true);
    expect(body.data.checks).toEqual({
      rawstore: { status: 'ok', backend: 'local', dir: 'redacted' },
      graphdb: { status: 'not_configured' },
      wiki: { status: 'not_configured', dir: 'redacted' },
      database: {
        status: 'ok',
        ...(TEST_USER_DB === 'postgres'
          ? { backend: 'postgres', uri: 'redacted' }
          : { backend: 'sqlite', dir: 'redacted' }),
        schema_version: NEWEST_SCHEMA,
        latency_ms: expect.any(Number),
      },
    });
  });

  it('GET /api/health shows internal addresses to a valid credential only', async () => {
    const full = await (await srv.fetch('/api/health', { headers: { Authorization: `Bearer ${SYSTEM_PAT}` } })).json();
    expect(full.data.checks.rawstore.dir).toBe(srv.config.rawDir);
    expect(full.data.checks.wiki.dir).toBe(srv.config.wikiDir);
    const bad = await (await srv.fetch('/api/health', { headers: { Authorization: 'Bearer not-a-token' } })).json();
    expect(bad.data.checks.rawstore.dir).toBe('redacted');
  });

  it('GET /api/server/info describes the engine', async () => {
    const res = await srv.fetch('/api/server/info');
    expect(await res.json()).toEqual({
      mode: 'server',
      version: VERSION,
      engine: 'node',
      node_version: process.version,
      paper_access: false,
      graph_configured: false,
      oauth_enabled: false,
      mcp: true,
    });
  });

  it('GET /api/pat/scopes lists the fixed vocabulary', async () => {
    const body = await (await srv.fetch('/api/pat/scopes')).json();
    expect(body.max_expiry_days).toBe(365);
    expect(body.scopes.map((s: { name: string }) => s.name)).toEqual([
      'wiki:read',
      'wiki:write',
      'papers:read',
      'papers:write',
      'graph:read',
    ]);
    expect(body.scopes[1].description).toBe('Pull the wiki checkout (fast-forward); implies wiki:read');
  });

  it('every /api/* response carries X-Svc-Server-Version (and X-Qatlas-Server-Version, §19) and X-Attribution, errors included', async () => {
    for (const p of ['/api/health', '/api/nope', '/api/pat/scopes']) {
      const res = await srv.fetch(p);
      expect(res.headers.get('x-svc-server-version')).toBe(VERSION);
      expect(res.headers.get('x-qatlas-server-version')).toBe(VERSION);
      expect(res.headers.get('x-attribution')).toBe('OpenAlex (CC0), Crossref (CC0), arXiv');
    }
    expect((await srv.fetch('/')).headers.get('x-svc-server-version')).toBeNull();
    expect((await srv.fetch('/')).headers.get('x-qatlas-server-version')).toBeNull();
  });

  it('unknown /api/* paths are JSON 404, never the SPA shell, whatever the credential', async () => {
    for (const headers of [{}, { Authorization: `Bearer ${SYSTEM_PAT}` }, { Authorization: 'Bearer junk' }] as Record<
      string,
      string
    >[]) {
      for (const p of ['/api/nope', '/api/', '/api/pages-typo/x?y=1']) {
        const res = await srv.fetch(p, { headers });
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ detail: 'not found' });
      }
    }
  });

  it('a registered path with the wrong method is 405', async () => {
    const res = await srv.fetch('/api/health', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ detail: 'method not allowed' });
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('serves the SPA placeholder with index fallback for any other GET', async () => {
    for (const p of ['/', '/login', '/wiki/algo-shor?x=1']) {
      const res = await srv.fetch(p);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('<title>pks');
    }
  });

  it('serves /install-pksd.sh as a POSIX sh installer for this version', async () => {
    const res = await srv.fetch('/install-pksd.sh');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/x-shellscript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const script = await res.text();
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    expect(script).toContain(`PKSD_VERSION:-${VERSION}`);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'installer-'));
    const file = path.join(dir, 'install.sh');
    writeFileSync(file, script);
    execFileSync('sh', ['-n', file]);
    // A Node-less PATH must stop with a clear message and exit 1.
    mkdirSync(path.join(dir, 'bin'));
    let failure: { status: number; stderr: string } | null = null;
    try {
      execFileSync('/bin/sh', [file], {
        env: { PATH: path.join(dir, 'bin') + ':/usr/bin/nonexistent', HOME: dir },
        stdio: 'pipe',
      });
    } catch (err) {
      const e = err as { status: number; stderr: Buffer };
      failure = { status: e.status, stderr: e.stderr.toString() };
    }
    expect(failure?.status).toBe(1);
    expect(failure?.stderr).toContain('Node.js >= 20 is required');
  });

  // The server's own tarball (downloaded and checked against its SHA-256): test/cli/e2e/installer.test.ts.
  it('the installer installs a version or a tarball and prints next steps', async () => {
    const script = await (await srv.fetch('/install-pksd.sh')).text();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'installer-run-'));
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(dir, 'install.sh'), script);
    // A recording npm; the real node answers the version check.
    writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho "$*" >> "${dir}/npm-args"\n`, { mode: 0o755 });
    execFileSync('ln', ['-s', process.execPath, path.join(bin, 'node')]);
    const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: dir };
    const first = spawnSync(
      '/bin/sh',
      [path.join(dir, 'install.sh'), '--version', '9.9.9', '--dir', path.join(dir, 'opt')],
      {
        env,
        encoding: 'utf8',
      },
    );
    expect(first.status).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toContain('Next steps:');
    expect(first.stderr).toContain('pksd serve');
    expect(first.stderr).toMatch(/\((Linux|Darwin)\/\S+, node v\d+/);
    writeFileSync(path.join(dir, 'pks.tgz'), '');
    const tarball = execFileSync('/bin/sh', [path.join(dir, 'install.sh'), '--tarball', path.join(dir, 'pks.tgz')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    expect(tarball).toBe('');
    const calls = readFileSync(path.join(dir, 'npm-args'), 'utf8').trim().split('\n');
    expect(calls).toEqual([
      `install --prefix ${path.join(dir, 'opt')} --no-fund --no-audit pks@9.9.9`,
      `install --prefix ${path.join(dir, '.local')} --no-fund --no-audit ${path.join(dir, 'pks.tgz')}`,
    ]);
    let stderr = '';
    try {
      execFileSync('/bin/sh', [path.join(dir, 'install.sh'), '--bogus'], { env, stdio: 'pipe' });
    } catch (err) {
      stderr = String((err as { stderr: Buffer }).stderr);
    }
    expect(stderr).toContain('install-pksd: unknown option: --bogus');
  });

  it('serves the interactive API page and the OpenAPI 2.0 document', async () => {
    const page = await srv.fetch('/swagger/index.html', { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<div id="swagger-ui"></div>');
    // Its assets are bundled with the server: no external CDN, and every one of them is served.
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) {
      expect(asset.startsWith('/swagger/'), asset).toBe(true);
      expect((await srv.fetch(asset)).status, asset).toBe(200);
    }
    const doc = await (await srv.fetch('/swagger/doc.json')).json();
    expect(doc.swagger).toBe('2.0');
    expect(doc.securityDefinitions).toEqual({ Bearer: { type: 'apiKey', name: 'Authorization', in: 'header' } });
  });
});

describe('OpenAPI document', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv.close());

  it('lists every registered route of the route table', async () => {
    const doc = (await (await srv.fetch('/swagger/doc.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)),
    );
    const routes = srv.server.app.routeTable.filter((r) => !r.url.startsWith('/swagger'));
    expect(routes.length).toBeGreaterThan(3);
    for (const r of routes) {
      if (r.url.endsWith('*')) {
        // A wildcard dispatcher documents each of its actions as a path below its prefix.
        const prefix = `${r.method} ${r.url.slice(0, -1)}`;
        expect(
          [...documented].some((d) => d.startsWith(prefix)),
          `${r.method} ${r.url}`,
        ).toBe(true);
        continue;
      }
      const swaggerPath = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      expect(documented, `${r.method} ${r.url}`).toContain(`${r.method} ${swaggerPath}`);
    }
  });

  it('every route carries a guard decision', () => {
    const kinds = ['public', 'auth', 'scope', 'session', 'superuser', 'superuser-or-session'];
    for (const r of srv.server.app.routeTable) expect(kinds).toContain(r.guard.kind);
    // The admin data routes (§7.9) declare what they need instead of `public`.
    const admin = srv.server.app.routeTable.filter((r) => r.url.startsWith('/api/collections/users/records'));
    expect(admin.map((r) => `${r.method} ${r.url} ${r.guard.kind}`)).toContain(
      'GET /api/collections/users/records superuser',
    );
  });
});

describe('SPA from a built front end', () => {
  it('serves static files and falls back to index.html', async () => {
    const web = mkdtempSync(path.join(os.tmpdir(), 'web-'));
    writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>app shell</title>');
    mkdirSync(path.join(web, 'assets'));
    writeFileSync(path.join(web, 'assets', 'app.js'), 'console.log(1)');
    const srv = await startTestServer({}, { webRoot: web });
    try {
      const js = await srv.fetch('/assets/app.js');
      expect(js.status).toBe(200);
      expect(await js.text()).toBe('console.log(1)');
      const deep = await srv.fetch('/pat');
      expect(await deep.text()).toContain('app shell');
      const escape = await srv.fetch('/..%2f..%2fetc%2fpasswd');
      expect(await escape.text()).toContain('app shell');
    } finally {
      await srv.close();
    }
  });
});

describe('logs', () => {
  it('never contain the system PAT or other secrets, only the PAT length and scopes', async () => {
    const secrets = {
      SVC_SYSTEM_PAT: 'log-scan-system-pat-0123456789',
      GRAPHDB_PASSWORD: 'log-scan-graph-password',
      IDP_CLIENT_SECRET: 'log-scan-idp-secret',
    };
    const srv = await startTestServer({
      ...secrets,
      SVC_SYSTEM_PAT_SCOPES: 'wiki:read,graph:read',
      GRAPHDB_URI: 'bolt://127.0.0.1:1',
      IDP_CLIENT_ID: 'id',
    });
    try {
      for (const auth of [secrets.SVC_SYSTEM_PAT, secrets.SVC_SYSTEM_PAT + 'x', 'pat_wrong']) {
        await srv.fetch('/api/health', { headers: { Authorization: `Bearer ${auth}` } });
        await srv.fetch('/api/nope', { headers: { Authorization: `Bearer ${auth}` } });
      }
    } finally {
      await srv.close();
    }
    expect(srv.logs.text).toContain('system PAT enabled (length 30, scopes wiki:read,graph:read)');
    expect(srv.logs.lines.length).toBeGreaterThan(5);
    for (const value of Object.values(secrets)) expect(srv.logs.text).not.toContain(value);
  });
});

describe('audit labels', () => {
  it('label request logs with the credential kind and the proxy user header, which never authenticates', async () => {
    const pat = 'audit-test-system-pat-000001';
    const srv = await startTestServer({ SVC_SYSTEM_PAT: pat, SVC_USER_HEADER: 'X-Forwarded-User' });
    try {
      const anonymous = await srv.fetch('/api/pages', { headers: { 'X-Forwarded-User': 'mallory' } });
      expect(anonymous.status).toBe(401);
      const res = await srv.fetch('/api/pages', {
        headers: { Authorization: `Bearer ${pat}`, 'X-Forwarded-User': 'alice' },
      });
      expect(res.status).toBe(200);
    } finally {
      await srv.close();
    }
    const completed = srv.logs.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'request completed');
    expect(completed.some((l) => l['auth'] === 'system-pat' && l['user_header'] === 'alice')).toBe(true);
    const refused = completed.find((l) => l['user_header'] === 'mallory');
    expect(refused).toMatchObject({ res: { statusCode: 401 } });
    expect(refused?.['auth']).toBeUndefined();
  });
});
