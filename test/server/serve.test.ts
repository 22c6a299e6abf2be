import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { spawnPksd, waitForOutput } from '../support/server.js';

// These tests run the built program (`npm run build`), as an operator would.
const SYSTEM_PAT = 'serve-test-system-pat-value-42';
const children: ReturnType<typeof spawnPksd>[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.child.exitCode === null) c.child.kill('SIGKILL');
});

async function serve(
  extraEnv: Record<string, string> = {},
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'pksd-serve-')),
) {
  const port = await freePort();
  const proc = spawnPksd(
    ['serve', `--http=127.0.0.1:${port}`],
    {
      HOME: dataDir,
      XDG_DATA_HOME: dataDir,
      SVC_WIKI_DIR: path.join(dataDir, 'wiki'),
      SVC_SYSTEM_PAT: SYSTEM_PAT,
      ...extraEnv,
    },
    dataDir,
  );
  children.push(proc);
  await waitForOutput(proc, (o) => o.stderr.includes('pksd listening on'));
  return { proc, url: `http://127.0.0.1:${port}`, dataDir };
}

describe('pksd serve (child process)', () => {
  it('listens on --http, logs the system PAT length and scopes but never its value', async () => {
    const { proc, url } = await serve();
    const res = await fetch(`${url}/api/health`, { headers: { Authorization: `Bearer ${SYSTEM_PAT}` } });
    expect((await res.json()).code).toBe(200);
    proc.child.kill('SIGTERM');
    const result = await proc.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`system PAT enabled (length ${SYSTEM_PAT.length}, scopes *)`);
    expect(result.stderr + result.stdout).not.toContain(SYSTEM_PAT);
    expect(result.stderr).toContain('pksd stopped');
  });

  it('SIGTERM lets an in-flight request finish, then exits 0', async () => {
    // An object store that accepts connections and never answers keeps the health probe busy for its 5 s timeout.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const storePort = (silent.address() as net.AddressInfo).port;
    try {
      const { proc, url } = await serve({
        SVC_OBJ_ENDPOINT: `http://127.0.0.1:${storePort}`,
        SVC_OBJ_ACCESS_KEY_ID: 'k',
        SVC_OBJ_SECRET_ACCESS_KEY: 'storage-secret-value',
        SVC_OBJ_BUCKET_PDF: 'p',
        SVC_OBJ_BUCKET_MD: 'm',
        SVC_OBJ_BUCKET_IMAGES: 'i',
      });
      const inFlight = fetch(`${url}/api/health`);
      await waitForOutput(proc, (o) => o.stderr.includes('"url":"/api/health"'));
      proc.child.kill('SIGTERM');
      const res = await inFlight;
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.message).toBe('Dependency degraded.');
      expect(body.data.checks.rawstore).toMatchObject({ status: 'error', backend: 's3-router', endpoint: 'redacted' });
      const result = await proc.done;
      expect(result.code).toBe(0);
      expect(result.stderr).not.toContain('storage-secret-value');
    } finally {
      silent.close();
    }
  });

  it('a second server on the same database directory refuses to start (exit 1)', async () => {
    const first = await serve();
    const port = await freePort();
    const second = await spawnPksd(
      ['serve', `--http=127.0.0.1:${port}`],
      {
        HOME: first.dataDir,
        XDG_DATA_HOME: first.dataDir,
        SVC_WIKI_DIR: path.join(first.dataDir, 'wiki'),
      },
      first.dataDir,
    ).done;
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `pksd: another pksd process is using ${path.join(first.dataDir, 'pksd', 'pb_data')}`,
    );
    first.proc.child.kill('SIGTERM');
    expect((await first.proc.done).code).toBe(0);
    // The lock is released on shutdown: a new server starts on the same directory.
    const third = await serve({}, first.dataDir);
    third.proc.child.kill('SIGTERM');
    expect((await third.proc.done).code).toBe(0);
  });

  it('a lock left by a killed server is taken over', async () => {
    const first = await serve();
    first.proc.child.kill('SIGKILL');
    await first.proc.done;
    const again = await serve({}, first.dataDir);
    again.proc.child.kill('SIGINT');
    expect((await again.proc.done).code).toBe(0);
  });

  it('SVC_FORCE_TCP4 binds an IPv4 socket even for a wildcard host', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pksd-tcp4-'));
    const port = await freePort();
    const proc = spawnPksd(
      ['serve', '--http-addr', `:${port}`, '--force-tcp4'],
      { HOME: dataDir, XDG_DATA_HOME: dataDir },
      dataDir,
    );
    children.push(proc);
    await waitForOutput(proc, (o) => o.stderr.includes('pksd listening on'));
    expect(proc.output().stderr).toContain(`pksd listening on http://0.0.0.0:${port}`);
    proc.child.kill('SIGTERM');
    expect((await proc.done).code).toBe(0);
  });
});
