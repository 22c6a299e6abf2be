import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS, flagName } from '../../../src/server/config/settings.js';
import { pksd } from '../../support/cli.js';

const SECRETS = {
  SVC_SYSTEM_PAT: 'sys-pat-value-0123456789',
  SVC_OBJ_SECRET_ACCESS_KEY: 'obj-secret-value',
  GRAPHDB_PASSWORD: 'graph-password-value',
  IDP_CLIENT_SECRET: 'idp-secret-value',
  SVC_RAG_EMBED_TOKEN: 'embed-token-value',
  SVC_SCHOLARLY_API_KEY: 'openalex-key-value',
  PARSER_API_TOKENS: 'parser-token-a,parser-token-b',
};

describe('pksd config show', () => {
  it('prints every setting sorted, with its source, and never a secret value', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pksd-show-'));
    writeFileSync(path.join(dir, '.env'), 'SVC_EDGE_NAME=from-file\nGRAPHDB_PASSWORD=graph-password-value\n');
    const { code, stdout } = await pksd(
      ['config', 'show', '--server-port', '4999'],
      { ...SECRETS, GRAPHDB_PASSWORD: '', SVC_PUBLIC_URL: 'https://pks.example.org' },
      dir,
    );
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'));
    const names = lines.map((l) => l.split('=')[0]);
    expect(names).toEqual([...SETTINGS.map((s) => s.env)].sort((a, b) => a.localeCompare(b)));
    expect(lines).toContain('SVC_SERVER_PORT=4999  # flag');
    expect(lines).toContain('SVC_PUBLIC_URL=https://pks.example.org  # env');
    expect(lines).toContain('SVC_EDGE_NAME=from-file  # file');
    // A defaulted setting shows the value it takes, not an empty one.
    expect(lines).toContain('SVC_LOG_LEVEL=info  # default');
    expect(lines).toContain('SVC_SERVER_HOST=127.0.0.1  # default');
    expect(lines).toContain('SVC_HTTP_ADDR=127.0.0.1:4999  # default');
    expect(lines).toContain('SVC_SYSTEM_PAT_SCOPES=*  # default');
    expect(lines).toContain('SVC_PREPRINT_FETCH_RPS=0.33  # default');
    expect(lines).toContain('SVC_PAPER_ACCESS_ENABLED=false  # default');
    expect(lines).toContain(`SVC_WIKI_DIR=${path.join(path.dirname(dir), 'pks-wiki')}  # default`);
    expect(lines).toContain('IDP_AUTH_URL=https://github.com/login/oauth/authorize  # default');
    // Settings without a default stay empty; parser settings are not read while paper access is off.
    expect(lines).toContain('SVC_USER_HEADER=  # default');
    expect(lines).toContain('PARSER_TIMEOUT=  # default');
    expect(lines).toContain('SVC_SYSTEM_PAT=<set, 24 chars>  # env');
    expect(lines).toContain('GRAPHDB_PASSWORD=<set, 20 chars>  # file');
    for (const secret of Object.values(SECRETS)) {
      for (const part of secret.split(',')) expect(stdout).not.toContain(part);
    }
  });

  it('works on an invalid configuration and lists the errors at the end', async () => {
    const { code, stdout } = await pksd(['config', 'show'], {
      SVC_SYSTEM_PAT: 'short',
      SVC_OBJ_BUCKET_PDF: 'only-one',
    });
    expect(code).toBe(0);
    expect(stdout).toContain('# 2 configuration error(s):');
    expect(stdout).toContain('# SVC_OBJ_*: object store settings partly set');
    expect(stdout).toContain('# SVC_SYSTEM_PAT: must be at least 16 characters (got 5)');
    expect(stdout).not.toContain('short');
    // Defaults are shown on an invalid configuration too.
    expect(stdout).toContain('SVC_LOG_LEVEL=info  # default');
  });

  it('shows the parser defaults when paper access is on', async () => {
    const { code, stdout } = await pksd(['config', 'show'], { SVC_PAPER_ACCESS_ENABLED: 'true' });
    expect(code).toBe(0);
    expect(stdout).toContain('PARSER_TIMEOUT=1800  # default');
    expect(stdout).toContain('PARSER_MODEL_VERSION=vlm  # default');
    expect(stdout).toContain('SVC_PAPER_ACCESS_ENABLED=true  # env');
  });
});

describe('setting flags', () => {
  it('every setting except the IdP ones has a --kebab-case flag on every subcommand; IdP flags are refused', async () => {
    for (const def of SETTINGS) {
      const flag = flagName(def.env);
      const value =
        def.kind === 'bool' ? 'true' : def.kind === 'int' ? '7' : def.kind === 'url' ? 'https://x.example' : 'v';
      const run = await pksd(['config', 'show', `${flag}=${value}`]);
      if (def.envOnly) {
        expect(run.code, def.env).toBe(2);
        continue;
      }
      expect(run.code, def.env).toBe(0);
      const line = run.stdout.split('\n').find((l) => l.startsWith(`${def.env}=`));
      expect(line, def.env).toMatch(/# flag$/);
    }
  });
});

describe('pksd config path / init', () => {
  it('prints the env file that would be loaded, or exits 1 without one', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pksd-path-'));
    expect(await pksd(['config', 'path'], {}, dir)).toMatchObject({
      code: 1,
      stderr: 'no env file (set SVC_ENV_FILE or create ./.env)\n',
    });
    writeFileSync(path.join(dir, '.env'), '');
    expect(await pksd(['config', 'path'], {}, dir)).toMatchObject({ code: 0, stdout: path.join(dir, '.env') + '\n' });
    const other = path.join(dir, 'other.env');
    writeFileSync(other, '');
    expect(await pksd(['config', 'path', '--env-file', 'other.env'], {}, dir)).toMatchObject({
      code: 0,
      stdout: other + '\n',
    });
  });

  it('init writes a template listing every setting and refuses to overwrite without --force', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pksd-init-'));
    expect((await pksd(['config', 'init'], {}, dir)).code).toBe(0);
    const text = readFileSync(path.join(dir, '.env'), 'utf8');
    for (const s of SETTINGS.filter((d) => d.env !== 'SVC_ENV_FILE')) expect(text).toContain(`# ${s.env}=`);
    expect((await pksd(['config', 'init'], {}, dir)).code).toBe(1);
    expect((await pksd(['config', 'init', '--force'], {}, dir)).code).toBe(0);
  });
});

describe('pksd exit codes', () => {
  it('--version and version print the version', async () => {
    const version = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version;
    expect(await pksd(['--version'])).toMatchObject({ code: 0, stdout: `pksd version ${version}\n` });
    expect(await pksd(['version'])).toMatchObject({ code: 0, stdout: `pksd version ${version}\n` });
  });

  it('an unknown command or flag is a usage error (2)', async () => {
    expect((await pksd(['frobnicate'])).code).toBe(2);
    expect((await pksd(['serve', '--no-such-flag'])).code).toBe(2);
  });

  it('serve with an invalid configuration prints one line naming the setting and exits 2', async () => {
    const run = await pksd(['serve'], { SVC_SYSTEM_PAT: 'tooshort' });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('pksd: configuration error: SVC_SYSTEM_PAT: must be at least 16 characters (got 8)\n');
    const flagged = await pksd(['serve', '--obj-endpoint', 'http://127.0.0.1:1']);
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toMatch(/^pksd: configuration error: SVC_OBJ_\*: object store settings partly set/);
  });
});
