import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { REPO_ROOT } from '../support/server.js';

describe('README command 1: scripts/dev-server.sh', () => {
  it('starts pksd on embedded defaults with the sample wiki and prints a working token', async () => {
    const devDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'dev-server-')), 'dev');
    const port = await freePort();
    const child = spawn('bash', ['scripts/dev-server.sh'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env['PATH'],
        HOME: os.homedir(),
        PKS_DEV_DIR: devDir,
        SVC_HTTP_ADDR: `127.0.0.1:${port}`,
        PKS_DEV_PREPARED: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const listening = new Promise<void>((resolve, reject) => {
        child.stderr.on('data', () => stderr.includes('pksd listening on') && resolve());
        child.on('exit', (code) => reject(new Error(`dev server exited ${code}: ${stderr}`)));
      });
      await listening;
      const token = /Bearer ([^']+)'/.exec(stderr)?.[1];
      expect(token).toBeDefined();
      expect(readFileSync(path.join(devDir, '.env'), 'utf8')).toContain(`SVC_SYSTEM_PAT=${token}`);
      const body = await (
        await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { Authorization: `Bearer ${token}` } })
      ).json();
      expect(body.data.status).toBe('healthy');
      expect(body.data.checks.wiki).toMatchObject({
        status: 'ok',
        dir: path.join(devDir, 'pks-wiki'),
        branch: 'main',
        dirty: false,
      });
      expect(body.data.checks.rawstore).toMatchObject({
        status: 'ok',
        backend: 'local',
        dir: path.join(devDir, 'raw'),
      });
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await new Promise((resolve) => child.on('close', resolve));
    }
  });
});
