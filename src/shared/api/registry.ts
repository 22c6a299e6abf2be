/**
 * The paper registry's answers (CONTRACT §18) and the original clients' downloader answers (§19). TypeBox only:
 * the server documents its routes with these schemas, and the web and `pks` read their bodies through the
 * `Static<>` types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, OpenObject, Sha256, Timestamp } from './common.js';
import { JobSnapshot } from './jobs.js';

/** Per-preprint metadata (§18.1), version-independent. */
export const PaperMetadata = Type.Object(
  {
    title: Type.String(),
    authors: Type.Array(Type.String()),
    abstract: Type.String(),
    published: Type.String({ description: 'YYYY-MM-DD' }),
    doi: Nullable(Type.String()),
    openalex_id: Nullable(Type.String()),
    cited_by_count: Nullable(Type.Integer()),
    source: Type.Union([Type.Literal('graph'), Type.Literal('arxiv'), Type.Literal('openalex')]),
  },
  { description: 'paper metadata (CONTRACT §18.1)' },
);
export type PaperMetadata = Static<typeof PaperMetadata>;

/** `GET /api/papers`: one page of the stored papers. */
export const PaperListItem = Type.Object({
  preprint_id: Type.String(),
  paper_id: Type.String({ description: 'the same as preprint_id (the original clients print it, CONTRACT §19)' }),
  status: Type.Union([Type.Literal('ready'), Type.Literal('pending')], {
    description: '`ready` when the markdown is stored, else `pending` (the original clients print it, CONTRACT §19)',
  }),
  title: Nullable(Type.String()),
  has_pdf: Type.Boolean(),
  has_md: Type.Boolean(),
  image_count: Type.Integer(),
  updated_at: Timestamp(),
});
export type PaperListItem = Static<typeof PaperListItem>;

export const PaperList = Type.Object({
  items: Type.Array(PaperListItem),
  total: Type.Integer(),
  page: Type.Integer(),
  per_page: Type.Integer(),
});
export type PaperList = Static<typeof PaperList>;

/** `GET /api/papers/{id}`: one preprint, every stored version, its metadata, claim and jobs. */
export const PaperVersion = Type.Object({
  version: Type.Integer(),
  has_pdf: Type.Boolean(),
  has_md: Type.Boolean(),
  pdf_size: Nullable(Type.Integer()),
  pdf_sha256: Nullable(Sha256()),
  md_size: Nullable(Type.Integer()),
  image_count: Type.Integer(),
  updated_at: Timestamp(),
});
export type PaperVersion = Static<typeof PaperVersion>;

export const PaperDetail = Type.Object({
  preprint_id: Type.String({ description: 'versionless canonical id' }),
  versions: Type.Array(PaperVersion),
  metadata: Nullable(PaperMetadata),
  claim: Nullable(Type.Object({ holder: Type.String(), expires_at: Timestamp() })),
  jobs: Type.Object({ markdown: Nullable(JobSnapshot), pdf: Nullable(JobSnapshot) }),
});
export type PaperDetail = Static<typeof PaperDetail>;

/** `GET /api/papers/status/batch?ids=…`: a pure probe, one result per requested id, in request order. */
export const BatchStatusItem = Type.Object({
  requested_id: Type.String(),
  resolved_id: Type.String({ description: 'canonical id, or "" when it cannot be resolved' }),
  md_ready: Type.Boolean(),
  pdf_ready: Type.Boolean(),
  image_count: Type.Integer(),
  state: Type.String({ description: 'cached, a job state, unavailable, none, or "" on error' }),
  phase: Type.String(),
  error: Type.String({ enum: ['', 'not found', 'invalid paper id'] }),
});
export type BatchStatusItem = Static<typeof BatchStatusItem>;

export const BatchStatus = Type.Object({ results: Type.Array(BatchStatusItem) });
export type BatchStatus = Static<typeof BatchStatus>;

/** At most this many ids per `status/batch` (more → 400) and refs per `lookup` (more are cut). */
export const BATCH_MAX_IDS = 200;

/** `GET /api/papers/lookup?ids=arxiv:…,doi:…,openalex:…`. */
export const LookupItem = Type.Object({
  ref: Type.String(),
  resolved: Type.Boolean(),
  hosted: Type.Boolean(),
  has_md: Type.Boolean(),
  preprint_id: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
  authors: Type.Optional(Type.Array(Type.String())),
  year: Type.Optional(Type.Integer()),
});
export type LookupItem = Static<typeof LookupItem>;

export const Lookup = Type.Object({
  results: Type.Array(LookupItem),
  corpus_available: Type.Boolean({ description: 'the graph is configured' }),
});
export type Lookup = Static<typeof Lookup>;

/** `GET /api/papers/{id}/figures`. */
export const FigureImage = Type.Object({ name: Type.String(), size: Type.Integer(), url: Type.String() });
export type FigureImage = Static<typeof FigureImage>;

export const Figure = Type.Object({
  fig_no: Type.Integer({ description: 'from the caption, else 0' }),
  caption: Type.String(),
  context: Type.String(),
  images: Type.Array(FigureImage),
});
export type Figure = Static<typeof Figure>;

export const Figures = Type.Object({
  preprint_id: Type.String(),
  markdown_ready: Type.Boolean(),
  figures: Type.Array(Figure),
  unmatched_images: Type.Array(FigureImage),
  image_count: Type.Integer(),
});
export type Figures = Static<typeof Figures>;

/** `POST /api/papers/fetch`: 1..50 items, each an id, DOI, arxiv.org abs/pdf URL or doi.org URL. */
export const FETCH_MAX_ITEMS = 50;

export const FetchRequest = Type.Object({
  items: Type.Array(Type.String(), { minItems: 1, maxItems: FETCH_MAX_ITEMS }),
  kind: Type.Optional(Type.Union([Type.Literal('markdown'), Type.Literal('pdf')])),
});
export type FetchRequest = Static<typeof FetchRequest>;

export const FetchResult = Type.Object({
  input: Type.String(),
  resolved_id: Nullable(Type.String()),
  state: Nullable(Type.String()),
  error: Nullable(Type.String()),
});
export type FetchResult = Static<typeof FetchResult>;

export const FetchAnswer = Type.Object({ results: Type.Array(FetchResult), enqueued: Type.Integer() });
export type FetchAnswer = Static<typeof FetchAnswer>;

/** `GET /api/papers/jobs?state=`: the jobs this instance (or cluster) holds. */
export const RegistryJob = Type.Intersect([
  JobSnapshot,
  Type.Object({ asset: Type.Union([Type.Literal('markdown'), Type.Literal('pdf')]) }),
]);
export type RegistryJob = Static<typeof RegistryJob>;

export const RegistryJobs = Type.Object({
  jobs: Type.Array(RegistryJob),
  queued: Type.Integer(),
  running: Type.Integer(),
});
export type RegistryJobs = Static<typeof RegistryJobs>;

/** `POST /api/downloader/fetch` (§19, the original clients' batch fetch). */
export const DownloaderFetchItem = Type.Object({
  input: Type.String(),
  kind: Type.Union([Type.Literal('arxiv'), Type.Literal('doi'), Type.Literal('url'), Type.Literal('invalid')]),
  paper_id: Type.Optional(Type.String()),
  created: Type.Boolean({ description: 'a job was started' }),
  error: Type.Optional(Type.String()),
});
export const DownloaderFetch = Type.Object({ items: Type.Array(DownloaderFetchItem), enqueued: Type.Integer() });
export type DownloaderFetch = Static<typeof DownloaderFetch>;

/** `GET /api/downloader/jobs` (§19). */
export const DownloaderJob = OpenObject({
  paper_id: Type.String(),
  input: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  state: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')]),
  phase: Type.String(),
  active: Type.Boolean(),
  error: Type.Optional(Type.String()),
  submitted_at: Timestamp(),
  updated_at: Timestamp(),
  finished_at: Type.Optional(Timestamp()),
  events: Type.Array(Type.Unknown()),
});
export const DownloaderJobs = Type.Object({
  jobs: Type.Array(DownloaderJob),
  counters: Type.Object({
    queued: Type.Integer(),
    in_flight: Type.Integer(),
    succeeded: Type.Integer(),
    failed: Type.Integer(),
    skipped: Type.Integer(),
  }),
});
export type DownloaderJobs = Static<typeof DownloaderJobs>;

/** `GET /api/downloader/remote-jobs` (§19): the original's remote fleet, which pksd does not have. */
export const DownloaderRemoteJobs = Type.Object({
  enabled: Type.Literal(false),
  jobs: Type.Array(Type.Unknown(), { maxItems: 0 }),
});
export type DownloaderRemoteJobs = Static<typeof DownloaderRemoteJobs>;
