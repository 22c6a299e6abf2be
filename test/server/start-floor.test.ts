/**
 * What `pksd serve` holds once it has started (docs/decisions.md "H13-FLOOR"): with neither a graph nor an arXiv
 * lookup yet, the Neo4j driver and the Atom parser are not loaded, and the start ran with the young generation held
 * (V8 let it grow to 2 × 16 MiB while the modules loaded, pages the process then kept). The program runs from its
 * sources, as shutdown.test.ts runs it; a probe preloaded into it records the packages it resolves and, on SIGUSR2,
 * writes them and the heap's young generation to a file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { dirSettings, REPO_ROOT, waitForOutput } from '../support/server.js';

const REGISTER = path.join(REPO_ROOT, 'test/support/upstreams/ts-register.mjs');
const PKSD = path.join(REPO_ROOT, 'test/support/pksd-source.ts');
const PAT = 'start-floor-test-system-pat-value';

const PROBE = `
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';
import v8 from 'node:v8';
const packages = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    const inModules = resolved.url.split('/node_modules/')[1];
    if (inModules !== undefined) packages.add(inModules.split('/').slice(0, inModules.startsWith('@') ? 2 : 1).join('/'));
    return resolved;
  },
});
process.on('SIGUSR2', () => {
  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  writeFileSync(process.env.PROBE_OUT, JSON.stringify({ packages: [...packages], youngMiB: young.space_size / 1048576 }));
});
`;

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('a start without a graph loads neither the Neo4j driver nor the Atom parser, and keeps its young generation small', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pksd-start-floor-'));
  dirs.push(dir);
  const probe = path.join(dir, 'probe.mjs');
  const out = path.join(dir, 'probe.json');
  writeFileSync(probe, PROBE);
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', REGISTER, '--import', probe, PKSD, 'serve'], {
    cwd: dir,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: dir,
      ...dirSettings(dir),
      SVC_HTTP_ADDR: `127.0.0.1:${port}`,
      SVC_SYSTEM_PAT: PAT,
      PROBE_OUT: out,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.resume();
  const proc = { child, output: () => ({ stdout: '', stderr }) };
  await waitForOutput(proc, (o) => o.stderr.includes('pksd listening on'), 120_000);

  const res = await fetch(`http://127.0.0.1:${port}/api/papers/needs-parser?limit=1`, {
    headers: { Authorization: `Bearer ${PAT}` },
  });
  expect(res.status).toBe(200);
  await res.body?.cancel();

  child.kill('SIGUSR2');
  const seen = await new Promise<{ packages: string[]; youngMiB: number }>((resolve, reject) => {
    const deadline = Date.now() + 30_000;
    const poll = () => {
      try {
        resolve(JSON.parse(readFileSync(out, 'utf8')) as { packages: string[]; youngMiB: number });
      } catch {
        if (Date.now() > deadline) reject(new Error(`no probe output; stderr=${stderr}`));
        else setTimeout(poll, 50);
      }
    };
    poll();
  });
  // The probe sees the packages the server does load (a check that it works) …
  expect(seen.packages).toEqual(expect.arrayContaining(['fastify', 'better-sqlite3']));
  // … and not those only a configured graph or the first arXiv metadata lookup needs.
  expect(seen.packages).not.toContain('neo4j-driver');
  expect(seen.packages).not.toContain('neo4j-driver-bolt-connection');
  expect(seen.packages).not.toContain('fast-xml-parser');
  // Held, the young generation starts at 2 × 1 MiB and may have doubled once since; V8's own factor took it to 32.
  expect(seen.youngMiB).toBeLessThanOrEqual(8);
}, 180_000);
