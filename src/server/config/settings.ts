/**
 * The registry of every server setting (CONTRACT §1.2). It is the single source for parsing, `pksd config show`,
 * the command-line flags and the README's settings table, so the four cannot drift apart.
 */

export type SettingKind = 'string' | 'path' | 'url' | 'bool' | 'int' | 'float' | 'csv' | 'addr' | 'enum';

export interface SettingDef {
  /** Environment variable name, e.g. `SVC_OBJ_BUCKET_PDF`. */
  readonly env: string;
  /** Older environment names read when `env` is absent (lower priority than `env`). */
  readonly aliases?: readonly string[];
  readonly kind: SettingKind;
  /** Default as it is documented; `undefined` means none. */
  readonly defaultText?: string;
  readonly description: string;
  /** Identity-provider settings are environment / env-file only (SPEC: no flag). */
  readonly envOnly?: boolean;
  /** Read only when the paper-access feature is on. */
  readonly parser?: boolean;
  readonly choices?: readonly string[];
}

/** Flag name: env name without `SVC_`, lower-cased, `_` → `-` (CONTRACT §1.1). */
export function flagName(env: string): string {
  return '--' + env.replace(/^SVC_/, '').toLowerCase().replace(/_/g, '-');
}

/** Secret settings are never printed or logged (CONTRACT §15.2). */
export function isSecret(env: string): boolean {
  // The database URL may carry a password.
  return /_PAT$/.test(env) || /SECRET|PASSWORD|TOKEN|API_KEY/.test(env) || env === 'SVC_DB_URL';
}

export const SETTINGS: readonly SettingDef[] = [
  { env: 'SVC_ENV_FILE', kind: 'path', defaultText: './.env if present', description: 'Env file to load.' },
  {
    env: 'SVC_PUBLIC_URL',
    kind: 'url',
    description: 'Canonical public URL with scheme; used for the OAuth callback and absolute links.',
  },
  { env: 'SVC_WIKI_DIR', kind: 'path', defaultText: '<anchor>/../pks-wiki', description: 'Wiki checkout path.' },
  {
    env: 'SVC_USER_HEADER',
    kind: 'string',
    description: 'Reverse-proxy header whose value is recorded as `uploaded_by`; never authenticates.',
  },
  {
    env: 'SVC_TRUSTED_PROXIES',
    kind: 'csv',
    description:
      'Comma-separated IP addresses or CIDRs of reverse proxies whose `X-Forwarded-For`/`-Host`/`-Proto` are believed ' +
      '(client address for rate limits, public base URL); unset = none believed.',
  },
  {
    env: 'SVC_RAW_DIR',
    kind: 'path',
    defaultText: '<data_home>/pksd/raw',
    description: 'Local asset directory (used only when the object store is not configured).',
  },
  {
    env: 'SVC_DATA_DIR',
    kind: 'path',
    defaultText: '<data_home>/pksd/data',
    description: 'Runtime data: parser claims, ingest tasks, staged uploads.',
  },
  {
    env: 'SVC_DB_DATA_DIR',
    kind: 'path',
    defaultText: '<data_home>/pksd/pb_data',
    description: 'User database, instance key and the server lock.',
  },
  {
    env: 'SVC_HTTP_ADDR',
    kind: 'addr',
    defaultText: '<SVC_SERVER_HOST>:<SVC_SERVER_PORT>',
    description: 'Listen address `host:port` (`[::1]:4200` for IPv6); `--http=` wins.',
  },
  { env: 'SVC_SERVER_HOST', kind: 'string', defaultText: '127.0.0.1', description: 'Listen host.' },
  { env: 'SVC_SERVER_PORT', kind: 'int', defaultText: '4200', description: 'Listen port (1..65535).' },
  { env: 'SVC_FORCE_TCP4', kind: 'bool', defaultText: '0', description: 'Bind an IPv4-only socket.' },
  {
    env: 'SVC_ADMIN_IDP_LOGINS',
    kind: 'csv',
    description: 'Comma-separated IdP logins allowed to sign in (admins).',
  },
  {
    env: 'SVC_ALLOWED_IDP_LOGINS',
    kind: 'csv',
    description: 'Comma-separated, case-insensitive IdP login allow-list.',
  },
  {
    env: 'GRAPHDB_URI',
    kind: 'string',
    description: 'Neo4j Bolt URI (`bolt://`, `bolt+s://`, `neo4j://`, `neo4j+s://`); empty = no graph.',
  },
  { env: 'GRAPHDB_USERNAME', aliases: ['GRAPHDB_USER'], kind: 'string', description: 'Graph user name.' },
  { env: 'GRAPHDB_PASSWORD', kind: 'string', description: 'Graph password.' },
  {
    env: 'GRAPHDB_DATABASE',
    kind: 'string',
    defaultText: "the server's default database",
    description: 'Graph database name.',
  },
  {
    env: 'SVC_GRAPH_QUERY_TIMEOUT_SECONDS',
    kind: 'float',
    defaultText: '30',
    description: 'Transaction timeout of `POST /api/graph/query`, in seconds (> 0).',
  },
  {
    env: 'SVC_GRAPH_QUERY_CONCURRENCY',
    kind: 'int',
    defaultText: '4',
    description:
      'User graph queries in flight per instance (1..64), on a connection pool of their own; more answer 429.',
  },
  {
    env: 'SVC_GRAPH_QUERY_MAX_BYTES',
    kind: 'int',
    defaultText: '16777216',
    description: "Encoded size of a graph query's `records` before the answer is cut (>= 65536).",
  },
  { env: 'SVC_OBJ_ENDPOINT', kind: 'url', description: 'Object store endpoint with scheme (server traffic).' },
  {
    env: 'SVC_OBJ_PUBLIC_ENDPOINT',
    kind: 'url',
    description: 'Public endpoint used to sign presigned URLs for outside parties.',
  },
  { env: 'SVC_OBJ_REGION', kind: 'string', defaultText: 'us-east-1', description: 'Object store region.' },
  { env: 'SVC_OBJ_BUCKET_PDF', kind: 'string', description: 'PDF bucket (also holds `index/papers.parquet`).' },
  { env: 'SVC_OBJ_BUCKET_MD', kind: 'string', description: 'Parsed markdown bucket.' },
  { env: 'SVC_OBJ_BUCKET_IMAGES', kind: 'string', description: 'Extracted images bucket.' },
  { env: 'SVC_OBJ_ACCESS_KEY_ID', kind: 'string', description: 'Object store service-account key id.' },
  { env: 'SVC_OBJ_SECRET_ACCESS_KEY', kind: 'string', description: 'Object store service-account secret.' },
  {
    env: 'SVC_OBJ_BUCKET_SCHOLARLY_SNAPSHOT',
    kind: 'string',
    description: 'Scholarly snapshot bucket (used only by `pksd scholarly bootstrap`).',
  },
  {
    env: 'SVC_EDGE_NAME',
    kind: 'string',
    description: 'Instance name appended to the object-store user agent `pksd/<version>/<edge>`.',
  },
  { env: 'SVC_SYSTEM_PAT', kind: 'string', description: 'System PAT plaintext (>= 16 chars); unset = off.' },
  {
    env: 'SVC_SYSTEM_PAT_SCOPES',
    kind: 'csv',
    defaultText: '*',
    description: 'Scopes of the system PAT (CSV of the vocabulary, or `*`).',
  },
  {
    env: 'SVC_PAPER_ACCESS_ENABLED',
    kind: 'bool',
    defaultText: 'false',
    description: 'Serve cached PDF and markdown bytes (paper-access feature).',
  },
  { env: 'SVC_SCHOLARLY_MAILTO', kind: 'string', description: 'Contact address for OpenAlex; required for DOIs.' },
  { env: 'SVC_SCHOLARLY_API_KEY', kind: 'string', description: 'OpenAlex `api_key` query parameter.' },
  {
    env: 'SVC_SCHOLARLY_BASE_URL',
    kind: 'url',
    defaultText: 'https://api.openalex.org',
    description: 'OpenAlex API base URL.',
  },
  {
    env: 'SVC_PREPRINT_BASE_URL',
    kind: 'url',
    defaultText: 'https://arxiv.org',
    description: 'arXiv base URL for `/pdf/…`, `/abs/…` and claim `pdf_url`s.',
  },
  {
    env: 'SVC_PREPRINT_API_URL',
    kind: 'url',
    defaultText: 'https://export.arxiv.org/api/query',
    description: 'arXiv API query URL for paper metadata (`?id_list=<id>`, Atom), fetched when paper access is on.',
  },
  {
    env: 'SVC_DB_URL',
    kind: 'string',
    defaultText: 'empty (SQLite under `SVC_DB_DATA_DIR`)',
    description:
      'PostgreSQL URL (`postgres://…`) of the user database, metadata cache and shared records: cluster mode, any ' +
      'number of instances on one database (CONTRACT §21).',
  },
  {
    env: 'SVC_INSTANCE_ID',
    kind: 'string',
    defaultText: '<hostname>:<pid>',
    description: 'Name of this instance in logs, job records and claims.',
  },
  {
    env: 'SVC_PREPRINT_FETCH_CONCURRENT',
    kind: 'int',
    defaultText: '2',
    description: 'Parallel preprint fetches (>= 1).',
  },
  {
    env: 'SVC_PREPRINT_FETCH_RPS',
    kind: 'float',
    defaultText: '0.33',
    description: 'Preprint fetch rate in requests per second (> 0), burst 2.',
  },
  { env: 'SVC_RAG_VECTORDB_URL', kind: 'url', description: 'Qdrant HTTP base URL (chunk search).' },
  { env: 'SVC_RAG_VECTORDB_API_KEY', kind: 'string', description: 'Qdrant `api-key` header.' },
  {
    env: 'SVC_RAG_VECTORDB_COLLECTION',
    kind: 'string',
    defaultText: 'pks_papers_v1',
    description: 'Qdrant collection.',
  },
  { env: 'SVC_RAG_EMBED_URL', kind: 'url', description: 'Embed server base URL (chunk search).' },
  { env: 'SVC_RAG_EMBED_TOKEN', kind: 'string', description: 'Bearer token for the embed server.' },
  {
    env: 'SVC_LOG_LEVEL',
    kind: 'enum',
    choices: ['debug', 'info', 'warn', 'error'],
    defaultText: 'info',
    description: 'Log level.',
  },
  { env: 'PARSER_API_TOKENS', kind: 'csv', parser: true, description: 'CSV of MinerU API tokens.' },
  {
    env: 'PARSER_API_BASE_URL',
    kind: 'url',
    parser: true,
    defaultText: 'https://mineru.net',
    description: 'MinerU API base URL.',
  },
  {
    env: 'PARSER_MODEL_VERSION',
    kind: 'enum',
    choices: ['vlm', 'pipeline'],
    parser: true,
    defaultText: 'vlm',
    description: 'Parser model (`vlm` or `pipeline`).',
  },
  { env: 'PARSER_LANGUAGE', kind: 'string', parser: true, defaultText: 'ch', description: 'Language hint.' },
  { env: 'PARSER_IS_OCR', kind: 'bool', parser: true, defaultText: 'false', description: 'Force OCR.' },
  {
    env: 'PARSER_ENABLE_FORMULA',
    kind: 'bool',
    parser: true,
    defaultText: 'true',
    description: 'Formula recognition.',
  },
  { env: 'PARSER_ENABLE_TABLE', kind: 'bool', parser: true, defaultText: 'true', description: 'Table recognition.' },
  {
    env: 'PARSER_POLL_INTERVAL',
    kind: 'float',
    parser: true,
    defaultText: '3.0',
    description: 'Poll interval in seconds (> 0).',
  },
  { env: 'PARSER_TIMEOUT', kind: 'int', parser: true, defaultText: '1800', description: 'Seconds per paper (> 0).' },
  {
    env: 'PARSER_MAX_CONCURRENT_JOBS',
    kind: 'int',
    parser: true,
    defaultText: '4',
    description: 'Concurrent parser jobs (>= 1); excess requests queue.',
  },
  {
    env: 'IDP_PROVIDER',
    kind: 'enum',
    choices: ['github', 'oauth2'],
    envOnly: true,
    defaultText: 'github',
    description: 'Identity provider kind.',
  },
  { env: 'IDP_CLIENT_ID', kind: 'string', envOnly: true, description: 'OAuth client id (both set = login on).' },
  { env: 'IDP_CLIENT_SECRET', kind: 'string', envOnly: true, description: 'OAuth client secret.' },
  { env: 'IDP_AUTH_URL', kind: 'url', envOnly: true, defaultText: "GitHub's", description: 'Authorize endpoint.' },
  { env: 'IDP_TOKEN_URL', kind: 'url', envOnly: true, defaultText: "GitHub's", description: 'Token endpoint.' },
  {
    env: 'IDP_USERINFO_URL',
    kind: 'url',
    envOnly: true,
    defaultText: "GitHub's",
    description: 'User-info endpoint.',
  },
  {
    env: 'IDP_SCOPES',
    kind: 'string',
    envOnly: true,
    defaultText: 'github: `read:user user:email`; oauth2: `openid profile email`',
    description: 'Space-separated OAuth scopes.',
  },
  {
    env: 'IDP_LOGIN_CLAIM',
    kind: 'string',
    envOnly: true,
    defaultText: 'github: `login`; oauth2: `preferred_username`',
    description: 'User-info field used as the login.',
  },
  {
    env: 'IDP_ID_CLAIM',
    kind: 'string',
    envOnly: true,
    defaultText: 'github: `id`; oauth2: `sub`',
    description: 'User-info field used as the stable user id.',
  },
  {
    env: 'IDP_NAME',
    kind: 'string',
    envOnly: true,
    defaultText: 'github: `github`; oauth2: `oauth2`',
    description: 'Provider name in auth-methods.',
  },
  {
    env: 'IDP_DISPLAY_NAME',
    kind: 'string',
    envOnly: true,
    defaultText: 'github: `GitHub`; oauth2: `Single sign-on`',
    description: 'Provider display name in auth-methods.',
  },
];

export const SETTING_NAMES: ReadonlySet<string> = new Set(SETTINGS.map((s) => s.env));
