import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../shared/errors.js';
import { isScope, WILDCARD_SCOPE, type Scope } from '../../shared/scopes.js';
import { parseEnvFile } from './env-file.js';
import { SETTINGS, type SettingDef } from './settings.js';
import type { Config, IdpConfig, SettingSource } from './types.js';

/** Everything a configuration is built from; the entry point passes the real process values. */
export interface ConfigInputs {
  /** Flags actually passed, keyed by setting env name (`--http` already folded into `SVC_HTTP_ADDR`). */
  readonly flags: ReadonlyMap<string, string>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly home: string;
}

export interface ResolvedSetting {
  readonly name: string;
  /** Raw text as given; `undefined` when unset everywhere. */
  readonly value: string | undefined;
  readonly source: SettingSource;
}

/** The raw layer: every setting's winning text and where it came from, before typing and validation. */
export interface ResolvedSettings {
  readonly envFile: string | null;
  readonly anchor: string;
  readonly settings: ReadonlyMap<string, ResolvedSetting>;
  /** A problem with the env file itself (named but missing). */
  readonly envFileError: ConfigError | null;
  /** The removed single-bucket setting, which must make startup fail (SPEC). */
  readonly legacyBucket: string | undefined;
}

export function resolveSettings(inputs: ConfigInputs): ResolvedSettings {
  const { flags, env, cwd } = inputs;
  let envFile: string | null = null;
  let envFileError: ConfigError | null = null;
  let fileValues = new Map<string, string>();

  const named = flags.get('SVC_ENV_FILE') ?? nonEmpty(env['SVC_ENV_FILE']);
  const candidate = named ? path.resolve(cwd, expandHome(named, inputs.home)) : path.resolve(cwd, '.env');
  if (existsSync(candidate)) {
    envFile = candidate;
    try {
      fileValues = parseEnvFile(readFileSync(candidate, 'utf8'));
    } catch (err) {
      envFileError = new ConfigError('SVC_ENV_FILE', `cannot read ${candidate}: ${(err as Error).message}`);
    }
  } else if (named) {
    envFileError = new ConfigError('SVC_ENV_FILE', `env file ${candidate} does not exist`);
  }
  const anchor = envFile ? path.dirname(envFile) : cwd;

  const settings = new Map<string, ResolvedSetting>();
  for (const def of SETTINGS) {
    settings.set(def.env, resolveOne(def, flags, env, fileValues, envFile));
  }
  const legacyBucket = nonEmpty(env['SVC_OBJ_BUCKET']) ?? nonEmpty(fileValues.get('SVC_OBJ_BUCKET'));
  return { envFile, anchor, settings, envFileError, legacyBucket };
}

function resolveOne(
  def: SettingDef,
  flags: ReadonlyMap<string, string>,
  env: ConfigInputs['env'],
  file: ReadonlyMap<string, string>,
  envFile: string | null,
): ResolvedSetting {
  const names = [def.env, ...(def.aliases ?? [])];
  if (def.env === 'SVC_ENV_FILE') {
    if (flags.has(def.env)) return { name: def.env, value: flags.get(def.env), source: 'flag' };
    if (nonEmpty(env[def.env])) return { name: def.env, value: env[def.env], source: 'env' };
    return { name: def.env, value: envFile ?? undefined, source: 'default' };
  }
  // An explicitly passed flag wins even when empty (it sets the setting to empty).
  if (!def.envOnly && flags.has(def.env)) return { name: def.env, value: flags.get(def.env), source: 'flag' };
  for (const name of names) {
    const v = env[name];
    if (v !== undefined && v !== '') return { name: def.env, value: v, source: 'env' };
  }
  for (const name of names) {
    const v = file.get(name);
    if (v !== undefined && v !== '') return { name: def.env, value: v, source: 'file' };
  }
  return { name: def.env, value: undefined, source: 'default' };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v;
}

function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  return p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on', 'y', 't']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off', 'n', 'f']);

/**
 * Typed accessors over the resolved layer. Each throws a `ConfigError` naming the setting; empty text counts as
 * unset (CONTRACT §1.1).
 */
class Reader {
  /** The value each setting read from its default took (what `pksd config show` prints for a default). */
  readonly defaults = new Map<string, string>();

  constructor(
    private readonly resolved: ResolvedSettings,
    private readonly home: string,
  ) {}

  /** Records that `name` took its default `value`; returns the value. */
  defaulted<T extends string | number | boolean>(name: string, value: T): T {
    this.defaults.set(name, String(value));
    return value;
  }

  text(name: string): string | undefined {
    const v = this.resolved.settings.get(name)?.value?.trim();
    return v === undefined || v === '' ? undefined : v;
  }

  string(name: string, fallback: string): string;
  string(name: string): string | null;
  string(name: string, fallback?: string): string | null {
    const v = this.text(name);
    if (v !== undefined) return v;
    return fallback === undefined ? null : this.defaulted(name, fallback);
  }

  bool(name: string, fallback: boolean): boolean {
    const v = this.text(name);
    if (v === undefined) return this.defaulted(name, fallback);
    const lower = v.toLowerCase();
    if (TRUE_WORDS.has(lower)) return true;
    if (FALSE_WORDS.has(lower)) return false;
    throw new ConfigError(name, `invalid boolean "${v}" (use true/false, 1/0, yes/no, on/off)`);
  }

  int(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const v = this.text(name);
    if (v === undefined) return this.defaulted(name, fallback);
    if (!/^[+-]?\d+$/.test(v)) throw new ConfigError(name, `invalid integer "${v}"`);
    const n = Number(v);
    if (n < min || n > max) {
      throw new ConfigError(
        name,
        max === Number.MAX_SAFE_INTEGER ? `must be >= ${min}, got ${n}` : `must be between ${min} and ${max}, got ${n}`,
      );
    }
    return n;
  }

  positiveFloat(name: string, fallback: number | null): number | null {
    const v = this.text(name);
    if (v === undefined) return fallback === null ? null : this.defaulted(name, fallback);
    const n = Number(v);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v) || !Number.isFinite(n)) {
      throw new ConfigError(name, `invalid number "${v}"`);
    }
    if (n <= 0) throw new ConfigError(name, `must be > 0, got ${v}`);
    return n;
  }

  csv(name: string, lowerCase = false): string[] {
    const v = this.text(name);
    if (v === undefined) return [];
    return v
      .split(',')
      .map((s) => (lowerCase ? s.trim().toLowerCase() : s.trim()))
      .filter((s) => s !== '');
  }

  url(name: string, fallback: string): string;
  url(name: string): string | null;
  url(name: string, fallback?: string): string | null {
    const v = this.text(name);
    if (v === undefined) return fallback === undefined ? null : this.defaulted(name, fallback);
    let parsed: URL;
    try {
      parsed = new URL(v);
    } catch {
      throw new ConfigError(name, `must be an absolute http(s) URL, got "${v}"`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigError(name, `must be an absolute http(s) URL, got "${v}"`);
    }
    return v.replace(/\/+$/, '');
  }

  enumOf<T extends string>(name: string, choices: readonly T[], fallback: T): T {
    const v = this.text(name);
    if (v === undefined) return this.defaulted(name, fallback);
    if (!(choices as readonly string[]).includes(v)) {
      throw new ConfigError(name, `must be one of ${choices.join(', ')}, got "${v}"`);
    }
    return v as T;
  }

  path(name: string, fallback: string): string {
    const v = this.text(name);
    if (v === undefined) return this.defaulted(name, fallback);
    return path.resolve(this.resolved.anchor, expandHome(v, this.home));
  }
}

/** `SVC_DB_URL`: a `postgres://` (or `postgresql://`) URL with a host and a database name, or unset. */
function readDbUrl(r: Reader): string | null {
  const v = r.text('SVC_DB_URL');
  if (v === undefined) return null;
  // The value is a secret: errors never echo it.
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError('SVC_DB_URL', 'must be a postgres:// URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConfigError('SVC_DB_URL', `must be a postgres:// URL, got scheme "${parsed.protocol}"`);
  }
  if (parsed.hostname === '' || parsed.pathname.replace(/^\//, '') === '') {
    throw new ConfigError('SVC_DB_URL', 'must name a host and a database (postgres://user:password@host:5432/db)');
  }
  return v;
}

/** `<data_home>` = `$XDG_DATA_HOME` when set and absolute, else `~/.local/share` (CONTRACT §0.1). */
function dataHome(inputs: ConfigInputs): string {
  const xdg = inputs.env['XDG_DATA_HOME'];
  return xdg && path.isAbsolute(xdg) ? xdg : path.join(inputs.home, '.local', 'share');
}

const OBJECT_STORE_SETTINGS = [
  'SVC_OBJ_ENDPOINT',
  'SVC_OBJ_ACCESS_KEY_ID',
  'SVC_OBJ_SECRET_ACCESS_KEY',
  'SVC_OBJ_BUCKET_PDF',
  'SVC_OBJ_BUCKET_MD',
  'SVC_OBJ_BUCKET_IMAGES',
] as const;

const GRAPH_SCHEMES = ['bolt:', 'bolt+s:', 'bolt+ssc:', 'neo4j:', 'neo4j+s:', 'neo4j+ssc:'];

/**
 * Builds the typed configuration. Throws the first `ConfigError`; `inspectConfig` lists them all.
 * The order of checks is fixed so the reported error is deterministic.
 */
export function buildConfig(inputs: ConfigInputs, resolved = resolveSettings(inputs)): Config {
  return build(inputs, resolved, new Reader(resolved, inputs.home));
}

function build(inputs: ConfigInputs, resolved: ResolvedSettings, r: Reader): Config {
  if (resolved.envFileError) throw resolved.envFileError;
  const home = dataHome(inputs);

  if (resolved.legacyBucket !== undefined) {
    throw new ConfigError(
      'SVC_OBJ_BUCKET',
      'the single-bucket setting was removed in 0.7.0; set SVC_OBJ_BUCKET_PDF, SVC_OBJ_BUCKET_MD and SVC_OBJ_BUCKET_IMAGES',
    );
  }
  const setObj = OBJECT_STORE_SETTINGS.filter((n) => r.text(n) !== undefined);
  if (setObj.length > 0 && setObj.length < OBJECT_STORE_SETTINGS.length) {
    const missing = OBJECT_STORE_SETTINGS.filter((n) => !setObj.includes(n));
    throw new ConfigError(
      'SVC_OBJ_*',
      `object store settings partly set: set [${setObj.join(', ')}] missing [${missing.join(', ')}]`,
    );
  }
  const objectStore =
    setObj.length === 0
      ? null
      : {
          endpoint: r.url('SVC_OBJ_ENDPOINT')!,
          publicEndpoint: r.url('SVC_OBJ_PUBLIC_ENDPOINT'),
          region: r.string('SVC_OBJ_REGION', 'us-east-1'),
          accessKeyId: r.string('SVC_OBJ_ACCESS_KEY_ID')!,
          secretAccessKey: r.string('SVC_OBJ_SECRET_ACCESS_KEY')!,
          buckets: {
            pdf: r.string('SVC_OBJ_BUCKET_PDF')!,
            markdown: r.string('SVC_OBJ_BUCKET_MD')!,
            images: r.string('SVC_OBJ_BUCKET_IMAGES')!,
          },
        };

  const systemPat = readSystemPat(r);

  const graphUri = r.string('GRAPHDB_URI');
  if (graphUri !== null && !GRAPH_SCHEMES.some((s) => graphUri.startsWith(s + '//'))) {
    throw new ConfigError(
      'GRAPHDB_URI',
      `unsupported scheme in "${graphUri}" (use bolt://, bolt+s://, neo4j:// or neo4j+s://)`,
    );
  }

  const listen = readListen(r);
  const paperAccessEnabled = r.bool('SVC_PAPER_ACCESS_ENABLED', false);

  const config: Config = {
    envFile: resolved.envFile,
    anchor: resolved.anchor,
    publicUrl: r.url('SVC_PUBLIC_URL'),
    wikiDir: r.path('SVC_WIKI_DIR', path.resolve(resolved.anchor, '..', 'pks-wiki')),
    userHeader: r.string('SVC_USER_HEADER'),
    trustedProxies: readTrustedProxies(r),
    rawDir: r.path('SVC_RAW_DIR', path.join(home, 'pksd', 'raw')),
    dataDir: r.path('SVC_DATA_DIR', path.join(home, 'pksd', 'data')),
    dbDataDir: r.path('SVC_DB_DATA_DIR', path.join(home, 'pksd', 'pb_data')),
    dbUrl: readDbUrl(r),
    instanceId: r.string('SVC_INSTANCE_ID', `${os.hostname()}:${process.pid}`),
    listen,
    adminIdpLogins: r.csv('SVC_ADMIN_IDP_LOGINS', true),
    allowedIdpLogins: r.csv('SVC_ALLOWED_IDP_LOGINS', true),
    graph:
      graphUri === null
        ? null
        : {
            uri: graphUri,
            username: r.string('GRAPHDB_USERNAME'),
            password: r.string('GRAPHDB_PASSWORD'),
            database: r.string('GRAPHDB_DATABASE'),
            queryTimeoutSeconds: r.positiveFloat('SVC_GRAPH_QUERY_TIMEOUT_SECONDS', 30)!,
            queryConcurrency: r.int('SVC_GRAPH_QUERY_CONCURRENCY', 4, 1, 64),
            queryMaxBytes: r.int('SVC_GRAPH_QUERY_MAX_BYTES', 16_777_216, 65_536),
          },
    objectStore,
    scholarlySnapshotBucket: r.string('SVC_OBJ_BUCKET_SCHOLARLY_SNAPSHOT'),
    edgeName: r.string('SVC_EDGE_NAME'),
    systemPat,
    paperAccessEnabled,
    scholarly: {
      mailto: r.string('SVC_SCHOLARLY_MAILTO'),
      apiKey: r.string('SVC_SCHOLARLY_API_KEY'),
      baseUrl: r.url('SVC_SCHOLARLY_BASE_URL', 'https://api.openalex.org'),
    },
    preprint: {
      baseUrl: r.url('SVC_PREPRINT_BASE_URL', 'https://arxiv.org'),
      apiUrl: r.url('SVC_PREPRINT_API_URL', 'https://export.arxiv.org/api/query'),
      fetchConcurrent: r.int('SVC_PREPRINT_FETCH_CONCURRENT', 2, 1),
      fetchRps: r.positiveFloat('SVC_PREPRINT_FETCH_RPS', 0.33)!,
    },
    rag: {
      vectordbUrl: r.url('SVC_RAG_VECTORDB_URL'),
      vectordbApiKey: r.string('SVC_RAG_VECTORDB_API_KEY'),
      collection: r.string('SVC_RAG_VECTORDB_COLLECTION', 'pks_papers_v1'),
      embedUrl: r.url('SVC_RAG_EMBED_URL'),
      embedToken: r.string('SVC_RAG_EMBED_TOKEN'),
    },
    logLevel: r.enumOf('SVC_LOG_LEVEL', ['debug', 'info', 'warn', 'error'] as const, 'info'),
    parser: paperAccessEnabled
      ? {
          apiTokens: r.csv('PARSER_API_TOKENS'),
          baseUrl: r.url('PARSER_API_BASE_URL', 'https://mineru.net'),
          modelVersion: r.enumOf('PARSER_MODEL_VERSION', ['vlm', 'pipeline'] as const, 'vlm'),
          language: r.string('PARSER_LANGUAGE', 'ch'),
          isOcr: r.bool('PARSER_IS_OCR', false),
          enableFormula: r.bool('PARSER_ENABLE_FORMULA', true),
          enableTable: r.bool('PARSER_ENABLE_TABLE', true),
          pollIntervalSeconds: r.positiveFloat('PARSER_POLL_INTERVAL', 3.0)!,
          timeoutSeconds: r.int('PARSER_TIMEOUT', 1800, 1),
          maxConcurrentJobs: r.int('PARSER_MAX_CONCURRENT_JOBS', 4, 1),
        }
      : null,
    idp: readIdp(r),
  };
  return deepFreeze(config);
}

function readSystemPat(r: Reader): Config['systemPat'] {
  const token = r.text('SVC_SYSTEM_PAT');
  const scopeList =
    r.text('SVC_SYSTEM_PAT_SCOPES') === undefined
      ? [r.defaulted('SVC_SYSTEM_PAT_SCOPES', WILDCARD_SCOPE)]
      : r.csv('SVC_SYSTEM_PAT_SCOPES');
  const scopes: (Scope | '*')[] = [];
  for (const s of scopeList) {
    if (s !== WILDCARD_SCOPE && !isScope(s)) throw new ConfigError('SVC_SYSTEM_PAT_SCOPES', `unknown scope "${s}"`);
    if (!scopes.includes(s)) scopes.push(s);
  }
  if (scopes.length === 0) throw new ConfigError('SVC_SYSTEM_PAT_SCOPES', 'no scopes after parsing');
  if (token === undefined) return null;
  if (token.length < 16) {
    throw new ConfigError('SVC_SYSTEM_PAT', `must be at least 16 characters (got ${token.length})`);
  }
  return { token, scopes };
}

/** `SVC_TRUSTED_PROXIES`: each entry an IP address or `address/prefix`, normalised to the CIDR form. */
function readTrustedProxies(r: Reader): string[] {
  return r.csv('SVC_TRUSTED_PROXIES').map((entry) => {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (family === 0 || rest.length > 0 || !(bits >= 0 && bits <= max)) {
      throw new ConfigError('SVC_TRUSTED_PROXIES', `"${entry}" is not an IP address or CIDR`);
    }
    return `${address}/${bits}`;
  });
}

function readListen(r: Reader): Config['listen'] {
  const forceTcp4 = r.bool('SVC_FORCE_TCP4', false);
  const addr = r.text('SVC_HTTP_ADDR');
  if (addr === undefined) {
    const host = r.string('SVC_SERVER_HOST', '127.0.0.1');
    const port = r.int('SVC_SERVER_PORT', 4200, 1, 65535);
    r.defaulted('SVC_HTTP_ADDR', `${host.includes(':') ? `[${host}]` : host}:${port}`);
    return { host, port, forceTcp4 };
  }
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(addr);
  const port = match ? Number(match[3]) : NaN;
  if (!match || !(port >= 0 && port <= 65535)) {
    throw new ConfigError('SVC_HTTP_ADDR', `expected host:port (IPv6 as [::1]:4200), got "${addr}"`);
  }
  const host = match[1] ?? match[2] ?? '';
  return { host: host === '' ? (forceTcp4 ? '0.0.0.0' : '::') : host, port, forceTcp4 };
}

const GITHUB = {
  authUrl: 'https://github.com/login/oauth/authorize',
  tokenUrl: 'https://github.com/login/oauth/access_token',
  userinfoUrl: 'https://api.github.com/user',
};

function readIdp(r: Reader): IdpConfig {
  const provider = r.enumOf('IDP_PROVIDER', ['github', 'oauth2'] as const, 'github');
  const github = provider === 'github';
  const clientId = r.string('IDP_CLIENT_ID');
  const clientSecret = r.string('IDP_CLIENT_SECRET');
  const endpoint = (name: string, githubDefault: string): string => {
    const v = r.url(name);
    if (v !== null) return v;
    if (github) return r.defaulted(name, githubDefault);
    if (clientId && clientSecret) throw new ConfigError(name, 'required when IDP_PROVIDER=oauth2');
    return '';
  };
  return {
    provider,
    clientId,
    clientSecret,
    enabled: clientId !== null && clientSecret !== null,
    authUrl: endpoint('IDP_AUTH_URL', GITHUB.authUrl),
    tokenUrl: endpoint('IDP_TOKEN_URL', GITHUB.tokenUrl),
    userinfoUrl: endpoint('IDP_USERINFO_URL', GITHUB.userinfoUrl),
    scopes: r.string('IDP_SCOPES', github ? 'read:user user:email' : 'openid profile email'),
    loginClaim: r.string('IDP_LOGIN_CLAIM', github ? 'login' : 'preferred_username'),
    idClaim: r.string('IDP_ID_CLAIM', github ? 'id' : 'sub'),
    name: r.string('IDP_NAME', github ? 'github' : 'oauth2'),
    displayName: r.string('IDP_DISPLAY_NAME', github ? 'GitHub' : 'Single sign-on'),
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Every configuration error, for `pksd config show` (which must work on an invalid configuration). Each
 * setting is checked on its own so one bad value does not hide another.
 */
/**
 * Every configuration error, and the value each defaulted setting takes (its effective default: paths resolved,
 * the listen address assembled), for `pksd config show` and the admin UI. Works on an invalid configuration.
 */
export function inspectConfig(
  inputs: ConfigInputs,
  resolved: ResolvedSettings,
): { errors: ConfigError[]; defaults: ReadonlyMap<string, string> } {
  const errors: ConfigError[] = [];
  const seen = new Set<string>();
  let defaults = new Map<string, string>();
  // Re-run the builder, blanking each failing setting in turn until it passes.
  let current = resolved;
  for (let i = 0; i < SETTINGS.length + 4; i++) {
    const reader = new Reader(current, inputs.home);
    try {
      build(inputs, current, reader);
      defaults = reader.defaults;
      break;
    } catch (err) {
      defaults = reader.defaults;
      if (!(err instanceof ConfigError) || seen.has(err.message)) break;
      seen.add(err.message);
      errors.push(err);
      current = withoutSetting(current, err.setting);
    }
  }
  return { errors, defaults };
}

function withoutSetting(resolved: ResolvedSettings, name: string): ResolvedSettings {
  const settings = new Map(resolved.settings);
  const names = name === 'SVC_OBJ_*' ? OBJECT_STORE_SETTINGS : [name];
  for (const n of names) settings.set(n, { name: n, value: undefined, source: 'default' });
  return {
    ...resolved,
    settings,
    envFileError: name === 'SVC_ENV_FILE' ? null : resolved.envFileError,
    legacyBucket: name === 'SVC_OBJ_BUCKET' ? undefined : resolved.legacyBucket,
  };
}
