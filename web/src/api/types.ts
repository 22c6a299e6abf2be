/**
 * Response shapes of the pksd API (CONTRACT §4.3, §7, §9.2, §11.2, §13.4, §14). Bodies the server declares as
 * types are re-exported from it type-only, so no server code reaches the bundle (web/tsconfig.json adds Node's
 * types for checking those modules). The rest exist on the server only as route schemas, or more loosely typed
 * (the job snapshot's `fetch`/`convert`/`queue`), and are declared here.
 */
export type { DeviceRequestView, DeviceStatus } from '../../../src/server/auth/device';
export type { GraphQueryResult, GraphSchema, GraphStats } from '../../../src/server/graph/service';
export type { NeedsParserPage, PaperStats } from '../../../src/server/papers/service';
export type { PullBody, SyncStatusBody } from '../../../src/server/wiki/service';
export type {
  PageDetailResponse,
  PageListItem,
  PageListResponse,
  SearchResponse,
  StatsResponse,
} from '../../../src/wiki/api';
export type { ExternalLink } from '../../../src/wiki/types';

export interface ScopeInfo {
  name: string;
  description: string;
}
export interface ScopeList {
  scopes: ScopeInfo[];
  max_expiry_days: number;
}

export interface ServerInfo {
  version: string;
  paper_access: boolean;
  graph_configured: boolean;
  oauth_enabled: boolean;
}

export interface PatCreated {
  id: string;
  name: string;
  prefix: string;
  plaintext: string;
  description: string;
  scopes: string[];
  expires_at: string;
  created: string;
}
export interface PatItem {
  id: string;
  name: string;
  prefix: string;
  description: string;
  scopes: string[];
  expires_at: string;
  last_used_at: string | null;
  created: string;
  expired: boolean;
}

export type JobState = 'cached' | 'queued' | 'running' | 'failed' | 'cooldown' | 'none' | 'unavailable';
export interface JobSnapshot {
  preprint_id: string;
  state: JobState;
  phase: '' | 'fetching_pdf' | 'converting_md' | 'ready' | 'error_fetching' | 'error_converting';
  pdf_ready: boolean;
  md_ready: boolean;
  submitted_at?: string;
  started_at?: string;
  detail?: string;
  kind?: 'fatal' | 'retryable' | 'daily_limit' | 'quota_exhausted';
  retry_after?: number;
  retry_after_iso?: string;
  markdown_url?: string;
  pdf_url?: string;
  operation?: { status_url: string; next_poll_after_iso: string };
  fetch?: {
    started_at?: string;
    completed_at?: string;
    bytes_received?: number;
    bytes_total?: number | null;
    sha256?: string;
    attempts?: number;
  };
  convert?: {
    started_at?: string;
    parser_task_id?: string;
    stage?: string;
    polled_count?: number;
    completed_at?: string;
    extracted_pages?: number;
    total_pages?: number;
  };
  queue?: {
    position?: number;
    ahead_of_me?: number;
    running_count: number;
    max_concurrent: number;
    eta_seconds?: number;
    avg_duration_seconds: number;
    eta_basis: string;
  };
  requested_id?: string;
  resolved_id?: string;
  defaults_applied?: string[];
}

/** Graph routes answer 200 `{error}` when the graph is unconfigured or fails (CONTRACT §14). */
export type GraphAnswer<T> = T | { error: string; query?: string };
