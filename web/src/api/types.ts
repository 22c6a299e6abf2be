/**
 * Response shapes of the pksd API (CONTRACT §4.3, §7, §9.2, §11.2, §13.4, §14, §18). Every body is the server's own
 * declaration, imported type-only so no server code reaches the bundle (web/tsconfig.json adds Node's types for
 * checking those modules): the `Static<>` types of the shared wire schemas of src/shared/api, or its types. Nothing
 * here restates a body.
 */
import type { GraphFailure, GraphQueryFailure } from '../../../src/shared/api/graph.js';
import type { ScopeList as ScopeListBody, ServerInfo as ServerInfoBody } from '../../../src/shared/api/meta.js';
import type { Created, Listed } from '../../../src/shared/api/tokens.js';
export type { DeviceRequestView, DeviceStatus } from '../../../src/shared/api/device.js';
export type { GraphQueryResult, GraphSchema, GraphStats } from '../../../src/shared/api/graph.js';
export type { JobSnapshot, JobState } from '../../../src/shared/api/jobs.js';
export type {
  Figure,
  FigureImage,
  Figures,
  PaperDetail,
  PaperList,
  PaperListItem,
  PaperMetadata,
  PaperVersion,
} from '../../../src/shared/api/registry.js';
export type { NeedsParser as NeedsParserPage, PaperStats } from '../../../src/shared/api/parser-claims.js';
export type { PullResult as PullBody, SyncStatus as SyncStatusBody } from '../../../src/shared/api/wiki-sync.js';
export type {
  PageDetailResponse,
  PageListItem,
  PageListResponse,
  SearchResponse,
  StatsResponse,
} from '../../../src/wiki/api.js';
export type { ExternalLink } from '../../../src/wiki/types.js';

/** `GET /api/server/info` (CONTRACT §8.2). */
export type ServerInfo = ServerInfoBody;
/** `GET /api/pat/scopes` (CONTRACT §7.4). */
export type ScopeList = ScopeListBody;
export type ScopeInfo = ScopeList['scopes'][number];
/** `POST /api/pat` (the plaintext is shown once) and an item of `GET /api/pat` (CONTRACT §7.3). */
export type PatCreated = Created;
export type PatItem = Listed;

/** Graph routes answer 200 `{error}` when the graph is unconfigured or fails (CONTRACT §14). */
export type GraphAnswer<T> = T | GraphFailure | GraphQueryFailure;
