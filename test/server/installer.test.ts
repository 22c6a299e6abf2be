/**
 * The installer routes: `GET /install-pksd.sh` filled in with the server's public base (CONTRACT §8.5: SVC_PUBLIC_URL,
 * a trusted proxy's forwarded origin or the listen address, never a raw `Host`), and `GET /dist/pks-<version>.tgz`,
 * this server's own `npm pack` tarball, built on demand into `<SVC_DATA_DIR>/dist/` (issue 13), with its SHA-256 at
 * `GET /dist/pks-<version>.tgz.sha256` (issue 20). The failure answers come from a built `pksd` (run `npm run build`
 * first) started without a usable npm.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PackageTarball } from '../../src/server/distribution/package-tarball.js';
import { VERSION } from '../../src/shared/version.js';
import { freePort } from '../support/free-port.js';
import { dirSettings, spawnPksd, waitForOutput } from '../support/server.js';
import { authHarness, type AuthHarness } from './auth/harness.js';

const TGZ = `pks-${VERSION}.tgz`;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'pksd-installer-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('GET /install-pksd.sh', () => {
  const script = async (h: AuthHarness, headers: Record<string, string>) => {
    const res = await h.inject({ method: 'GET', url: '/install-pksd.sh', headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/x-shellscript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    return { text: res.body, vary: res.headers['vary'] };
  };
  const serverUrlOf = (text: string) => /^SERVER_URL='(.*)'$/m.exec(text)?.[1];
  const forwarded = { host: 'internal:4200', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'pks.example.net' };

  it('never names a raw Host: without SVC_PUBLIC_URL or a trusted proxy, the listen address', async () => {
    const h = await authHarness({ SVC_HTTP_ADDR: '127.0.0.1:4321' });
    try {
      for (const headers of [{ host: 'evil.example' }, { host: 'pks.local:4200' }, forwarded]) {
        const { text, vary } = await script(h, headers);
        expect(serverUrlOf(text)).toBe('http://127.0.0.1:4321');
        expect(vary).toBeUndefined();
        expect(text).toContain(`SERVED_VERSION="${VERSION}"`);
        expect(text).not.toContain('__SERVER_URL__');
      }
    } finally {
      await h.close();
    }
  });

  it('a listen address that names no host (0.0.0.0, ::) leaves the URL empty; the script then asks for --server', async () => {
    for (const addr of ['0.0.0.0:4200', '[::]:4200']) {
      const h = await authHarness({ SVC_HTTP_ADDR: addr });
      try {
        expect(serverUrlOf((await script(h, { host: 'evil.example' })).text)).toBe('');
      } finally {
        await h.close();
      }
    }
    const v6 = await authHarness({ SVC_HTTP_ADDR: '[::1]:4200' });
    try {
      expect(serverUrlOf((await script(v6, { host: 'evil.example' })).text)).toBe('http://[::1]:4200');
    } finally {
      await v6.close();
    }
  });

  it('a trusted proxy: its X-Forwarded-Proto/-Host; its bare Host or a malformed forwarded host is not believed', async () => {
    const h = await authHarness({ SVC_TRUSTED_PROXIES: '127.0.0.0/8', SVC_HTTP_ADDR: '127.0.0.1:4321' });
    try {
      const proxied = await script(h, forwarded);
      expect(serverUrlOf(proxied.text)).toBe('https://pks.example.net');
      expect(proxied.vary).toBe('X-Forwarded-Host, X-Forwarded-Proto');
      expect(serverUrlOf((await script(h, { host: 'evil.example' })).text)).toBe('http://127.0.0.1:4321');
      const malformed = { ...forwarded, 'x-forwarded-host': 'evil example/' };
      expect(serverUrlOf((await script(h, malformed)).text)).toBe('http://127.0.0.1:4321');
    } finally {
      await h.close();
    }
  });

  it('SVC_PUBLIC_URL wins over every request header', async () => {
    const h = await authHarness({ SVC_PUBLIC_URL: 'https://papers.example.org', SVC_TRUSTED_PROXIES: '127.0.0.0/8' });
    try {
      for (const headers of [{ host: 'elsewhere:1' }, forwarded]) {
        const { text, vary } = await script(h, headers);
        expect(serverUrlOf(text)).toBe('https://papers.example.org');
        expect(vary).toBeUndefined();
      }
    } finally {
      await h.close();
    }
  });
});

describe('GET /dist/pks-<version>.tgz', () => {
  let h: AuthHarness;
  let base: string;
  beforeAll(async () => {
    h = await authHarness();
    base = await h.listen();
  });
  afterAll(() => h.close());

  it('200: the npm pack tarball of the running package, packed once into <SVC_DATA_DIR>/dist/', async () => {
    const [a, b] = await Promise.all([fetch(`${base}/dist/${TGZ}`), fetch(`${base}/dist/${TGZ}`)]);
    for (const res of [a, b]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/gzip');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${TGZ}"`);
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    }
    const bytes = Buffer.from(await a.arrayBuffer());
    expect(Buffer.from(await b.arrayBuffer()).equals(bytes)).toBe(true);
    expect(a.headers.get('content-length')).toBe(String(bytes.length));
    const dist = path.join(h.config.dataDir, 'dist');
    expect(readdirSync(dist)).toEqual([TGZ]);
    expect(readFileSync(path.join(dist, TGZ)).equals(bytes)).toBe(true);

    const file = path.join(tmp, 'served.tgz');
    writeFileSync(file, bytes);
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' }));
    expect(manifest).toMatchObject({ name: 'pks', version: VERSION, bin: { pks: 'bin/pks', pksd: 'bin/pksd' } });
    const entries = execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).split('\n');
    expect(entries).toEqual(expect.arrayContaining(['package/bin/pksd', 'package/assets/install-pksd.sh']));
    expect(entries.some((e) => e.startsWith('package/src/') || e.startsWith('package/test/'))).toBe(false);

    // Later requests serve the same file without packing again.
    const before = statSync(path.join(dist, TGZ)).mtimeMs;
    expect((await fetch(`${base}/dist/${TGZ}`, { method: 'HEAD' })).status).toBe(200);
    expect(statSync(path.join(dist, TGZ)).mtimeMs).toBe(before);

    // Its SHA-256, in sha256sum format, matches the bytes served (and `sha256sum -c` agrees).
    const sum = await fetch(`${base}/dist/${TGZ}.sha256`);
    expect(sum.status).toBe(200);
    expect(sum.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(sum.headers.get('cache-control')).toBe('public, max-age=300');
    const text = await sum.text();
    expect(text).toBe(`${createHash('sha256').update(bytes).digest('hex')}  ${TGZ}\n`);
    writeFileSync(path.join(tmp, `${TGZ}.sha256`), text);
    writeFileSync(path.join(tmp, TGZ), bytes);
    expect(execFileSync('sha256sum', ['-c', `${TGZ}.sha256`], { cwd: tmp, encoding: 'utf8' })).toBe(`${TGZ}: OK\n`);
    expect(readdirSync(dist)).toEqual([TGZ]);
  }, 120_000);

  it.each([
    'pks-0.0.1.tgz',
    'pks-99.0.0.tgz',
    `pks-${VERSION}.tar.gz`,
    'other.txt',
    `${TGZ}.sig`,
    'pks-0.0.1.tgz.sha256',
    `${TGZ}.SHA256`,
  ])('%s → 404 {"detail":"not found"}', async (name) => {
    const res = await fetch(`${base}/dist/${encodeURIComponent(name)}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'not found' });
  });
});

describe('a server that cannot pack its package', () => {
  /** Starts the built pksd with `PATH` as given and returns its answer to the tarball route (twice). */
  async function answers(name: string, pathValue: string) {
    const dir = path.join(tmp, name);
    mkdirSync(dir);
    const port = await freePort();
    const proc = spawnPksd(['serve'], {
      ...dirSettings(dir),
      SVC_HTTP_ADDR: `127.0.0.1:${port}`,
      PATH: pathValue,
      HOME: dir,
    });
    try {
      await waitForOutput(proc, (o) => o.stderr.includes('pksd listening on'));
      const url = `http://127.0.0.1:${port}`;
      const first = await fetch(`${url}/dist/${TGZ}`);
      const second = await fetch(`${url}/dist/${TGZ}`);
      const health = await fetch(`${url}/api/health`);
      return {
        status: [first.status, second.status],
        retryAfter: first.headers.get('retry-after'),
        body: await first.json(),
        again: await second.json(),
        health: health.status,
        dist: readdirSync(path.join(dir, 'data', 'dist')),
      };
    } finally {
      proc.child.kill('SIGTERM');
      await proc.done;
    }
  }

  it('no npm on its PATH → 503 with the reason and Retry-After: 60; the rest of the server is unaffected', async () => {
    expect(await answers('no-npm', path.join(tmp, 'empty-bin'))).toEqual({
      status: [503, 503],
      retryAfter: '60',
      body: { detail: 'package tarball unavailable: npm is not installed on the server (not found on its PATH)' },
      again: { detail: 'package tarball unavailable: npm is not installed on the server (not found on its PATH)' },
      health: 200,
      dist: [],
    });
  });

  it('npm pack fails → 503 with npm`s last error line; the failure is remembered (npm runs once a minute at most)', async () => {
    const bin = path.join(tmp, 'failing-npm');
    mkdirSync(bin);
    const calls = path.join(tmp, 'failing-npm-calls');
    writeFileSync(
      path.join(bin, 'npm'),
      `#!/bin/sh\necho "$*" >> '${calls}'\n` +
        `echo 'npm error code ENOSPC' >&2\necho 'npm error nospc no space left on device' >&2\n` +
        `echo 'npm error A complete log of this run can be found in: /root/.npm/_logs/x.log' >&2\nexit 1\n`,
      { mode: 0o755 },
    );
    const detail = 'package tarball unavailable: npm pack failed (exit code 1): nospc no space left on device';
    expect(await answers('failing', `${bin}:/usr/bin:/bin`)).toEqual({
      status: [503, 503],
      retryAfter: '60',
      body: { detail },
      again: { detail },
      health: 200,
      dist: [],
    });
    const lines = readFileSync(calls, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^pack --json --ignore-scripts --no-update-notifier --pack-destination \S+\/data\/dist\/\.pack-[0-9a-f]{12}$/,
    );
  });
});

describe('PackageTarball', () => {
  /** SHA-256 of the fake npm's tarball (`tarball`). */
  const TARBALL_SHA256 = createHash('sha256').update('tarball').digest('hex');

  /** A fake npm that records its calls, waits for `release` to exist, then writes a tarball where npm pack would. */
  function fakeNpm(name: string) {
    const dir = path.join(tmp, name);
    mkdirSync(dir);
    const npm = path.join(dir, 'npm');
    const calls = path.join(dir, 'calls');
    const release = path.join(dir, 'release');
    writeFileSync(
      npm,
      `#!/bin/sh\necho x >> '${calls}'\nwhile [ ! -f '${release}' ]; do sleep 0.02; done\n` +
        `[ -f '${dir}/fail' ] && { echo 'npm error broken' >&2; exit 1; }\n` +
        `dest="$6"\nprintf 'tarball' > "$dest/pks-9.9.9.tgz"\necho '[{"filename":"pks-9.9.9.tgz"}]'\n`,
      { mode: 0o755 },
    );
    const count = () => readFileSync(calls, 'utf8').trim().split('\n').length;
    return { dir, npm, count, release: () => writeFileSync(release, ''), fail: () => writeFileSync(`${dir}/fail`, '') };
  }

  it('concurrent requests share one build; the file is renamed into place under the served name', async () => {
    const fake = fakeNpm('shared');
    const out = path.join(fake.dir, 'dist');
    const tarball = new PackageTarball({ dir: out, fileName: 'pks-1.2.3.tgz', npm: fake.npm });
    const pending = [tarball.file(), tarball.file(), tarball.file()];
    fake.release();
    const files = await Promise.all(pending);
    expect(files).toEqual(Array(3).fill({ path: path.join(out, 'pks-1.2.3.tgz'), size: 7, sha256: TARBALL_SHA256 }));
    expect(fake.count()).toBe(1);
    expect(readdirSync(out)).toEqual(['pks-1.2.3.tgz']);
    // Deleted behind its back: packed again.
    rmSync(path.join(out, 'pks-1.2.3.tgz'));
    expect(await tarball.file()).toEqual({ path: path.join(out, 'pks-1.2.3.tgz'), size: 7, sha256: TARBALL_SHA256 });
    expect(fake.count()).toBe(2);
  });

  it('a failure is answered from memory for 60 s, then the build is tried again', async () => {
    const fake = fakeNpm('cooldown');
    fake.fail();
    fake.release();
    let now = 1_000_000;
    const tarball = new PackageTarball({
      dir: path.join(fake.dir, 'dist'),
      fileName: 'pks-1.2.3.tgz',
      npm: fake.npm,
      now: () => now,
    });
    const failure = 'package tarball unavailable: npm pack failed (exit code 1): broken';
    await expect(tarball.file()).rejects.toThrow(failure);
    now += 59_000;
    await expect(tarball.file()).rejects.toThrow(failure);
    expect(fake.count()).toBe(1);
    now += 1_000;
    rmSync(path.join(fake.dir, 'fail'));
    expect((await tarball.file()).size).toBe(7);
    expect(fake.count()).toBe(2);
  });
});
