/**
 * Schemathesis against a running pksd (CONTRACT §8.4: the document is generated from the schemas that validate
 * requests, so it must tell the truth): with the system PAT, without credentials, with a user session (the
 * session-only routes past their guard) and with a superuser token (the admin routes past theirs), each with a fixed
 * seed and a bounded budget. No answer is a 5xx, every answer has a documented status, media type, headers and body schema;
 * afterwards the server still answers and its memory stayed bounded. The counts are printed.
 *
 * The server runs with local storage, a wiki checkout that has an upstream (so pulls succeed), no graph and no
 * paper access; its upstreams point at a closed loopback port, so nothing leaves the machine.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestIdentity, REPO_ROOT, startTestServer, testUser, type TestServer } from '../support/server.js';

const SCHEMATHESIS = path.join(REPO_ROOT, '.cache/venv/bin/schemathesis');
const HOOKS = path.join(import.meta.dirname, 'schemathesis_hooks.py');
/** Which checks run (all but two, for stated reasons) and the one contract exception. */
const CONFIG = path.join(import.meta.dirname, 'schemathesis.toml');
const SYSTEM_PAT = 'schemathesis-system-pat-0001';
const SUPERUSER = { email: 'fuzz-root@example.org', password: 'schemathesis superuser password' };
/** Signing out ends every session of the user: the session run leaves that one operation out. */
const LOGOUT = '/api/collections/users/auth-logout';
const SEED = '20260501';
const EXAMPLES_PER_OPERATION = '100';
/** No answer comes from a port nobody listens on; every upstream call fails at once. */
const CLOSED_PORT = 'http://127.0.0.1:9';

interface Report {
  readonly running_time: number;
  readonly operations: { readonly selected: number; readonly tested: number };
  readonly test_cases: { readonly generated: number; readonly with_failures: number; readonly unique_failures: number };
  readonly failures: readonly { readonly code: string; readonly title: string; readonly operations: string[] }[];
  readonly errors: readonly unknown[];
}

/** A wiki checkout cloned from a local bare repository, so `POST /api/wiki/sync/pull` fast-forwards. */
function wikiWithUpstream(dir: string): string {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'pipe' });
  const origin = path.join(dir, 'origin.git');
  const wiki = path.join(dir, 'wiki');
  git(dir, 'init', '-q', '--bare', '-b', 'main', origin);
  git(dir, 'clone', '-q', origin, wiki);
  cpSync(path.join(REPO_ROOT, 'sample-wiki'), wiki, { recursive: true });
  git(wiki, 'add', '.');
  git(wiki, 'commit', '-qm', 'sample wiki');
  git(wiki, 'push', '-q', '-u', 'origin', 'main');
  return wiki;
}

/** Runs Schemathesis to completion (asynchronously: the server answers from this process meanwhile). */
function runSchemathesis(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(SCHEMATHESIS, args, {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: os.tmpdir(),
        SCHEMATHESIS_HOOKS: HOOKS,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe.sequential('Schemathesis against pksd', () => {
  let dir: string;
  let srv: TestServer;
  let rssAfterStart = 0;
  const tokens = { session: '', superuser: '' };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pks-fuzz-'));
    srv = await startTestServer({
      SVC_SYSTEM_PAT: SYSTEM_PAT,
      SVC_WIKI_DIR: wikiWithUpstream(dir),
      SVC_LOG_LEVEL: 'error',
      SVC_PREPRINT_BASE_URL: CLOSED_PORT,
      SVC_SCHOLARLY_BASE_URL: CLOSED_PORT,
    });
    expect((await srv.fetch('/api/health')).status).toBe(200);
    const identity = await openTestIdentity(srv.config);
    try {
      tokens.session = identity.sessions.issue(await testUser(identity, 'alice'));
      await identity.superusers.upsert(SUPERUSER.email, SUPERUSER.password);
      const superuser = await identity.superusers.authenticate(SUPERUSER.email, SUPERUSER.password);
      tokens.superuser = identity.superusers.issue(superuser!);
    } finally {
      await identity.close();
    }
    rssAfterStart = process.memoryUsage().rss;
  });
  afterAll(async () => {
    await srv?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Each run: its credential (read when the run starts: the tokens are made in `beforeAll`), and a request that
   * only that credential passes, asked afterwards — the credential held for the whole run.
   */
  const runs: [string, () => string | null, string | null][] = [
    ['with the system PAT', () => SYSTEM_PAT, '/api/papers/stats'],
    ['without credentials', () => null, null],
    ['with a user session', () => tokens.session, '/api/pat'],
    ['with a superuser token', () => tokens.superuser, '/api/admin/settings'],
  ];

  it.each(runs)(
    '%s: no 5xx, every answer as documented',
    async (label, token, probe) => {
      const credentials = token() === null ? [] : ['-H', `Authorization: Bearer ${token()}`];
      // Signing out would end the session for the rest of its run.
      if (token() === tokens.session) credentials.push('--exclude-path', LOGOUT);
      const reportPath = path.join(dir, `report-${label.replace(/\W+/g, '-')}.json`);
      const { code, output } = await runSchemathesis([
        '--config-file',
        CONFIG,
        'run',
        `${srv.url}/swagger/doc.json`,
        ...credentials,
        '--seed',
        SEED,
        '--max-examples',
        EXAMPLES_PER_OPERATION,
        '--workers',
        '1',
        '--phases',
        'examples,coverage,fuzzing',
        '--no-shrink',
        '--request-timeout',
        '30',
        '--warnings',
        'off',
        '--report',
        'json',
        '--report-json-path',
        reportPath,
      ]);
      const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Report;
      const { generated, unique_failures } = report.test_cases;
      console.log(
        `schemathesis ${label}: ${generated} test cases on ${report.operations.tested}/${report.operations.selected} ` +
          `operations, ${unique_failures} failures, ${report.errors.length} errors, ` +
          `${report.running_time.toFixed(1)} s (seed ${SEED}, ${EXAMPLES_PER_OPERATION} examples per operation)`,
      );
      const summary = output.slice(Math.max(0, output.indexOf('FAILURES')));
      expect(report.failures, summary).toEqual([]);
      expect(report.errors, summary).toEqual([]);
      expect(code, summary).toBe(0);
      expect(report.operations.tested).toBe(report.operations.selected);
      expect(generated).toBeGreaterThan(500);
      if (probe !== null) {
        const still = await srv.fetch(probe, { headers: { Authorization: `Bearer ${token()}` } });
        expect(still.status, `${probe} after the run`).toBe(200);
      }
    },
    // A run takes 1–3 min; on a loaded 2-core machine (load 20) one took 170 s, and two beside four busy helpers
    // (load 15–22) passed 480 s. The budget is the example count; the timeout only catches a hang.
    900_000,
  );

  it('the server is alive afterwards and its memory stayed bounded', async () => {
    const res = await srv.fetch('/api/health', { headers: { Authorization: `Bearer ${SYSTEM_PAT}` } });
    expect(res.status).toBe(200);
    expect((await res.json()).data.status).toBe('healthy');
    const rss = process.memoryUsage().rss;
    console.log(
      `pksd rss: ${(rssAfterStart / 2 ** 20).toFixed(0)} MiB after start, ${(rss / 2 ** 20).toFixed(0)} MiB after fuzzing`,
    );
    expect(rss).toBeLessThan(rssAfterStart + 256 * 2 ** 20);
  });
});
