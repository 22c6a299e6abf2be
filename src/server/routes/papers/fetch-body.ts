/**
 * The body of the batch fetch routes (CONTRACT §18.2, §19): `{"items":[…],"kind":"markdown"|"pdf"}`. The papers
 * routes parse no body up front (uploads stream), so the handler reads this one itself — after the guard, capped
 * like every JSON body of the service — and checks its shape with the contract's words.
 */
import type { FastifyRequest } from 'fastify';
import { InvalidInputError, TooLargeError, UnsupportedMediaTypeError } from '../../../shared/domain-errors.js';
import { FETCH_MAX_ITEMS, type FetchRequest } from '../../../shared/api/registry.js';
import type { AccessKind } from '../../access/engine.js';
import { ErrorBody } from '../schemas.js';

/** The cap of the service's JSON bodies (the app's `bodyLimit`). */
export const FETCH_BODY_LIMIT = 1024 * 1024;

/** The answers of a body `readFetchRequest` refuses. */
export const fetchBodyErrors = {
  400: { ...ErrorBody, description: `not JSON, not the body shape, 0 items or more than ${FETCH_MAX_ITEMS}` },
  413: { ...ErrorBody, description: 'body over 1 MiB' },
  415: { ...ErrorBody, description: 'not application/json' },
};

const SHAPE = `{"items":[<id, DOI, arxiv.org or doi.org URL>…],"kind":"markdown"|"pdf"}`;

/** 415 for a body that is not `application/json` (or `+json`), such as the form body of `curl -d`. */
const notJson = (type: string) =>
  new UnsupportedMediaTypeError(`unsupported media type '${type}'; send application/json: ${SHAPE}`);

/** The media type of the request, lower-cased, or `null` without a `Content-Type`. */
function mediaType(request: FastifyRequest): string | null {
  const header = request.headers['content-type'];
  return header === undefined ? null : header.split(';')[0]!.trim().toLowerCase();
}

const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');

/** The raw body as text, at most `FETCH_BODY_LIMIT` bytes (413 beyond). */
async function readText(request: FastifyRequest): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FETCH_BODY_LIMIT) {
      throw new TooLargeError(`request body too large (max ${FETCH_BODY_LIMIT} bytes)`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The checked request: 1..50 string items, `kind` `markdown`/`pdf` (default `defaultKind`). */
export function fetchRequestOf(body: unknown, defaultKind: AccessKind): { items: string[]; kind: AccessKind } {
  if (body === undefined) throw new InvalidInputError(`body required: ${SHAPE}`);
  if (!isRecord(body)) throw new InvalidInputError(`body must be a JSON object: ${SHAPE}`);
  // §0.2: an unknown property is refused, never ignored (a misspelt `kind` must not fetch markdown silently).
  const unknown = Object.keys(body).find((name) => name !== 'items' && name !== 'kind');
  if (unknown !== undefined) throw new InvalidInputError(`unknown field '${unknown}'`);
  const { items, kind } = body as Partial<FetchRequest> & Record<string, unknown>;
  if (items === undefined) throw new InvalidInputError(`items: required (a list of 1..${FETCH_MAX_ITEMS} strings)`);
  if (!Array.isArray(items)) throw new InvalidInputError(`items: must be a list of 1..${FETCH_MAX_ITEMS} strings`);
  if (items.length === 0) throw new InvalidInputError('items: at least one item required');
  if (items.length > FETCH_MAX_ITEMS) {
    throw new InvalidInputError(`too many items: ${items.length} (max ${FETCH_MAX_ITEMS})`);
  }
  const notText = items.findIndex((item) => typeof item !== 'string');
  if (notText >= 0) throw new InvalidInputError(`items[${notText}]: must be a string`);
  if (kind !== undefined && kind !== 'markdown' && kind !== 'pdf') {
    throw new InvalidInputError(`kind: must be "markdown" or "pdf"`);
  }
  return { items: items as string[], kind: kind ?? defaultKind };
}

/** Reads and checks the batch fetch body of `request` (415, 413, 400 `parse body: …`, then the shape's 400s). */
export async function readFetchRequest(
  request: FastifyRequest,
  defaultKind: AccessKind,
): Promise<{ items: string[]; kind: AccessKind }> {
  const type = mediaType(request);
  if (type !== null && !isJson(type)) throw notJson(type);
  const text = await readText(request);
  let body: unknown;
  if (text.trim() !== '') {
    if (type === null) throw notJson('');
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw new InvalidInputError(`parse body: ${(err as Error).message}`);
    }
  }
  return fetchRequestOf(body, defaultKind);
}
