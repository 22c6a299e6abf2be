/** Response shapes of the pksd API (CONTRACT §4.3, §7, §9.2, §11.2, §13.4, §14). */

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

export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'consumed' | 'expired';
export interface DeviceRequest {
  user_code: string;
  name: string;
  description: string;
  scopes: string[];
  expires_in_days: number;
  status: DeviceStatus;
  available_scopes: string[];
  scope_descriptions: Record<string, string>;
  max_expiry_days: number;
}

export type PageType = 'concept' | 'entity' | 'source' | 'comparison';
export type PageStatus = 'draft' | 'review' | 'published';
export interface PageSummary {
  id: string;
  title: string;
  type: PageType;
  category: string;
  status: PageStatus;
  tags: string[];
}
export interface PageList {
  total: number;
  pages: PageSummary[];
}
export interface ExternalLink {
  label: string;
  url: string;
  kind?: string;
  note?: string;
}
export interface PageDetail {
  id: string;
  title: string;
  type: PageType;
  category: string;
  tags: string[];
  status: PageStatus;
  created_at: string | null;
  updated_at: string | null;
  related: string[];
  doi: string | null;
  content: string;
  links: string[];
  backlinks: string[];
  frontmatter: Record<string, unknown>;
}
export interface WikiStats {
  total_pages: number;
  entries: number;
  sources: number;
  by_type: Record<string, number>;
  by_status: Record<string, number>;
  by_category: Record<string, number>;
  synced_to_graph: number;
  needs_sync: number;
  invalid_pages: number;
}
export interface SearchHit {
  id: string;
  title: string;
  type: PageType;
  category: string;
  snippet: string;
  score: number;
}
export interface SearchResult {
  query: string;
  total: number;
  results: SearchHit[];
}
export interface SyncWarning {
  code: string;
  message: string;
}
export interface SyncStatus {
  wiki: { exists: boolean; external: boolean };
  git: {
    enabled: boolean;
    branch?: string | null;
    commit?: string;
    commit_time?: string;
    upstream?: string | null;
    ahead?: number | null;
    behind?: number | null;
    dirty?: boolean;
    warnings?: SyncWarning[];
  };
}
export interface PullResult {
  status: string;
  changed: boolean;
  old_commit: string;
  new_commit: string;
}

export type PaperStats =
  | { available: false }
  | {
      available: true;
      total: number;
      has_pdf: number;
      has_md: number;
      has_json: number;
      needs_parser: number;
      total_images: number;
      loaded_at: string;
    };
export interface QueuedPaper {
  preprint_id: string;
  key: string;
  pdf_path: string;
  pdf_uploaded_at: string | null;
  claimed: boolean;
  claim_expires_at: string | null;
  claim_requester: string | null;
}
export interface NeedsParser {
  papers: QueuedPaper[];
  returned: number;
  total_unclaimed: number;
  total_claimed: number;
  available: boolean;
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

export interface GraphStats {
  nodes: number;
  relationships: number;
  labels: string[];
  label_counts: Record<string, number>;
}
export interface GraphSchema {
  labels: string[];
  relationship_types: string[];
  property_keys: string[];
}
export interface GraphQueryResult {
  query: string;
  columns: string[];
  records: Record<string, unknown>[];
  truncated: boolean;
}
/** Graph routes answer 200 `{error}` when the graph is unconfigured or fails (CONTRACT §14). */
export type GraphAnswer<T> = T | { error: string; query?: string };
