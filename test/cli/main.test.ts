import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPks } from '../../src/cli/main.js';

async function pks(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runPks(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

describe('pks skeleton', () => {
  it('prints its version', async () => {
    expect(await pks(['--version'])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^pks version \d+\.\d+\.\d+\n$/),
    });
  });
  it('prints help', async () => {
    const run = await pks(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: pks');
  });
  it('an unknown option is a usage error (2)', async () => {
    expect((await pks(['--bogus'])).code).toBe(2);
  });
});

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

describe('bin/pks', () => {
  it('runs the built client', () => {
    const out = execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin/pks'), '--version'], { encoding: 'utf8' });
    expect(out).toMatch(/^pks version \d+\.\d+\.\d+\n$/);
  });
});
