import type { Scope } from '../../shared/scopes.js';

export type SettingSource = 'flag' | 'env' | 'file' | 'default';

export interface ObjectStoreConfig {
  readonly endpoint: string;
  readonly publicEndpoint: string | null;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly buckets: { readonly pdf: string; readonly markdown: string; readonly images: string };
}

export interface GraphConfig {
  readonly uri: string;
  readonly username: string | null;
  readonly password: string | null;
  readonly database: string | null;
  /** `SVC_GRAPH_QUERY_TIMEOUT_SECONDS`: transaction timeout of `POST /api/graph/query` (§14.1). */
  readonly queryTimeoutSeconds: number;
  /** `SVC_GRAPH_QUERY_CONCURRENCY`: user graph queries in flight, and the size of their connection pool. */
  readonly queryConcurrency: number;
  /** `SVC_GRAPH_QUERY_MAX_BYTES`: encoded size of a query's `records` before the answer is cut. */
  readonly queryMaxBytes: number;
}

export interface SystemPatConfig {
  readonly token: string;
  /** `['*']` or a list from the vocabulary. */
  readonly scopes: readonly (Scope | '*')[];
}

export interface ParserConfig {
  readonly apiTokens: readonly string[];
  readonly baseUrl: string;
  readonly modelVersion: 'vlm' | 'pipeline';
  readonly language: string;
  readonly isOcr: boolean;
  readonly enableFormula: boolean;
  readonly enableTable: boolean;
  readonly pollIntervalSeconds: number;
  readonly timeoutSeconds: number;
  readonly maxConcurrentJobs: number;
}

export interface IdpConfig {
  readonly provider: 'github' | 'oauth2';
  readonly clientId: string | null;
  readonly clientSecret: string | null;
  /** Both client settings present. */
  readonly enabled: boolean;
  readonly authUrl: string;
  readonly tokenUrl: string;
  readonly userinfoUrl: string;
  readonly scopes: string;
  readonly loginClaim: string;
  readonly idClaim: string;
  readonly name: string;
  readonly displayName: string;
}

export interface Config {
  readonly envFile: string | null;
  /** Directory relative paths resolve against: the env file's directory, else the CWD. */
  readonly anchor: string;
  readonly publicUrl: string | null;
  readonly wikiDir: string;
  readonly userHeader: string | null;
  /** `SVC_TRUSTED_PROXIES`: addresses and CIDRs (`a.b.c.d/n`, `x::/n`) whose forwarded headers are believed. */
  readonly trustedProxies: readonly string[];
  readonly rawDir: string;
  readonly dataDir: string;
  readonly dbDataDir: string;
  /** `SVC_DB_URL`: the PostgreSQL user database (cluster mode, §21); `null` = SQLite under `dbDataDir`. */
  readonly dbUrl: string | null;
  /** `SVC_INSTANCE_ID`: this instance's name (default `<hostname>:<pid>`). */
  readonly instanceId: string;
  readonly listen: { readonly host: string; readonly port: number; readonly forceTcp4: boolean };
  readonly adminIdpLogins: readonly string[];
  readonly allowedIdpLogins: readonly string[];
  /** `null` when `GRAPHDB_URI` is empty. */
  readonly graph: GraphConfig | null;
  /** `null` selects the local directory backend under `rawDir`. */
  readonly objectStore: ObjectStoreConfig | null;
  readonly scholarlySnapshotBucket: string | null;
  readonly edgeName: string | null;
  readonly systemPat: SystemPatConfig | null;
  readonly paperAccessEnabled: boolean;
  readonly scholarly: { readonly mailto: string | null; readonly apiKey: string | null; readonly baseUrl: string };
  readonly preprint: {
    readonly baseUrl: string;
    /** The arXiv API query URL (§18.1 metadata). */
    readonly apiUrl: string;
    readonly fetchConcurrent: number;
    readonly fetchRps: number;
  };
  readonly rag: {
    readonly vectordbUrl: string | null;
    readonly vectordbApiKey: string | null;
    readonly collection: string;
    readonly embedUrl: string | null;
    readonly embedToken: string | null;
  };
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** `null` when paper access is off: parser settings are then not even read. */
  readonly parser: ParserConfig | null;
  readonly idp: IdpConfig;
}
