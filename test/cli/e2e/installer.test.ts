/**
 * `assets/install-pksd.sh` as a server serves it (version and public URL filled in): by default the server's own
 * tarball at `<server>/dist/pks-<version>.tgz`; `--version`, `--dir`, `--tarball` still honoured. Then the real
 * thing: the script a running pksd serves, run with bash into an empty prefix, installs a `pks` and a `pksd` that
 * work (needs a build, and the npm registry or a warm npm cache).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installerScript } from '../../../src/server/routes/installer-script.js';
import { startTestServer } from '../../support/server.js';
import { startInstalledPksd } from '../support/installed.js';
import { REPO_ROOT } from '../support/pks.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pks-installer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The template with only the version filled in (a script not served by a server). */
const unserved = (version: string) =>
  readFileSync(path.join(REPO_ROOT, 'assets/install-pksd.sh'), 'utf8').replaceAll('__VERSION__', version);

interface FakeRun {
  status: number | null;
  /** npm's arguments, one line per call. */
  calls: string[];
  stderr: string;
}

function run(script: string, args: string[], options: { npmFails?: boolean; env?: Record<string, string> } = {}) {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const log = path.join(dir, 'npm-args');
  rmSync(log, { force: true });
  writeFileSync(
    path.join(bin, 'npm'),
    `#!/bin/sh\necho "$*" >> "${log}"\n` +
      (options.npmFails ? 'echo "npm error 503 Service Unavailable" >&2\nexit 1\n' : ''),
  );
  chmodSync(path.join(bin, 'npm'), 0o755);
  rmSync(path.join(bin, 'node'), { force: true });
  symlinkSync(process.execPath, path.join(bin, 'node'));
  const file = path.join(dir, 'install.sh');
  writeFileSync(file, script);
  execFileSync('sh', ['-n', file]);
  const result = spawnSync('/bin/sh', [file, ...args], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, ...options.env },
    encoding: 'utf8',
  });
  let calls: string[] = [];
  try {
    calls = readFileSync(log, 'utf8').trim().split('\n');
  } catch {
    // npm never ran
  }
  return { status: result.status, calls, stderr: result.stderr } satisfies FakeRun;
}

describe('install-pksd.sh (recording npm)', () => {
  const opt = path.join(dir, 'opt');

  it('installs the tarball the server serves for its own version', () => {
    const result = run(installerScript('0.1.0', 'https://pks.example.org'), ['--dir', opt]);
    expect(result.status).toBe(0);
    expect(result.calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit https://pks.example.org/dist/pks-0.1.0.tgz`,
    ]);
    expect(result.stderr).toContain('Next steps:');
  });

  it('another --version (or PKSD_VERSION) comes from the registry; --tarball installs a file; --dir defaults to ~/.local', () => {
    const script = installerScript('0.1.0', 'http://h:4200');
    expect(run(script, ['--version', '0.2.0', '--dir', opt]).calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit pks@0.2.0`,
    ]);
    expect(run(script, [], { env: { PKSD_VERSION: '0.3.0' } }).calls).toEqual([
      `install --prefix ${path.join(dir, '.local')} --no-fund --no-audit pks@0.3.0`,
    ]);
    expect(run(script, ['--version=0.1.0']).calls).toEqual([
      `install --prefix ${path.join(dir, '.local')} --no-fund --no-audit http://h:4200/dist/pks-0.1.0.tgz`,
    ]);
    const tgz = path.join(dir, 'pks.tgz');
    writeFileSync(tgz, '');
    expect(run(script, ['--tarball', tgz, '--dir', opt]).calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit ${tgz}`,
    ]);
  });

  it('without a server URL filled in, the registry package of the served version', () => {
    expect(run(unserved('0.1.0'), ['--dir', opt]).calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit pks@0.1.0`,
    ]);
  });

  it('npm failing → exit 1 naming the other sources', () => {
    const result = run(installerScript('0.1.0', 'http://h:4200'), ['--dir', opt], { npmFails: true });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "install-pksd: npm install of http://h:4200/dist/pks-0.1.0.tgz failed (see npm's messages above). Other sources: --tarball FILE (an npm pack file), or --version V (the npm registry)\n",
    );
    expect(result.stderr).not.toContain('Next steps:');
  });
});

function runScript(file: string, args: string[], env: Record<string, string>) {
  return new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn('bash', [file, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

describe('install-pksd.sh from a running pksd (real npm)', () => {
  it('bash <served script> --dir <empty prefix> installs a pks that runs and a pksd that serves', async () => {
    const srv = await startTestServer();
    const prefix = path.join(dir, 'real-prefix');
    const home = path.join(dir, 'real-home');
    mkdirSync(home);
    try {
      const res = await srv.fetch('/install-pksd.sh');
      expect(res.status).toBe(200);
      const file = path.join(dir, 'served-install.sh');
      writeFileSync(file, await res.text());
      // A fresh HOME (no user npm config); the machine's npm cache so that nothing is resolved twice.
      const cache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
      // Not spawnSync: the server answering npm's download runs in this process.
      const result = await runScript(file, ['--dir', prefix], {
        PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: home,
        NPM_CONFIG_CACHE: cache,
        NPM_CONFIG_PREFER_OFFLINE: 'true',
        NPM_CONFIG_UPDATE_NOTIFIER: 'false',
      });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toContain(`Installing ${srv.url}/dist/pks-0.1.0.tgz into ${prefix}`);
      expect(JSON.parse(readFileSync(path.join(prefix, 'package.json'), 'utf8'))).toMatchObject({
        dependencies: { pks: `${srv.url}/dist/pks-0.1.0.tgz` },
      });
      const bin = path.join(prefix, 'node_modules', '.bin');
      const clean = { PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home };
      expect(execFileSync('pks', ['--version'], { env: clean, cwd: home, encoding: 'utf8' })).toBe('pks 0.1.0\n');
      const serveDir = path.join(dir, 'real-serve');
      mkdirSync(serveDir);
      const installed = await startInstalledPksd(bin, serveDir);
      try {
        const health = await fetch(`${installed.url}/api/health`);
        expect(health.status).toBe(200);
        expect(((await health.json()) as { data: { version: string } }).data.version).toBe('0.1.0');
      } finally {
        await installed.stop();
      }
    } finally {
      await srv.close();
    }
  }, 600_000);
});
