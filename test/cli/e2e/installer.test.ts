/**
 * `assets/install-pksd.sh` as a server serves it (version and public URL filled in): by default the server's own
 * tarball at `<server>/dist/pks-<version>.tgz`; `--version`, `--dir`, `--tarball` still honoured.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/pks.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pks-installer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The script with the placeholders the server fills in. */
const served = (version: string, serverUrl: string | null) => {
  let text = readFileSync(path.join(REPO_ROOT, 'assets/install-pksd.sh'), 'utf8').replaceAll('__VERSION__', version);
  if (serverUrl !== null) text = text.replaceAll('__SERVER_URL__', serverUrl);
  return text;
};

function run(script: string, args: string[]): { status: number | null; calls: string[]; stderr: string } {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const log = path.join(dir, 'npm-args');
  rmSync(log, { force: true });
  writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho "$*" >> "${log}"\n`);
  chmodSync(path.join(bin, 'npm'), 0o755);
  rmSync(path.join(bin, 'node'), { force: true });
  symlinkSync(process.execPath, path.join(bin, 'node'));
  const file = path.join(dir, 'install.sh');
  writeFileSync(file, script);
  execFileSync('sh', ['-n', file]);
  const result = spawnSync('/bin/sh', [file, ...args], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir },
    encoding: 'utf8',
  });
  let calls: string[] = [];
  try {
    calls = readFileSync(log, 'utf8').trim().split('\n');
  } catch {
    // npm never ran
  }
  return { status: result.status, calls, stderr: result.stderr };
}

describe('install-pksd.sh', () => {
  const opt = path.join(dir, 'opt');

  it('installs the tarball the server serves for its own version', () => {
    const result = run(served('0.1.0', 'https://pks.example.org/'), ['--dir', opt]);
    expect(result.status).toBe(0);
    expect(result.calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit https://pks.example.org/dist/pks-0.1.0.tgz`,
    ]);
    expect(result.stderr).toContain('Next steps:');
  });

  it('another --version (or PKSD_VERSION) comes from the registry; --tarball installs a file; --dir defaults to ~/.local', () => {
    expect(run(served('0.1.0', 'http://h:4200'), ['--version', '0.2.0', '--dir', opt]).calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit pks@0.2.0`,
    ]);
    expect(run(served('0.1.0', 'http://h:4200'), ['--version=0.1.0']).calls).toEqual([
      `install --prefix ${path.join(dir, '.local')} --no-fund --no-audit http://h:4200/dist/pks-0.1.0.tgz`,
    ]);
    const tgz = path.join(dir, 'pks.tgz');
    writeFileSync(tgz, '');
    expect(run(served('0.1.0', 'http://h:4200'), ['--tarball', tgz, '--dir', opt]).calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit ${tgz}`,
    ]);
  });

  it('without a server URL filled in, the registry package of the served version', () => {
    expect(run(served('0.1.0', null), ['--dir', opt]).calls).toEqual([
      `install --prefix ${opt} --no-fund --no-audit pks@0.1.0`,
    ]);
  });
});
