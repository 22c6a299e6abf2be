/**
 * The MCP tools of CONTRACT §20, written once over an `ApiCaller`: each asks the REST route that answers it and
 * passes the route's body on (or its detail as an `isError` result). `pks mcp` and pksd's `/mcp` serve these.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { JobSnapshot } from '../shared/api/jobs.js';
import type { PaperDetail } from '../shared/api/registry.js';
import { BATCH_MAX_IDS } from '../shared/api/registry.js';
import { parsePaperRef } from '../shared/paper-ref.js';
import type { Scope } from '../shared/scopes.js';
import { paperPath, replyJson, type ApiCaller, type ApiReply } from './caller.js';
import { errorResult, jsonResult, replyError, text, type ToolResult } from './results.js';
import { MarkdownIndexes } from './markdown-indexes.js';
import {
  CodePoints,
  markdownWindow,
  MIN_WINDOW_CHARS,
  outline,
  sliceWindow,
  windowBytes,
  type Heading,
  type MarkdownWindow,
} from './text-window.js';
import { ENDED_STATES, progressMessage } from './wait.js';

/** What a tool may use while it runs. */
export interface ToolContext {
  readonly call: ApiCaller;
  /** Aborted when the client cancels the request. */
  readonly signal: AbortSignal;
  /** Sends a progress notification (a no-op when the client asked for none). */
  progress(progress: number, total: number | undefined, message: string): Promise<void>;
  /** How often a waiting `paper_markdown` polls the job (ms). */
  readonly pollMs: number;
  now(): number;
  /** Where `paper_markdown` keeps the indexes that let it read a piece as a byte range; absent: whole reads. */
  readonly markdownIndexes?: MarkdownIndexes;
}

/** A feature the server must have for a tool to be listed. */
export type Feature = 'paperAccess' | 'chunkSearch' | 'graph';

export interface ToolDef<S extends TSchema = TSchema> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly scope: Scope;
  readonly needs?: Feature;
  readonly input: S;
  run(input: Static<S>, ctx: ToolContext): Promise<ToolResult>;
}

const define = <S extends TSchema>(tool: ToolDef<S>): ToolDef => tool as unknown as ToolDef;

export const DEFAULT_MAX_CHARS = 40_000;
export const MAX_MAX_CHARS = 1_000_000;
export const DEFAULT_WAIT_SECONDS = 120;
export const MAX_WAIT_SECONDS = 3600;
/** Largest image `paper_image` returns (CONTRACT §20). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const PaperId = Type.String({
  minLength: 1,
  description: 'arXiv id (with or without version), bare old-style number, DOI, or an arxiv.org / doi.org URL',
});

/** What the paper routes take for a pasted reference: the id inside an arxiv.org or doi.org URL, else the input. */
export function routeId(input: string): string {
  const ref = parsePaperRef(input);
  return ref.kind === 'url' ? ref.ref : input.trim();
}

const ok = (reply: ApiReply, ...statuses: number[]): boolean => statuses.includes(reply.status);
const body = <T>(reply: ApiReply): T => replyJson(reply) as T;

/** `GET` of a route whose 200 body is the answer. */
async function getJson(ctx: ToolContext, path: string, query?: Record<string, string | undefined>) {
  const reply = await ctx.call({ method: 'GET', path, ...(query ? { query } : {}), signal: ctx.signal });
  return ok(reply, 200) ? jsonResult(replyJson(reply)) : replyError(reply);
}

/** The stored markdown of a paper, never starting a job: `null` and the reason when it is not stored. */
export async function storedMarkdown(
  call: ApiCaller,
  id: string,
  signal?: AbortSignal,
): Promise<{ markdown: string } | { error: ToolResult }> {
  const path = paperPath(routeId(id));
  const status = await call({ method: 'GET', path: `${path}/markdown/status`, ...(signal ? { signal } : {}) });
  if (!ok(status, 200)) return { error: replyError(status) };
  const job = body<JobSnapshot>(status);
  if (job.state !== 'cached') {
    return {
      error: errorResult(
        `the markdown of ${job.preprint_id} is not stored (state ${job.state}); paper_markdown converts it`,
        text(JSON.stringify(job)),
      ),
    };
  }
  const reply = await call({ method: 'GET', path: `${path}/markdown`, ...(signal ? { signal } : {}) });
  if (!ok(reply, 200)) return { error: replyError(reply) };
  return { markdown: reply.body.toString('utf8') };
}

/** The piece asked for, and the hint to the next one (two text items). */
function windowResult(window: MarkdownWindow | null, offset: number, total: () => number): ToolResult {
  if (window === null) return errorResult(`offset ${offset} is past the end of the markdown (${total()} characters)`);
  return { content: window.hint === null ? [text(window.text)] : [text(window.text), text(window.hint)] };
}

/** The piece of the whole `markdown` asked for. */
const wholeWindowResult = (markdown: Buffer, offset: number, maxChars: number): ToolResult =>
  windowResult(
    markdownWindow(markdown, offset, maxChars),
    offset,
    () => new CodePoints(markdown.toString('utf8')).length,
  );

/**
 * `GET …/markdown` for a piece: with the markdown's index, only the bytes the piece needs (`Range`), cut into the
 * `piece`; else the answer of the whole read (a markdown changed since it was indexed — another ETag or size, or
 * 416 — is read again whole), which the caller handles as before.
 */
async function readPiece(
  ctx: ToolContext,
  path: string,
  offset: number,
  maxChars: number,
): Promise<{ piece: ToolResult } | { reply: ApiReply }> {
  const whole = () => ctx.call({ method: 'GET', path, signal: ctx.signal });
  const known = ctx.markdownIndexes?.get(path);
  if (known === undefined || known.index.size === 0) return { reply: await whole() };
  const span = windowBytes(known.index, offset, maxChars);
  const reply = await ctx.call({
    method: 'GET',
    path,
    headers: { range: `bytes=${span.start}-${span.end - 1}` },
    signal: ctx.signal,
  });
  const slice = ok(reply, 206) ? MarkdownIndexes.slice(reply, known, span.start) : null;
  if (slice !== null) {
    const { total } = known.index;
    const window = sliceWindow({ ...slice, firstPoint: span.firstPoint, total }, offset, maxChars);
    return { piece: windowResult(window, offset, () => total) };
  }
  return { reply: ok(reply, 206, 416) ? await whole() : reply };
}

/** Polls the job of a 202 until the markdown is stored, the job ends, the wait ends or the client cancels. */
async function waitForMarkdown(
  ctx: ToolContext,
  path: string,
  first: JobSnapshot,
  waitSeconds: number,
  window: (reply: ApiReply) => ToolResult,
): Promise<ToolResult> {
  const deadline = ctx.now() + waitSeconds * 1000;
  let job = first;
  for (let polls = 1; ; polls++) {
    if (job.state === 'cached') {
      const reply = await ctx.call({ method: 'GET', path: `${path}/markdown`, signal: ctx.signal });
      if (ok(reply, 200)) return window(reply);
      if (!ok(reply, 202)) return replyError(reply);
      job = body<JobSnapshot>(reply);
    }
    if (ENDED_STATES.has(job.state)) {
      return errorResult(job.detail ?? `the job ended in state ${job.state}`, text(JSON.stringify(job)));
    }
    await ctx.progress(polls, undefined, progressMessage(job, ctx.now()));
    const left = deadline - ctx.now();
    if (left <= 0) {
      return {
        content: [
          text(`still converting after ${waitSeconds} s; call paper_markdown again to keep waiting`),
          text(JSON.stringify(job)),
        ],
      };
    }
    await delay(Math.min(ctx.pollMs, left), undefined, { signal: ctx.signal });
    const status = await ctx.call({ method: 'GET', path: `${path}/markdown/status`, signal: ctx.signal });
    if (!ok(status, 200)) return replyError(status);
    job = body<JobSnapshot>(status);
  }
}

const MaxChars = Type.Optional(
  Type.Integer({
    minimum: MIN_WINDOW_CHARS,
    maximum: MAX_MAX_CHARS,
    description: `most characters of the answer, hint included (default ${DEFAULT_MAX_CHARS})`,
  }),
);

const paperMarkdown = define({
  name: 'paper_markdown',
  title: 'Read a paper as markdown',
  description:
    'The markdown of a paper, from `offset` (Unicode characters), cut at a line end so that the answer stays within ' +
    '`max_chars`; a cut answer ends with "[… N more characters; call again with offset=M]". Converts the paper when ' +
    'it is not stored yet, waiting up to `wait_seconds` (with progress notifications), else returns the job status. ' +
    'Use paper_outline first to read one section at a time.',
  scope: 'papers:read',
  needs: 'paperAccess',
  input: Type.Object(
    {
      id: PaperId,
      offset: Type.Optional(Type.Integer({ minimum: 0, description: 'first character (default 0)' })),
      max_chars: MaxChars,
      wait_seconds: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_WAIT_SECONDS,
          description: `how long to wait for a conversion (default ${DEFAULT_WAIT_SECONDS})`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  async run(input, ctx) {
    const path = paperPath(routeId(input.id));
    const offset = input.offset ?? 0;
    const maxChars = input.max_chars ?? DEFAULT_MAX_CHARS;
    const window = (reply: ApiReply) => {
      ctx.markdownIndexes?.remember(`${path}/markdown`, reply);
      return wholeWindowResult(reply.body, offset, maxChars);
    };
    const read = await readPiece(ctx, `${path}/markdown`, offset, maxChars);
    if ('piece' in read) return read.piece;
    const { reply } = read;
    if (ok(reply, 200)) return window(reply);
    if (!ok(reply, 202)) return replyError(reply);
    return waitForMarkdown(ctx, path, body<JobSnapshot>(reply), input.wait_seconds ?? DEFAULT_WAIT_SECONDS, window);
  },
});

/** Headings an outline answer may hold before deeper levels are left out. */
function outlineWithin(headings: readonly Heading[], maxChars: number): { headings: Heading[]; omitted: number } {
  for (let level = 6; level >= 1; level--) {
    const kept = headings.filter((h) => h.level <= level);
    if (JSON.stringify(kept).length <= maxChars - 200 || level === 1) {
      let cut = kept;
      while (JSON.stringify(cut).length > maxChars - 200) cut = cut.slice(0, Math.floor(cut.length / 2));
      return { headings: cut, omitted: headings.length - cut.length };
    }
  }
  return { headings: [], omitted: headings.length };
}

const paperOutline = define({
  name: 'paper_outline',
  title: 'Outline of a paper',
  description:
    'The headings of the stored markdown of a paper: level, text, offset and length (Unicode characters) of each ' +
    'section, so that paper_markdown can fetch one section (offset, max_chars ≥ length + 80). Never starts a ' +
    'conversion.',
  scope: 'papers:read',
  needs: 'paperAccess',
  input: Type.Object({ id: PaperId }, { additionalProperties: false }),
  async run(input, ctx) {
    const stored = await storedMarkdown(ctx.call, input.id, ctx.signal);
    if ('error' in stored) return stored.error;
    const points = new CodePoints(stored.markdown);
    const { headings, omitted } = outlineWithin(outline(points), DEFAULT_MAX_CHARS);
    return jsonResult({ total_chars: points.length, headings, ...(omitted > 0 ? { omitted_headings: omitted } : {}) });
  },
});

const paperMetadata = define({
  name: 'paper_metadata',
  title: 'Paper metadata and stored versions',
  description:
    'Title, authors, abstract, publication date, DOI and citation count of a paper, with the versions the server ' +
    'stores (PDF and markdown sizes, image counts). Never starts work.',
  scope: 'papers:read',
  input: Type.Object({ id: PaperId }, { additionalProperties: false }),
  async run(input, ctx) {
    const reply = await ctx.call({ method: 'GET', path: paperPath(routeId(input.id)), signal: ctx.signal });
    if (!ok(reply, 200)) return replyError(reply);
    const detail = body<PaperDetail>(reply);
    return jsonResult({ preprint_id: detail.preprint_id, metadata: detail.metadata, versions: detail.versions });
  },
});

const paperFigures = define({
  name: 'paper_figures',
  title: 'Figures of a paper',
  description:
    'The figures found in the stored markdown of a paper: number, caption, context and image names (read one ' +
    'with paper_image).',
  scope: 'papers:read',
  input: Type.Object({ id: PaperId }, { additionalProperties: false }),
  run: (input, ctx) => getJson(ctx, `${paperPath(routeId(input.id))}/figures`),
});

const paperImage = define({
  name: 'paper_image',
  title: 'An image of a paper',
  description: `One stored image of a paper (a name from paper_figures), as image content (at most ${MAX_IMAGE_BYTES} bytes).`,
  scope: 'papers:read',
  needs: 'paperAccess',
  input: Type.Object(
    { id: PaperId, name: Type.String({ minLength: 1, description: 'image name, e.g. fig1.png' }) },
    { additionalProperties: false },
  ),
  async run(input, ctx) {
    const name = input.name
      .replace(/^images\//, '')
      .split('/')
      .map(encodeURIComponent)
      .join('/');
    const reply = await ctx.call({
      method: 'GET',
      path: `${paperPath(routeId(input.id))}/images/${name}`,
      signal: ctx.signal,
    });
    if (!ok(reply, 200)) return replyError(reply);
    if (reply.body.length > MAX_IMAGE_BYTES) {
      return errorResult(`image ${input.name} is ${reply.body.length} bytes, more than ${MAX_IMAGE_BYTES}`);
    }
    const mimeType = (reply.header('content-type') ?? 'application/octet-stream').split(';')[0]!.trim();
    return { content: [{ type: 'image', data: reply.body.toString('base64'), mimeType }] };
  },
});

/** The items of one batch request, as many as the server answers at once. */
const itemBatch = Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: BATCH_MAX_IDS });

/**
 * A tool asking the batch route `path` (a GET) about the items its input lists under `field`, sent as the route's
 * comma-separated `ids`: an item holding a comma cannot be sent, and the error names it as an `item`.
 */
function batchTool(
  field: string,
  item: string,
  path: string,
  about: Pick<ToolDef, 'name' | 'title' | 'description'>,
): ToolDef {
  return define({
    ...about,
    scope: 'papers:read',
    input: Type.Object({ [field]: itemBatch }, { additionalProperties: false }),
    async run(input, ctx) {
      const items = input[field]!; // the schema requires it
      const bad = items.find((i) => i.includes(','));
      if (bad !== undefined) return errorResult(`${item} '${bad}' holds a comma, which separates the list`);
      return getJson(ctx, path, { ids: items.join(',') });
    },
  });
}

const paperStatus = batchTool('ids', 'id', '/api/papers/status/batch', {
  name: 'paper_status',
  title: 'Storage status of papers',
  description: `Whether the server stores the markdown and PDF of up to ${BATCH_MAX_IDS} papers, and their jobs.`,
});

const paperLookup = batchTool('refs', 'ref', '/api/papers/lookup', {
  name: 'paper_lookup',
  title: 'Resolve references',
  description:
    `Resolve up to ${BATCH_MAX_IDS} references (arxiv:<id>, doi:<doi>, openalex:<id>): is the paper known, hosted ` +
    'here, its markdown ready; title, authors and year.',
});

const paperList = define({
  name: 'paper_list',
  title: 'List stored papers',
  description: 'The papers the server stores, newest first, 20 per page; `q` matches id or title.',
  scope: 'papers:read',
  input: Type.Object(
    {
      q: Type.Optional(Type.String({ description: 'case-insensitive substring of id or title' })),
      has_md: Type.Optional(Type.Boolean({ description: 'only papers with (true) or without (false) markdown' })),
      page: Type.Optional(Type.Integer({ minimum: 1 })),
    },
    { additionalProperties: false },
  ),
  run: (input, ctx) =>
    getJson(ctx, '/api/papers', {
      q: input.q,
      has_md: input.has_md === undefined ? undefined : String(input.has_md),
      page: input.page === undefined ? undefined : String(input.page),
    }),
});

const wikiSearch = define({
  name: 'wiki_search',
  title: 'Search the wiki',
  description: 'Full-text search (BM25) over the wiki pages: id, title, type, category, snippet and score.',
  scope: 'wiki:read',
  input: Type.Object(
    {
      q: Type.String({ description: 'search terms' }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    },
    { additionalProperties: false },
  ),
  run: (input, ctx) =>
    getJson(ctx, '/api/search', { q: input.q, limit: input.limit === undefined ? undefined : String(input.limit) }),
});

const wikiPage = define({
  name: 'wiki_page',
  title: 'A wiki page',
  description: 'One wiki page: its frontmatter facts, outgoing links and backlinks (JSON), then its markdown.',
  scope: 'wiki:read',
  input: Type.Object({ id: Type.String({ minLength: 1, description: 'page id' }) }, { additionalProperties: false }),
  async run(input, ctx) {
    const reply = await ctx.call({ method: 'GET', path: wikiPagePath(input.id), signal: ctx.signal });
    if (!ok(reply, 200)) return replyError(reply);
    const { content, ...facts } = body<{ content: string } & Record<string, unknown>>(reply);
    return { content: [text(JSON.stringify(facts)), text(content)] };
  },
});

export const wikiPagePath = (id: string): string => `/api/pages/${encodeURIComponent(id)}`;

const graphSchema = define({
  name: 'graph_schema',
  title: 'Graph schema',
  description: 'Labels (with node counts), relationship types and property keys of the citation and concept graph.',
  scope: 'graph:read',
  needs: 'graph',
  input: Type.Object({}, { additionalProperties: false }),
  async run(_input, ctx) {
    const [schema, stats] = await Promise.all([
      ctx.call({ method: 'GET', path: '/api/graph/schema', signal: ctx.signal }),
      ctx.call({ method: 'GET', path: '/api/graph/stats', signal: ctx.signal }),
    ]);
    for (const reply of [schema, stats]) {
      if (!ok(reply, 200)) return replyError(reply);
      const error = body<{ error?: string }>(reply).error;
      if (error !== undefined) return errorResult(error);
    }
    const s = body<Record<string, unknown>>(stats);
    return jsonResult({
      ...body<Record<string, unknown>>(schema),
      label_counts: s['label_counts'],
      nodes: s['nodes'],
      relationships: s['relationships'],
    });
  },
});

const graphQuery = define({
  name: 'graph_query',
  title: 'Query the graph',
  description:
    'Run a read-only Cypher query (a LIMIT is appended when the query has none; default 50, at most 10 000 ' +
    'records). Writes, file access and procedures outside a small allow-list are refused.',
  scope: 'graph:read',
  needs: 'graph',
  input: Type.Object(
    {
      query: Type.String({ minLength: 1, description: 'Cypher' }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    },
    { additionalProperties: false },
  ),
  async run(input, ctx) {
    const reply = await ctx.call({
      method: 'POST',
      path: '/api/graph/query',
      body: { query: input.query, ...(input.limit !== undefined ? { limit: input.limit } : {}) },
      signal: ctx.signal,
    });
    if (!ok(reply, 200)) return replyError(reply);
    const answer = body<{ error?: string }>(reply);
    return answer.error !== undefined ? errorResult(answer.error, text(JSON.stringify(answer))) : jsonResult(answer);
  },
});

const chunkSearch = define({
  name: 'chunk_search',
  title: 'Search paper passages',
  description: 'Semantic search over the passages of the stored papers: the best-matching chunks with their papers.',
  scope: 'papers:read',
  needs: 'chunkSearch',
  input: Type.Object(
    {
      query: Type.String({ minLength: 1 }),
      top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
      filter: Type.Optional(
        Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
          description: 'payload key → exact value (all must match)',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  async run(input, ctx) {
    const reply = await ctx.call({
      method: 'POST',
      path: '/api/rag/search',
      body: {
        query: input.query,
        ...(input.top_k !== undefined ? { top_k: input.top_k } : {}),
        ...(input.filter !== undefined ? { filters: input.filter } : {}),
      },
      signal: ctx.signal,
    });
    return ok(reply, 200) ? jsonResult(replyJson(reply)) : replyError(reply);
  },
});

/** Every tool, in the order of CONTRACT §20. */
export const TOOLS: readonly ToolDef[] = [
  paperMarkdown,
  paperOutline,
  paperMetadata,
  paperFigures,
  paperImage,
  paperStatus,
  paperLookup,
  paperList,
  wikiSearch,
  wikiPage,
  graphSchema,
  graphQuery,
  chunkSearch,
];
