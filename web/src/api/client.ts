import { pb } from '../auth/pb';

/** A non-2xx answer of the API, with the contract's `detail` text and, for a scope 403, the missing scope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly body: unknown,
  ) {
    super(detail);
    this.name = 'ApiError';
  }

  /** `obj:act` of a scope-guard 403 (`{detail, obj, act}`, CONTRACT §7.1), else null. */
  get missingScope(): string | null {
    const b = this.body as { obj?: unknown; act?: unknown } | null;
    return this.status === 403 && typeof b?.obj === 'string' && typeof b.act === 'string' ? `${b.obj}:${b.act}` : null;
  }
}

let unauthorized: (() => void) | null = null;

/** What to do when the server answers 401: the router sends the user to /login?next=… */
export function onUnauthorized(handler: () => void): void {
  unauthorized = handler;
}

export interface RequestOptions {
  method?: string;
  json?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** A same-origin API request with the session token; a 401 ends the session and goes to the sign-in page. */
export async function apiFetch(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  const token = pb.authStore.token;
  if (token) headers['Authorization'] = `Bearer ${token}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    headers,
    body,
    signal: options.signal,
  });
  if (response.status === 401) {
    pb.authStore.clear();
    unauthorized?.();
    throw new ApiError(401, 'Your session has ended. Please sign in again.', await readBody(response));
  }
  return response;
}

/** The body as JSON, as text when it is not JSON, or null when empty. */
export async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The `detail` (or PocketBase `message`) of an error body. */
export function detailOf(body: unknown, response: Response): string {
  if (body && typeof body === 'object') {
    const b = body as { detail?: unknown; message?: unknown };
    if (typeof b.detail === 'string') return b.detail;
    if (typeof b.message === 'string') return b.message;
  }
  return `${response.status} ${response.statusText || 'error'}`;
}

/** Throws an ApiError for a non-2xx response, else returns its JSON body. */
async function jsonOf<T>(response: Response): Promise<T> {
  const body = await readBody(response);
  if (!response.ok) throw new ApiError(response.status, detailOf(body, response), body);
  return body as T;
}

/** A JSON API call. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return jsonOf<T>(await apiFetch(path, options));
}

/** Encodes a page or paper id for a path; `/` in old-style ids and DOIs is kept raw (CONTRACT §0.2). */
export const pathId = (id: string): string => id.split('/').map(encodeURIComponent).join('/');
