/**
 * Health probes are single-flight and cached for a moment: a burst of health calls (anonymous ones included)
 * runs the dependency probes, and so git, a handful of times at most.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Check, Probe } from '../../../src/server/health/probes.js';
import { HealthService } from '../../../src/server/health/service.js';
import { startTestServer, type TestServer } from '../../support/server.js';

/** A probe that counts its runs and finishes when told to. */
function countingProbe() {
  let runs = 0;
  let finish: () => void = () => undefined;
  const probe: Probe = {
    fields: {},
    run: () => {
      runs += 1;
      return new Promise<Check>((resolve) => {
        finish = () => resolve({ status: 'ok' });
      });
    },
  };
  return { probe, runs: () => runs, finish: () => finish() };
}

describe('HealthService', () => {
  it('joins a running round and reuses a settled one until it is older than the cache time', async () => {
    const raw = countingProbe();
    const still: Probe = { fields: {}, run: async () => ({ status: 'not_configured' }) };
    const health = new HealthService({ rawstore: raw.probe, graphdb: still, wiki: still }, 5_000, null, 200);
    const burst = Array.from({ length: 500 }, () => health.check());
    expect(raw.runs()).toBe(1);
    raw.finish();
    const bodies = await Promise.all(burst);
    expect(new Set(bodies.map((b) => b.data.checks.rawstore.status))).toEqual(new Set(['ok']));
    await health.check();
    expect(raw.runs()).toBe(1); // fresh: served from the settled round
    await expect
      .poll(async () => {
        const next = health.check();
        raw.finish();
        await next;
        return raw.runs();
      })
      .toBe(2);
  });
});

describe('GET /api/health under a burst', () => {
  let srv: TestServer;
  let shimDir: string;
  let wiki: string;
  let counter: string;
  const originalPath = process.env['PATH'];

  beforeAll(async () => {
    wiki = mkdtempSync(path.join(os.tmpdir(), 'wiki-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', wiki, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(wiki, 'qubit.md'), '---\nid: concept-qubit\n---\n');
    git('add', '.');
    git('commit', '-qm', 'first');
    // A `git` first on PATH that counts its invocations, then runs the real one.
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    shimDir = mkdtempSync(path.join(os.tmpdir(), 'git-shim-'));
    counter = path.join(shimDir, 'count');
    writeFileSync(counter, '');
    writeFileSync(path.join(shimDir, 'git'), `#!/bin/sh\necho x >> '${counter}'\nexec '${realGit}' "$@"\n`);
    chmodSync(path.join(shimDir, 'git'), 0o755);
    process.env['PATH'] = `${shimDir}:${originalPath}`;
    srv = await startTestServer({ SVC_WIKI_DIR: wiki });
  });
  afterAll(async () => {
    process.env['PATH'] = originalPath;
    await srv?.close();
    rmSync(shimDir, { recursive: true, force: true });
    rmSync(wiki, { recursive: true, force: true });
  });

  const gitRuns = () => readFileSync(counter, 'utf8').length / 2;

  it('500 anonymous calls in a burst start at most a handful of git processes', async () => {
    expect((await (await srv.fetch('/api/health')).json()).data.checks.wiki.status).toBe('ok');
    const before = gitRuns();
    expect(before).toBeGreaterThan(0); // the shim is the git the server runs
    const statuses = await Promise.all(
      Array.from({ length: 500 }, async () => {
        const res = await srv.fetch('/api/health');
        const body = (await res.json()) as { data: { checks: { wiki: { status: string } } } };
        return `${res.status} ${body.data.checks.wiki.status}`;
      }),
    );
    expect(new Set(statuses)).toEqual(new Set(['200 ok']));
    // One probe round runs four git commands; a burst spans a few 2 s cache windows at most.
    expect(gitRuns() - before).toBeLessThanOrEqual(16);
  });
});
