/**
 * How the MCP tools reach pksd: one request of the REST API (CONTRACT §8–§18), answered with its status, headers
 * and bytes. `pks mcp` passes the client's API layer, pksd's `/mcp` a caller that runs the request in-process
 * against its own routes with the caller's credential, so guards, scopes and limits stay the routes' own.
 */

export interface ApiRequest {
  readonly method: 'GET' | 'POST';
  /** A server path (`/api/...`), its segments already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** Sent as a JSON body. */
  readonly body?: unknown;
  /** More request headers (lower-case names), e.g. `range`; a caller that cannot send them leaves them out. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export interface ApiReply {
  readonly status: number;
  /** A response header (lower-case name). */
  header(name: string): string | undefined;
  readonly body: Buffer;
}

export type ApiCaller = (request: ApiRequest) => Promise<ApiReply>;

/** The body parsed as JSON, `null` when it is not JSON. */
export function replyJson(reply: ApiReply): unknown {
  try {
    return JSON.parse(reply.body.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/** The `detail` of an error body, else the body as text (cut), else the status. */
export function replyDetail(reply: ApiReply): string {
  const body = replyJson(reply);
  if (body !== null && typeof body === 'object' && typeof (body as { detail?: unknown }).detail === 'string') {
    return (body as { detail: string }).detail;
  }
  const text = reply.body.toString('utf8').trim();
  return text === '' ? `HTTP ${reply.status}` : `HTTP ${reply.status}: ${text.slice(0, 500)}`;
}

/** `/api/papers/<id>` with the id encoded as `pks paper get` does (`/` and `:` kept). */
export const paperPath = (id: string): string =>
  `/api/papers/${encodeURIComponent(id.trim().replace(/^\/+/, '')).replace(/%2F/gi, '/').replace(/%3A/gi, ':')}`;
