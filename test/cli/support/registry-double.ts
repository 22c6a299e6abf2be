/**
 * A loopback stand-in of the paper registry routes (CONTRACT §18.2) over a small in-memory catalogue, for the
 * formatting, option and exit-code tests of the `pks paper` registry commands (§16.8). It reads the query
 * parameters as the real routes do (booleans and integers per §0.2, clamping, 400 naming the parameter) and checks
 * every JSON answer against the wire schemas of src/shared/api before sending it, so what the client is tested
 * against has exactly the shapes the server documents. Every answer carries `X-Svc-Server-Version`.
 */
import type { ServerResponse } from 'node:http';
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  BATCH_MAX_IDS,
  BatchStatus,
  FETCH_MAX_ITEMS,
  FetchAnswer,
  Figures,
  Lookup,
  PaperDetail,
  PaperList,
  RegistryJobs,
  type BatchStatusItem,
  type LookupItem,
  type PaperListItem,
} from '../../../src/shared/api/registry.js';
import { JobSnapshot } from '../../../src/shared/api/jobs.js';
import { parsePreprintId } from '../../../src/shared/ids.js';
import { sendJson, startHttpDouble } from '../../support/upstreams/http-double.js';
import { withLiveState } from '../../support/upstreams/live-state.js';
import { versionedDouble, type VersionedDouble } from './server-double.js';

/** One stored paper of the catalogue (one stored version per paper is enough for the client's formats). */
export interface StandInPaper {
  readonly detail: PaperDetail;
  readonly title: string | null;
  readonly figures: Figures | null;
  /** Stored images by name. */
  readonly images: Readonly<Record<string, Buffer>>;
  /** The bytes of `images/zip`. */
  readonly zip?: Buffer;
}

export interface RegistryDouble extends VersionedDouble {
  readonly papers: StandInPaper[];
  /** Lookup answers by ref; a ref not listed is unresolved. */
  readonly lookups: Map<string, Omit<LookupItem, 'ref'>>;
  /** Answers of `GET /api/papers/jobs`, used in order; the last one repeats. */
  jobs: RegistryJobs[];
  /** `POST /api/papers/fetch` answers 404 when off (paper access off, §18.2). */
  paperAccess: boolean;
}

// The wire's timestamps (CONTRACT §0.2): RFC 3339 UTC with second precision.
if (!FormatRegistry.Has('date-time')) {
  FormatRegistry.Set('date-time', (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(value));
}

/** Sends `body` after checking it against `schema`: a stand-in answer of another shape fails the test loudly. */
function sendChecked(res: ServerResponse, schema: TSchema, body: unknown, headers: Record<string, string>): void {
  if (!Value.Check(schema, body)) {
    const first = [...Value.Errors(schema, body)][0];
    throw new Error(`stand-in answer does not match its schema: ${first?.path} ${first?.message}`);
  }
  sendJson(res, 200, body, headers);
}

class BadRequest extends Error {}

/** §0.2 query booleans: `true`/`1`, `false`/`0`/absent; anything else is a 400. */
function queryBool(params: URLSearchParams, name: string): boolean | undefined {
  const value = params.get(name);
  if (value === null) return undefined;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new BadRequest(`${name} must be a boolean`);
}

function queryInt(params: URLSearchParams, name: string, fallback: number): number {
  const value = params.get(name);
  if (value === null || value === '') return fallback;
  if (!/^-?\d+$/.test(value)) throw new BadRequest(`${name} must be an integer`);
  return Number(value);
}

/** Ids or refs of a comma list: trimmed, empties dropped, first seen kept. */
const idList = (text: string | null): string[] => [
  ...new Set(
    (text ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  ),
];

export async function startRegistryDouble(version = '0.1.0'): Promise<RegistryDouble> {
  const state = {
    version,
    papers: [] as StandInPaper[],
    lookups: new Map<string, Omit<LookupItem, 'ref'>>(),
    jobs: [{ jobs: [], queued: 0, running: 0 }] as RegistryJobs[],
    paperAccess: true,
  };
  const find = (raw: string): StandInPaper | undefined => {
    const id = parsePreprintId(raw);
    if (id === null) return undefined;
    return state.papers.find(
      (p) =>
        p.detail.preprint_id === id.versionless &&
        (id.version === null || p.detail.versions.some((v) => v.version === id.version)),
    );
  };

  // async: a stand-in bug (an answer of the wrong shape) becomes a 500 the test sees, not a hung request.
  const double = await startHttpDouble(async (req, res) => {
    const url = new URL(req.url, 'http://stand-in.test');
    const path = decodeURIComponent(url.pathname);
    const headers = { 'x-svc-server-version': state.version };
    const notFound = (detail: string) => sendJson(res, 404, { detail }, headers);
    try {
      if (req.method === 'GET' && path === '/api/server/info') {
        return sendJson(res, 200, { mode: 'server', version: state.version }, headers);
      }
      if (req.method === 'GET' && path === '/api/papers') return list(url.searchParams, res, headers);
      if (req.method === 'GET' && path === '/api/papers/status/batch') {
        const ids = idList(url.searchParams.get('ids'));
        if (ids.length === 0) throw new BadRequest('ids: at least one id is required');
        if (ids.length > BATCH_MAX_IDS) {
          return sendJson(res, 400, { detail: `too many ids: ${ids.length} (max 200)`, max: 200 }, headers);
        }
        return sendChecked(res, BatchStatus, { results: ids.map(batchItem) }, headers);
      }
      if (req.method === 'GET' && path === '/api/papers/lookup') {
        const refs = idList(url.searchParams.get('ids')).slice(0, BATCH_MAX_IDS);
        if (refs.length === 0) throw new BadRequest('ids: at least one reference is required');
        const results = refs.map((ref): LookupItem => ({
          ref,
          ...(state.lookups.get(ref) ?? { resolved: false, hosted: false, has_md: false }),
        }));
        return sendChecked(res, Lookup, { results, corpus_available: true }, headers);
      }
      if (req.method === 'GET' && path === '/api/papers/jobs') {
        const answer = state.jobs.length > 1 ? state.jobs.shift()! : state.jobs[0]!;
        return sendChecked(res, RegistryJobs, answer, headers);
      }
      if (req.method === 'POST' && path === '/api/papers/fetch') {
        if (!state.paperAccess) return notFound('not found');
        return fetch(req.body, res, headers);
      }
      const m = /^\/api\/papers\/(.+?)\/(figures|images\/zip|images\/(.+)|markdown\/status)$/.exec(path);
      if (req.method === 'GET' && m) {
        const paper = find(m[1]!);
        if (m[2] === 'markdown/status') {
          const snapshot = {
            preprint_id: m[1]!,
            state: paper?.detail.versions[0]?.has_md ? 'cached' : 'none',
            phase: paper?.detail.versions[0]?.has_md ? 'ready' : '',
            pdf_ready: paper?.detail.versions[0]?.has_pdf ?? false,
            md_ready: paper?.detail.versions[0]?.has_md ?? false,
          };
          return sendChecked(res, JobSnapshot, snapshot, headers);
        }
        if (m[2] === 'figures') {
          if (!paper) return notFound(`not hosted: ${m[1]!}`);
          const figures = paper.figures ?? {
            preprint_id: m[1]!,
            markdown_ready: false,
            figures: [],
            unmatched_images: [],
            image_count: Object.keys(paper.images).length,
          };
          return sendChecked(res, Figures, figures, headers);
        }
        if (m[2] === 'images/zip') {
          if (!paper?.zip) return notFound(`no images stored for ${m[1]!}`);
          return bytes(res, paper.zip, 'application/zip', headers);
        }
        const image = paper?.images[m[3]!];
        if (!image) return notFound('image not found');
        return bytes(res, image, 'image/png', headers);
      }
      if (req.method === 'GET' && path.startsWith('/api/papers/')) {
        const paper = find(path.slice('/api/papers/'.length));
        if (!paper) return notFound(`not hosted: ${path.slice('/api/papers/'.length)}`);
        return sendChecked(res, PaperDetail, paper.detail, headers);
      }
      return notFound('not found');
    } catch (err) {
      if (err instanceof BadRequest) return sendJson(res, 400, { detail: err.message }, headers);
      throw err;
    }
  });

  function list(params: URLSearchParams, res: ServerResponse, headers: Record<string, string>): void {
    const q = (params.get('q') ?? '').toLowerCase();
    const hasMd = queryBool(params, 'has_md');
    const hasPdf = queryBool(params, 'has_pdf');
    const sort = params.get('sort') ?? 'updated_at';
    if (sort !== 'updated_at' && sort !== 'id') throw new BadRequest('sort must be one of updated_at, id');
    let page = queryInt(params, 'page', 1);
    let perPage = queryInt(params, 'per_page', 20);
    if (page < 1) page = 1;
    if (perPage < 1) perPage = 20;
    if (perPage > 100) perPage = 100;
    const items: PaperListItem[] = state.papers
      .map((p) => {
        const v = p.detail.versions.at(-1)!;
        const id = `${p.detail.preprint_id}v${v.version}`;
        return {
          preprint_id: id,
          paper_id: id,
          status: v.has_md ? ('ready' as const) : ('pending' as const),
          title: p.title,
          has_pdf: v.has_pdf,
          has_md: v.has_md,
          image_count: v.image_count,
          updated_at: v.updated_at,
        };
      })
      .filter((i) => q === '' || i.preprint_id.toLowerCase().includes(q) || (i.title ?? '').toLowerCase().includes(q))
      .filter((i) => hasMd === undefined || i.has_md === hasMd)
      .filter((i) => hasPdf === undefined || i.has_pdf === hasPdf)
      .sort((a, b) =>
        sort === 'id'
          ? a.preprint_id.localeCompare(b.preprint_id)
          : b.updated_at.localeCompare(a.updated_at) || a.preprint_id.localeCompare(b.preprint_id),
      );
    const body: PaperList = {
      items: items.slice((page - 1) * perPage, page * perPage),
      total: items.length,
      page,
      per_page: perPage,
    };
    sendChecked(res, PaperList, body, headers);
  }

  function batchItem(requested: string): BatchStatusItem {
    const id = parsePreprintId(requested);
    const base = { requested_id: requested, md_ready: false, pdf_ready: false, image_count: 0, phase: '' };
    if (id === null) return { ...base, resolved_id: '', state: '', error: 'invalid paper id' };
    const paper = find(requested);
    if (!paper) {
      return id.version === null
        ? { ...base, resolved_id: '', state: '', error: 'not found' }
        : { ...base, resolved_id: id.id, state: 'none', error: '' };
    }
    const v =
      id.version === null
        ? paper.detail.versions.at(-1)!
        : paper.detail.versions.find((x) => x.version === id.version)!;
    return {
      ...base,
      resolved_id: `${paper.detail.preprint_id}v${v.version}`,
      md_ready: v.has_md,
      pdf_ready: v.has_pdf,
      image_count: v.image_count,
      state: v.has_md ? 'cached' : 'none',
      phase: v.has_md ? 'ready' : '',
      error: '',
    };
  }

  function fetch(raw: Buffer, res: ServerResponse, headers: Record<string, string>): void {
    const body = JSON.parse(raw.toString('utf8')) as { items?: unknown; kind?: unknown };
    if (!Array.isArray(body.items) || body.items.length < 1 || body.items.length > FETCH_MAX_ITEMS) {
      throw new BadRequest(`items: expected 1..${FETCH_MAX_ITEMS} items`);
    }
    const results = (body.items as string[]).map((input) => {
      const id = parsePreprintId(input.replace(/^https?:\/\/arxiv\.org\/(abs|pdf)\//, ''));
      if (id === null) return { input, resolved_id: null, state: null, error: 'invalid paper id' };
      const resolved = id.version === null ? `${id.versionless}v1` : id.id;
      const cached = find(resolved)?.detail.versions[0]?.[body.kind === 'pdf' ? 'has_pdf' : 'has_md'] === true;
      return { input, resolved_id: resolved, state: cached ? 'cached' : 'queued', error: null };
    });
    const answer = { results, enqueued: results.filter((r) => r.state === 'queued').length };
    sendChecked(res, FetchAnswer, answer, headers);
  }

  function bytes(res: ServerResponse, body: Buffer, type: string, headers: Record<string, string>): void {
    res.writeHead(200, { 'content-type': type, 'content-length': body.length, ...headers });
    res.end(body);
  }

  const settings = withLiveState({ papers: state.papers, lookups: state.lookups }, state, ['jobs', 'paperAccess']);
  return versionedDouble<Omit<RegistryDouble, keyof VersionedDouble>>(double, state, settings);
}
