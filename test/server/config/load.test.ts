import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/shared/errors.js';
import { buildConfig, resolveSettings, type ConfigInputs } from '../../../src/server/config/load.js';
import { parseEnvFile } from '../../../src/server/config/env-file.js';

const HOME = '/home/tester';

function inputs(
  env: Record<string, string> = {},
  flags: Record<string, string> = {},
  cwd = '/work/here',
): ConfigInputs {
  return { env, flags: new Map(Object.entries(flags)), cwd, home: HOME };
}

function configError(i: ConfigInputs): ConfigError {
  try {
    buildConfig(i);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a configuration error');
}

function tempEnvFile(text: string): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pksd-env-'));
  const file = path.join(dir, '.env');
  writeFileSync(file, text);
  return { dir, file };
}

const OBJ = {
  SVC_OBJ_ENDPOINT: 'http://127.0.0.1:9000',
  SVC_OBJ_ACCESS_KEY_ID: 'key',
  SVC_OBJ_SECRET_ACCESS_KEY: 'secret',
  SVC_OBJ_BUCKET_PDF: 'pdf',
  SVC_OBJ_BUCKET_MD: 'md',
  SVC_OBJ_BUCKET_IMAGES: 'images',
};

describe('defaults', () => {
  it('uses the documented defaults with XDG data home and the sibling wiki', () => {
    const c = buildConfig(inputs({ XDG_DATA_HOME: '/xdg' }));
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 4200, forceTcp4: false });
    expect(c.rawDir).toBe('/xdg/pksd/raw');
    expect(c.dataDir).toBe('/xdg/pksd/data');
    expect(c.dbDataDir).toBe('/xdg/pksd/pb_data');
    expect(c.wikiDir).toBe('/work/pks-wiki');
    expect(c.objectStore).toBeNull();
    expect(c.graph).toBeNull();
    expect(c.systemPat).toBeNull();
    expect(c.paperAccessEnabled).toBe(false);
    expect(c.parser).toBeNull();
    expect(c.preprint).toEqual({
      baseUrl: 'https://arxiv.org',
      apiUrl: 'https://export.arxiv.org/api/query',
      fetchConcurrent: 2,
      fetchRps: 0.33,
    });
    expect(c.scholarly.baseUrl).toBe('https://api.openalex.org');
    expect(c.idp.provider).toBe('github');
    expect(c.idp.enabled).toBe(false);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.listen)).toBe(true);
  });

  it('falls back to ~/.local/share when XDG_DATA_HOME is relative or unset', () => {
    expect(buildConfig(inputs({ XDG_DATA_HOME: 'rel' })).rawDir).toBe('/home/tester/.local/share/pksd/raw');
    expect(buildConfig(inputs()).dbDataDir).toBe('/home/tester/.local/share/pksd/pb_data');
  });
});

describe('precedence: flag > env > file > default', () => {
  const { dir, file } = tempEnvFile(
    [
      'SVC_SERVER_PORT=4301',
      'export SVC_EDGE_NAME="edge-file"',
      "SVC_SCHOLARLY_MAILTO='file@example.org'",
      'SVC_PREPRINT_FETCH_CONCURRENT=3 # a comment',
      'SVC_LOG_LEVEL=warn',
      'SVC_RAW_DIR=assets/raw',
      'SVC_DATA_DIR=~/pks-data',
    ].join('\n'),
  );
  const rows: {
    setting: string;
    flag: string;
    read: (c: ReturnType<typeof buildConfig>) => unknown;
    values: [string, string, string];
    expected: [unknown, unknown, unknown, unknown];
  }[] = [
    {
      setting: 'SVC_SERVER_PORT',
      flag: 'SVC_SERVER_PORT',
      read: (c) => c.listen.port,
      values: ['4401', '4501', ''],
      expected: [4401, 4501, 4301, 4200],
    },
    {
      setting: 'SVC_EDGE_NAME',
      flag: 'SVC_EDGE_NAME',
      read: (c) => c.edgeName,
      values: ['edge-flag', 'edge-env', ''],
      expected: ['edge-flag', 'edge-env', 'edge-file', null],
    },
    {
      setting: 'SVC_SCHOLARLY_MAILTO',
      flag: 'SVC_SCHOLARLY_MAILTO',
      read: (c) => c.scholarly.mailto,
      values: ['f@x.org', 'e@x.org', ''],
      expected: ['f@x.org', 'e@x.org', 'file@example.org', null],
    },
    {
      setting: 'SVC_PREPRINT_FETCH_CONCURRENT',
      flag: 'SVC_PREPRINT_FETCH_CONCURRENT',
      read: (c) => c.preprint.fetchConcurrent,
      values: ['5', '4', ''],
      expected: [5, 4, 3, 2],
    },
    {
      setting: 'SVC_LOG_LEVEL',
      flag: 'SVC_LOG_LEVEL',
      read: (c) => c.logLevel,
      values: ['error', 'debug', ''],
      expected: ['error', 'debug', 'warn', 'info'],
    },
    {
      setting: 'SVC_RAW_DIR',
      flag: 'SVC_RAW_DIR',
      read: (c) => c.rawDir,
      values: ['/flag/raw', '/env/raw', ''],
      expected: ['/flag/raw', '/env/raw', path.join(dir, 'assets/raw'), '/xdg/pksd/raw'],
    },
  ];

  for (const row of rows) {
    it(`${row.setting}: flag wins, then env, then the env file, then the default`, () => {
      const [flagValue, envValue] = row.values;
      const env = { SVC_ENV_FILE: file, XDG_DATA_HOME: '/xdg' };
      const both = buildConfig(inputs({ ...env, [row.setting]: envValue }, { [row.flag]: flagValue }));
      expect(row.read(both)).toEqual(row.expected[0]);
      const envOnly = buildConfig(inputs({ ...env, [row.setting]: envValue }));
      expect(row.read(envOnly)).toEqual(row.expected[1]);
      const fileOnly = buildConfig(inputs(env));
      expect(row.read(fileOnly)).toEqual(row.expected[2]);
      const none = buildConfig(inputs({ XDG_DATA_HOME: '/xdg' }, {}, '/nowhere-without-env'));
      expect(row.read(none)).toEqual(row.expected[3]);
    });
  }

  it('records the source of every setting', () => {
    const r = resolveSettings(inputs({ SVC_ENV_FILE: file, SVC_EDGE_NAME: 'e' }, { SVC_SERVER_PORT: '1' }));
    expect(r.settings.get('SVC_SERVER_PORT')?.source).toBe('flag');
    expect(r.settings.get('SVC_EDGE_NAME')?.source).toBe('env');
    expect(r.settings.get('SVC_LOG_LEVEL')?.source).toBe('file');
    expect(r.settings.get('SVC_PUBLIC_URL')?.source).toBe('default');
  });

  it('resolves relative paths against the env file directory and expands ~/', () => {
    const c = buildConfig(inputs({ SVC_ENV_FILE: file }));
    expect(c.anchor).toBe(dir);
    expect(c.rawDir).toBe(path.join(dir, 'assets/raw'));
    expect(c.dataDir).toBe('/home/tester/pks-data');
    expect(c.wikiDir).toBe(path.resolve(dir, '..', 'pks-wiki'));
  });

  it('an explicitly empty flag sets the setting to empty', () => {
    const c = buildConfig(inputs({ SVC_ENV_FILE: file }, { SVC_EDGE_NAME: '' }));
    expect(c.edgeName).toBeNull();
  });

  it('loads ./.env from the working directory when SVC_ENV_FILE is unset', () => {
    const c = buildConfig(inputs({}, {}, dir));
    expect(c.envFile).toBe(file);
    expect(c.listen.port).toBe(4301);
  });

  it('--http (SVC_HTTP_ADDR) wins over host and port, IPv6 in brackets', () => {
    expect(buildConfig(inputs({ SVC_SERVER_PORT: '1' }, { SVC_HTTP_ADDR: '0.0.0.0:4900' })).listen).toMatchObject({
      host: '0.0.0.0',
      port: 4900,
    });
    expect(buildConfig(inputs({ SVC_HTTP_ADDR: '[::1]:4200' })).listen).toMatchObject({ host: '::1', port: 4200 });
  });

  it('GRAPHDB_USERNAME wins over the GRAPHDB_USER alias', () => {
    const uri = { GRAPHDB_URI: 'bolt://127.0.0.1:7687' };
    expect(buildConfig(inputs({ ...uri, GRAPHDB_USER: 'alias' })).graph?.username).toBe('alias');
    expect(buildConfig(inputs({ ...uri, GRAPHDB_USER: 'alias', GRAPHDB_USERNAME: 'main' })).graph?.username).toBe(
      'main',
    );
  });

  it('IdP settings come from the environment only, never from flags', () => {
    const c = buildConfig(inputs({ IDP_CLIENT_ID: 'env-id', IDP_CLIENT_SECRET: 's' }, { IDP_CLIENT_ID: 'flag-id' }));
    expect(c.idp.clientId).toBe('env-id');
    expect(c.idp.enabled).toBe(true);
  });
});

describe('startup validation (exit 2 with the setting named)', () => {
  const rows: { name: string; env: Record<string, string>; setting: string; reason: RegExp }[] = [
    {
      name: 'object store partly set',
      env: { SVC_OBJ_ENDPOINT: 'http://h:9000', SVC_OBJ_BUCKET_PDF: 'p' },
      setting: 'SVC_OBJ_*',
      reason:
        /object store settings partly set: set \[SVC_OBJ_ENDPOINT, SVC_OBJ_BUCKET_PDF\] missing \[SVC_OBJ_ACCESS_KEY_ID, SVC_OBJ_SECRET_ACCESS_KEY, SVC_OBJ_BUCKET_MD, SVC_OBJ_BUCKET_IMAGES\]/,
    },
    { name: 'legacy single bucket', env: { SVC_OBJ_BUCKET: 'legacy' }, setting: 'SVC_OBJ_BUCKET', reason: /removed/ },
    {
      name: 'legacy single bucket beside the three',
      env: { ...OBJ, SVC_OBJ_BUCKET: 'legacy' },
      setting: 'SVC_OBJ_BUCKET',
      reason: /removed/,
    },
    {
      name: 'short system PAT',
      env: { SVC_SYSTEM_PAT: '123456789012345' },
      setting: 'SVC_SYSTEM_PAT',
      reason: /at least 16/,
    },
    {
      name: 'unknown system PAT scope',
      env: { SVC_SYSTEM_PAT: 'x'.repeat(16), SVC_SYSTEM_PAT_SCOPES: 'wiki:read,wiki:admin' },
      setting: 'SVC_SYSTEM_PAT_SCOPES',
      reason: /unknown scope "wiki:admin"/,
    },
    {
      name: 'empty scope list after parsing',
      env: { SVC_SYSTEM_PAT_SCOPES: ' , ,' },
      setting: 'SVC_SYSTEM_PAT_SCOPES',
      reason: /no scopes/,
    },
    {
      name: 'parser max jobs < 1 with paper access on',
      env: { SVC_PAPER_ACCESS_ENABLED: 'true', PARSER_MAX_CONCURRENT_JOBS: '0' },
      setting: 'PARSER_MAX_CONCURRENT_JOBS',
      reason: />= 1/,
    },
    {
      name: 'non-positive parser poll interval',
      env: { SVC_PAPER_ACCESS_ENABLED: 'yes', PARSER_POLL_INTERVAL: '0' },
      setting: 'PARSER_POLL_INTERVAL',
      reason: /> 0/,
    },
    {
      name: 'non-positive parser timeout',
      env: { SVC_PAPER_ACCESS_ENABLED: '1', PARSER_TIMEOUT: '-5' },
      setting: 'PARSER_TIMEOUT',
      reason: />= 1/,
    },
    {
      name: 'unknown parser model',
      env: { SVC_PAPER_ACCESS_ENABLED: 'on', PARSER_MODEL_VERSION: 'gpt' },
      setting: 'PARSER_MODEL_VERSION',
      reason: /vlm, pipeline/,
    },
    {
      name: 'unparseable boolean',
      env: { SVC_FORCE_TCP4: 'maybe' },
      setting: 'SVC_FORCE_TCP4',
      reason: /invalid boolean/,
    },
    {
      name: 'port out of range',
      env: { SVC_SERVER_PORT: '70000' },
      setting: 'SVC_SERVER_PORT',
      reason: /between 1 and 65535/,
    },
    {
      name: 'relative public URL',
      env: { SVC_PUBLIC_URL: 'pks.example.org' },
      setting: 'SVC_PUBLIC_URL',
      reason: /absolute http/,
    },
    {
      name: 'endpoint without scheme',
      env: { ...OBJ, SVC_OBJ_ENDPOINT: '127.0.0.1:9000' },
      setting: 'SVC_OBJ_ENDPOINT',
      reason: /absolute http/,
    },
    {
      name: 'bad graph scheme',
      env: { GRAPHDB_URI: 'http://127.0.0.1:7474' },
      setting: 'GRAPHDB_URI',
      reason: /unsupported scheme/,
    },
    ...['10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/1', '::1/129', '10.0.0.1/', 'fd00::/x'].map((entry) => ({
      name: `trusted proxy entry ${entry}`,
      env: { SVC_TRUSTED_PROXIES: `127.0.0.1,${entry}` },
      setting: 'SVC_TRUSTED_PROXIES',
      reason: new RegExp(`^"${entry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" is not an IP address or CIDR$`),
    })),
    {
      name: 'missing named env file',
      env: { SVC_ENV_FILE: '/does/not/exist.env' },
      setting: 'SVC_ENV_FILE',
      reason: /does not exist/,
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const err = configError(inputs(row.env));
      expect(err.setting).toBe(row.setting);
      expect(err.reason).toMatch(row.reason);
    });
  }

  it('parser settings are not even read when paper access is off', () => {
    const c = buildConfig(
      inputs({ PARSER_MAX_CONCURRENT_JOBS: '0', PARSER_POLL_INTERVAL: 'soon', PARSER_MODEL_VERSION: 'x' }),
    );
    expect(c.parser).toBeNull();
  });

  it('paper access on reads the parser settings', () => {
    const c = buildConfig(
      inputs({ SVC_PAPER_ACCESS_ENABLED: 'true', PARSER_API_TOKENS: ' a, ,b ', PARSER_POLL_INTERVAL: '0.5' }),
    );
    expect(c.parser).toMatchObject({
      apiTokens: ['a', 'b'],
      pollIntervalSeconds: 0.5,
      maxConcurrentJobs: 4,
      modelVersion: 'vlm',
    });
  });

  it('removed and unknown settings are ignored silently', () => {
    const c = buildConfig(
      inputs({ WIKI_DIR: '/x', SERVER_PORT: '1', SVC_OBJ_EVENT_TOKEN: 'gone', SVC_SERVER_URL: 'nope', XYZ: '1' }),
    );
    expect(c.listen.port).toBe(4200);
  });

  it('all six object-store settings select the S3 backend', () => {
    const c = buildConfig(inputs(OBJ));
    expect(c.objectStore).toEqual({
      endpoint: 'http://127.0.0.1:9000',
      publicEndpoint: null,
      region: 'us-east-1',
      accessKeyId: 'key',
      secretAccessKey: 'secret',
      buckets: { pdf: 'pdf', markdown: 'md', images: 'images' },
    });
  });

  it('SVC_TRUSTED_PROXIES: none by default; addresses and CIDRs of both families, as CIDRs', () => {
    expect(buildConfig(inputs({})).trustedProxies).toEqual([]);
    const config = buildConfig(inputs({}, { SVC_TRUSTED_PROXIES: ' 10.0.0.0/8, 127.0.0.1 ,::1,fd00:1::/48,' }));
    expect(config.trustedProxies).toEqual(['10.0.0.0/8', '127.0.0.1/32', '::1/128', 'fd00:1::/48']);
  });

  it('system PAT scopes are trimmed and de-duplicated', () => {
    const c = buildConfig(
      inputs({
        SVC_SYSTEM_PAT: ' ' + 'p'.repeat(20) + ' ',
        SVC_SYSTEM_PAT_SCOPES: ' wiki:read , papers:write,wiki:read',
      }),
    );
    expect(c.systemPat).toEqual({ token: 'p'.repeat(20), scopes: ['wiki:read', 'papers:write'] });
  });
});

describe('env file syntax', () => {
  it('parses export, comments and both quote styles', () => {
    const values = parseEnvFile(
      [
        '# comment',
        'export A=1',
        'B = two words # trailing',
        'C="line\\nnext \\"q\\" \\\\"',
        "D='raw $x \\n'",
        'not a line',
        'E=',
      ].join('\n'),
    );
    expect(Object.fromEntries(values)).toEqual({
      A: '1',
      B: 'two words',
      C: 'line\nnext "q" \\',
      D: 'raw $x \\n',
      E: '',
    });
  });
});
