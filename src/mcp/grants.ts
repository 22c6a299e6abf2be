/**
 * What a credential may use of the tools (CONTRACT §20: a tool whose scope it lacks is not listed): its scopes and
 * the server's features. pksd knows them from the request's principal; `pks mcp` asks the server, one cheap
 * request per scope whose guard answers before any work (a body or query the route refuses).
 */
import type { ScopeObject } from '../shared/scopes.js';
import { replyJson, type ApiCaller } from './caller.js';
import type { Feature } from './tools.js';

export interface Grants {
  /** Granted scopes (`*` = all). */
  readonly scopes: readonly string[];
  readonly features: ReadonlySet<Feature>;
  /** Why no tool is usable (no or an invalid credential), for the log. */
  readonly problem?: string;
}

/** Per scope object, a request its guard decides and its handler refuses cheaply (400) or answers at once. */
const PROBES: Readonly<Record<ScopeObject, Parameters<ApiCaller>[0]>> = {
  papers: { method: 'GET', path: '/api/papers/status/batch' },
  wiki: { method: 'GET', path: '/api/search', query: { q: '' } },
  graph: { method: 'POST', path: '/api/graph/query', body: {} },
};

/** Asks the server which scopes the caller's credential holds and which optional features it serves. */
export async function probeGrants(call: ApiCaller): Promise<Grants> {
  const objects = Object.keys(PROBES) as ScopeObject[];
  const [info, rag, ...answers] = await Promise.all([
    call({ method: 'GET', path: '/api/server/info' }),
    call({ method: 'POST', path: '/api/rag/search', body: {} }),
    ...objects.map((obj) => call(PROBES[obj])),
  ]);
  const unauthenticated = answers.find((a) => a.status === 401);
  const scopes = objects.filter((_, i) => answers[i]!.status !== 401 && answers[i]!.status !== 403);
  const features = new Set<Feature>();
  const served = replyJson(info) as { paper_access?: unknown; graph_configured?: unknown } | null;
  if (served?.paper_access === true) features.add('paperAccess');
  if (served?.graph_configured === true) features.add('graph');
  if (rag.status !== 404) features.add('chunkSearch');
  return {
    scopes: scopes.map((obj) => `${obj}:read`),
    features,
    ...(unauthenticated
      ? { problem: (replyJson(unauthenticated) as { detail?: string } | null)?.detail ?? 'HTTP 401' }
      : {}),
  };
}
