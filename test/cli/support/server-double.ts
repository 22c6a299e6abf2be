/**
 * A controllable stand-in for the pks server routes of paper access (§11) and ingest (§10): tests script the
 * answers per method and path. The real routes are exercised in paper-server.test.ts and ingest-server.test.ts;
 * this double covers what a real server cannot be driven into on demand (`none` or `unavailable` while polling, a
 * failing post-cache GET, status-URL fallbacks, a `cancelled` task, exact eta lines, a newer server version). Every
 * answer carries `X-Svc-Server-Version` (settable, for the version-check tests) like the real server.
 */
import {
  sendJson,
  startHttpDouble,
  type HttpDouble,
  type RecordedRequest,
} from '../../support/upstreams/http-double.js';
import { loggedInHome, type PksHome } from './pks.js';

export interface Reply {
  readonly status: number;
  /** Objects are sent as JSON; strings and buffers as they are. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What every CLI server double adds to the HTTP double. */
export interface VersionedDouble extends HttpDouble {
  /** `X-Svc-Server-Version` of every answer. */
  version: string;
  /** Requests received for `method path` (path without query). */
  calls(method: string, path: string): RecordedRequest[];
}

/**
 * `double` with `version` read from and written to `state`, `calls` over its recorded requests, and the members of
 * `extra` (getters and setters kept as such).
 */
export function versionedDouble<T extends object>(
  double: HttpDouble,
  state: { version: string },
  extra: T,
): VersionedDouble & T {
  const base: VersionedDouble = {
    ...double,
    get version() {
      return state.version;
    },
    set version(v: string) {
      state.version = v;
    },
    calls: (method, path) =>
      double.requests.filter(
        (r) => r.method === method && decodeURIComponent(new URL(r.url, 'http://double.test').pathname) === path,
      ),
  };
  return Object.defineProperties(base, Object.getOwnPropertyDescriptors(extra)) as VersionedDouble & T;
}

export interface ServerDouble extends VersionedDouble {
  /** Answers to `method path` (path without query), used in order; the last one repeats. */
  on(method: string, path: string, ...replies: Reply[]): void;
  /** When each request for `method path` arrived (ms since the epoch). */
  times(method: string, path: string): number[];
}

export async function startServerDouble(version = '0.1.0'): Promise<ServerDouble> {
  const scripts = new Map<string, Reply[]>();
  const state = { version };
  const arrivals: { key: string; at: number }[] = [];
  const double = await startHttpDouble((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://double.test').pathname);
    const key = `${req.method} ${pathname}`;
    arrivals.push({ key, at: Date.now() });
    const replies = scripts.get(key);
    const headers = { 'x-svc-server-version': state.version };
    if (!replies || replies.length === 0) {
      if (req.method === 'GET' && pathname === '/api/server/info') {
        return sendJson(res, 200, { mode: 'server', version: state.version }, headers);
      }
      return sendJson(res, 404, { detail: 'not found' }, headers);
    }
    const reply = replies.length > 1 ? replies.shift()! : replies[0]!;
    const all = { ...headers, ...reply.headers };
    if (reply.body === undefined) return void res.writeHead(reply.status, all).end();
    if (typeof reply.body === 'string' || Buffer.isBuffer(reply.body)) {
      const bytes = Buffer.from(reply.body as string | Buffer);
      res.writeHead(reply.status, {
        'content-type': 'application/octet-stream',
        'content-length': bytes.length,
        ...all,
      });
      return void res.end(bytes);
    }
    sendJson(res, reply.status, reply.body, all);
  });
  return versionedDouble<Omit<ServerDouble, keyof VersionedDouble>>(double, state, {
    on(method, path, ...replies) {
      scripts.set(`${method} ${path}`, [...replies]);
    },
    times(method, path) {
      return arrivals.filter((a) => a.key === `${method} ${path}`).map((a) => a.at);
    },
  });
}

/** A job snapshot (CONTRACT §11.2) with the always-present fields. */
export function snapshot(
  state: string,
  extra: Record<string, unknown> = {},
  id = '2501.00010v1',
): Record<string, unknown> {
  return { preprint_id: id, state, phase: '', pdf_ready: false, md_ready: false, ...extra };
}

/** A fresh server double and a fresh home logged in to it with `token`; `close` ends both. */
export async function loggedInDouble(
  token: string,
): Promise<{ h: PksHome; api: ServerDouble; close(): Promise<void> }> {
  const api = await startServerDouble();
  const h = await loggedInHome(api.baseUrl, token);
  return {
    h,
    api,
    async close() {
      await api.close();
      h.cleanup();
    },
  };
}
