/**
 * `assets/install-pksd.sh` as a server serves it (version and public URL filled in): by default the server's own
 * tarball at `<server>/dist/pks-<version>.tgz`, installed only once it matches `<server>/dist/pks-<version>.tgz.sha256`
 * (issue 20); `--version`, `--dir`, `--server`, `--tarball` still honoured. Then the real thing: the script a running
 * pksd serves, run with bash into an empty prefix, installs a `pks` and a `pksd` that work. Needs a build
 * (`npm run build`) and the npm cache `npm ci` filled, which a loopback stand-in serves as the registry: the test
 * depends on neither the registry nor the network.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installerScript } from '../../../src/server/routes/installer-script.js';
import { startTestServer } from '../../support/server.js';
import { startInstalledPksd } from '../support/installed.js';
import { startLocalRegistry } from '../support/local-registry.js';
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

/** Runs `script` with `sh` and a recording npm (not spawnSync: the tarball server answers from this process). */
async function run(
  script: string,
  args: string[],
  options: { npmFails?: boolean; env?: Record<string, string> } = {},
): Promise<FakeRun> {
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
  const result = await runScript('/bin/sh', file, args, { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, ...options.env });
  let calls: string[] = [];
  try {
    calls = readFileSync(log, 'utf8').trim().split('\n');
  } catch {
    // npm never ran
  }
  return { ...result, calls };
}

/** A server's `/dist/` as the installer reads it: the tarball and its `.sha256`, which a test may tamper with. */
interface DistServer {
  readonly url: string;
  readonly tarball: Buffer;
  /** Served instead of the tarball when set (the published digest stays the real one's). */
  tampered: Buffer | null;
  /** Whether `/dist/pks-0.1.0.tgz.sha256` answers 404. */
  noChecksum: boolean;
  readonly requests: string[];
  close(): Promise<void>;
}

async function startDistServer(): Promise<DistServer> {
  const tarball = Buffer.from('pretend this is the npm pack tarball of pks 0.1.0\n');
  const state: DistServer = {
    url: '',
    tarball,
    tampered: null,
    noChecksum: false,
    requests: [],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    state.requests.push(req.url ?? '');
    if (req.url === '/dist/pks-0.1.0.tgz') return void res.writeHead(200).end(state.tampered ?? tarball);
    if (req.url === '/dist/pks-0.1.0.tgz.sha256' && !state.noChecksum) {
      return void res.writeHead(200).end(`${sha256(tarball)}  pks-0.1.0.tgz\n`);
    }
    res.writeHead(404).end('{"detail":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** `GET url` with this `Host` header. */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { host } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('install-pksd.sh (recording npm)', () => {
  const opt = path.join(dir, 'opt');
  const kept = path.join(opt, 'share', 'pksd', 'pks-0.1.0.tgz');
  let dist: DistServer;
  beforeAll(async () => {
    dist = await startDistServer();
  });
  afterAll(() => dist?.close());
  beforeEach(() => {
    dist.tampered = null;
    dist.noChecksum = false;
    rmSync(opt, { recursive: true, force: true });
  });

  it('downloads the tarball the server serves for its own version, checks its SHA-256, installs that file', async () => {
    const result = await run(installerScript('0.1.0', dist.url), ['--dir', opt]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.calls).toEqual([`install --prefix ${opt} --no-fund --no-audit ${kept}`]);
    expect(readFileSync(kept).equals(dist.tarball)).toBe(true);
    expect(result.stderr).toContain(`Downloading ${dist.url}/dist/pks-0.1.0.tgz\n`);
    expect(result.stderr).toContain(`SHA-256 ${sha256(dist.tarball)} verified\n`);
    expect(result.stderr).toContain('Next steps:');
  });

  it('a tarball that does not match the published SHA-256 → exit 1, nothing kept, npm never runs', async () => {
    dist.tampered = Buffer.concat([dist.tarball, Buffer.from('with a little something added')]);
    const result = await run(installerScript('0.1.0', dist.url), ['--dir', opt]);
    expect(result.status).toBe(1);
    expect(result.calls).toEqual([]);
    expect(existsSync(kept)).toBe(false);
    const url = `${dist.url}/dist/pks-0.1.0.tgz`;
    expect(result.stderr).toContain(
      `install-pksd: ${url} does not match its published SHA-256 (expected ${sha256(dist.tarball)}, ` +
        `got ${sha256(dist.tampered)}); nothing installed\n`,
    );
    expect(result.stderr).toContain(
      `install-pksd: could not download a verified ${url} (see above). Other sources: --tarball FILE (an npm pack file), or --version V (the npm registry)\n`,
    );
    expect(result.stderr).not.toContain('Next steps:');
  });

  it('no published SHA-256 → exit 1 before anything is installed', async () => {
    dist.noChecksum = true;
    const result = await run(installerScript('0.1.0', dist.url), ['--dir', opt]);
    expect(result.status).toBe(1);
    expect(result.calls).toEqual([]);
    expect(result.stderr).toContain(`install-pksd: ${dist.url}/dist/pks-0.1.0.tgz.sha256 answered HTTP 404\n`);
  });

  it('another --version (or PKSD_VERSION) comes from the registry; --tarball installs a file; --dir defaults to ~/.local', async () => {
    const script = installerScript('0.1.0', dist.url);
    expect((await run(script, ['--version', '0.2.0', '--dir', opt])).calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit pks@0.2.0`,
    ]);
    expect((await run(script, [], { env: { PKSD_VERSION: '0.3.0' } })).calls).toEqual([
      `install --prefix ${path.join(dir, '.local')} --no-fund --no-audit pks@0.3.0`,
    ]);
    expect((await run(script, ['--version=0.1.0'])).calls).toEqual([
      `install --prefix ${path.join(dir, '.local')} --no-fund --no-audit ${path.join(dir, '.local/share/pksd/pks-0.1.0.tgz')}`,
    ]);
    const tgz = path.join(dir, 'pks.tgz');
    writeFileSync(tgz, '');
    expect((await run(script, ['--tarball', tgz, '--dir', opt])).calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit ${tgz}`,
    ]);
  });

  it('without a server URL filled in, the registry package of the served version', async () => {
    expect((await run(unserved('0.1.0'), ['--dir', opt])).calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit pks@0.1.0`,
    ]);
  });

  it('served by a server that does not know its URL: --server names it, else exit 1 saying so', async () => {
    const script = installerScript('0.1.0', '');
    const refused = await run(script, ['--dir', opt]);
    expect(refused.status).toBe(1);
    expect(refused.calls).toEqual([]);
    expect(refused.stderr).toContain(
      'install-pksd: the server that served this script does not know its public URL (its operator can set SVC_PUBLIC_URL); pass --server URL (the address you downloaded this script from), or --version V (the npm registry)\n',
    );
    const named = await run(script, ['--dir', opt, '--server', dist.url]);
    expect(named.status, named.stderr).toBe(0);
    expect(named.calls).toEqual([`install --prefix ${opt} --no-fund --no-audit ${kept}`]);
    const bad = await run(script, ['--dir', opt, '--server=file:///etc']);
    expect([bad.status, bad.calls]).toEqual([1, []]);
    expect(bad.stderr).toContain('install-pksd: --server needs an http:// or https:// URL, not: file:///etc\n');
  });

  it('npm failing → exit 1 naming the other sources', async () => {
    const result = await run(installerScript('0.1.0', dist.url), ['--dir', opt], { npmFails: true });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `install-pksd: npm install of ${kept} failed (see npm's messages above). Other sources: --tarball FILE (an npm pack file), or --version V (the npm registry)\n`,
    );
    expect(result.stderr).not.toContain('Next steps:');
  });
});

function runScript(shell: string, file: string, args: string[], env: Record<string, string>) {
  return new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn(shell, [file, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

describe('install-pksd.sh from a running pksd (real npm, the registry stood in for by the npm cache)', () => {
  it('bash <served script> --dir <empty prefix> installs a pks that runs and a pksd that serves', async () => {
    // The packages of the lockfile, served on loopback from the cache `npm ci` filled: no registry, no network.
    const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
    const registry = await startLocalRegistry({
      lockfile: path.join(REPO_ROOT, 'package-lock.json'),
      cacheDir: npmCache,
    });
    const srv = await startTestServer();
    const prefix = path.join(dir, 'real-prefix');
    const home = path.join(dir, 'real-home');
    mkdirSync(home);
    try {
      // A raw Host header does not choose where the script downloads from (fetch would not send a forged one).
      const served = await getWithHost(`${srv.url}/install-pksd.sh`, 'evil.example');
      expect(served.status).toBe(200);
      expect(served.body).toContain(`\nSERVER_URL='${srv.url}'\n`);
      const file = path.join(dir, 'served-install.sh');
      writeFileSync(file, served.body);
      const result = await runScript('bash', file, ['--dir', prefix], {
        PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: home,
        NPM_CONFIG_REGISTRY: registry.url,
        NPM_CONFIG_CACHE: path.join(dir, 'real-npm-cache'),
        NPM_CONFIG_UPDATE_NOTIFIER: 'false',
      });
      expect(result.status, result.stderr).toBe(0);
      const tarball = path.join(prefix, 'share', 'pksd', 'pks-0.1.0.tgz');
      expect(result.stderr).toContain(`Downloading ${srv.url}/dist/pks-0.1.0.tgz\n`);
      const published = await (await srv.fetch('/dist/pks-0.1.0.tgz.sha256')).text();
      expect(published).toBe(`${sha256(readFileSync(tarball))}  pks-0.1.0.tgz\n`);
      expect(result.stderr).toContain(`SHA-256 ${published.split(' ')[0]} verified\n`);
      expect(result.stderr).toContain(`Installing ${tarball} into ${prefix}`);
      expect(JSON.parse(readFileSync(path.join(prefix, 'package.json'), 'utf8'))).toMatchObject({
        dependencies: { pks: 'file:share/pksd/pks-0.1.0.tgz' },
      });
      // Every package came from the stand-in, which had every one asked for.
      expect(registry.unanswered()).toEqual([]);
      expect(registry.requests.length).toBeGreaterThan(0);
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
      await registry.close();
    }
  }, 120_000);
});
