/**
 * Distribution: the `npm pack` tarball installs `pks` and `pksd` into an empty prefix (`npm install -g`); both run
 * from there, and the installed `pksd serve` starts (its native SQLite binding loads) and answers its health
 * check. Needs a build (`npm run build`) and the npm cache `npm ci` filled, served on loopback as the registry (no
 * registry, no network).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startInstalledPksd } from '../support/installed.js';
import { startLocalRegistry } from '../support/local-registry.js';
import { REPO_ROOT } from '../support/pks.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pks-pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm pack → npm install -g', () => {
  it('installs pks and pksd into an empty prefix; both print their versions; pksd serve answers /api/health', async () => {
    const env = {
      ...process.env,
      NPM_CONFIG_UPDATE_NOTIFIER: 'false',
      NPM_CONFIG_FUND: 'false',
      NPM_CONFIG_AUDIT: 'false',
    };
    const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], {
      cwd: REPO_ROOT,
      env,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop()!;
    expect(name).toMatch(/^pks-\d+\.\d+\.\d+\.tgz$/);
    const prefix = path.join(dir, 'prefix');
    // The registry stood in for by the npm cache `npm ci` filled; async, as the stand-in answers from this process.
    const registry = await startLocalRegistry({
      lockfile: path.join(REPO_ROOT, 'package-lock.json'),
      cacheDir: execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim(),
    });
    try {
      await promisify(execFile)(
        'npm',
        ['install', '-g', '--prefix', prefix, '--loglevel=error', path.join(dir, name)],
        { env: { ...env, NPM_CONFIG_REGISTRY: registry.url, NPM_CONFIG_CACHE: path.join(dir, 'npm-cache') } },
      );
    } finally {
      await registry.close();
    }
    expect(registry.unanswered()).toEqual([]);
    const bin = path.join(prefix, 'bin');
    expect(readdirSync(bin).sort()).toEqual(['pks', 'pksd']);
    const clean = { PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: dir };
    expect(execFileSync('pks', ['--version'], { env: clean, cwd: dir, encoding: 'utf8' })).toMatch(
      /^pks \d+\.\d+\.\d+\n$/,
    );
    expect(execFileSync('pksd', ['--version'], { env: clean, cwd: dir, encoding: 'utf8' })).toMatch(
      /^pksd version \d+\.\d+\.\d+\n$/,
    );
    const serveDir = path.join(dir, 'serve');
    mkdirSync(serveDir);
    const server = await startInstalledPksd(bin, serveDir);
    try {
      const res = await fetch(`${server.url}/api/health`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { status: string } }).data.status).toBe('healthy');
    } finally {
      await server.stop();
    }
  }, 120_000);
});
