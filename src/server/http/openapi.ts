/**
 * The OpenAPI 2.0 document (CONTRACT §8.4), generated from the route schemas and the route policies: every
 * guarded operation — the admin routes' superuser guards included — declares the `Bearer` security requirement
 * (from its guard, never from its schema) and its 401/403 answers, rate-limited ones their
 * 429, operations with inputs their 400 (and 413/415 with a body). Dispatcher actions (`/api/papers/*`) are
 * documented as their own paths. The result is made Swagger-2.0-valid: unions become `x-nullable` or merged
 * objects, `const` becomes `enum`, draft-6 exclusive bounds become draft-4 ones.
 */
import { STATUS_CODES } from 'node:http';
import type { SwaggerOptions } from '@fastify/swagger';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { RouteOptions } from 'fastify';
import { VERSION } from '../../shared/version.js';
import type { Guard } from '../routes/guard.js';
import { ErrorBody, PbError, ScopeDenied } from '../routes/schemas.js';
import type { RateLimitClass } from './context.js';
import { errorShapeOf } from './errors.js';

/**
 * Document-only precision for a route: schemas (TypeBox objects) replacing the validation ones in the document.
 * Typed loosely on purpose: route options are type-checked against it and TypeBox types are deep.
 */
export interface OpenApiOverlay {
  readonly body?: object;
  readonly querystring?: object;
  readonly params?: object;
}

/** The schema of a dispatcher action, in the shape of a Fastify route schema. */
export interface ActionSchema {
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  /** An alias kept for the original service's clients (CONTRACT §19). */
  readonly deprecated?: boolean;
  readonly params: TObject;
  readonly querystring?: TObject;
  /** Multipart file parts (the request is `multipart/form-data`). */
  readonly files?: readonly { readonly name: string; readonly description: string }[];
  readonly response: Readonly<Record<number, TSchema>>;
}

/** A dispatcher action documented as its own path (`url` in OpenAPI syntax). */
export interface DispatchedOperation {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly url: string;
  readonly guard: Guard;
  readonly rateLimitClass?: RateLimitClass;
  readonly schema: ActionSchema;
}

type Json = Record<string, unknown>;
type Responses = Record<string, TSchema>;

const described = (schema: TSchema, description: string): TSchema => ({ ...schema, description });

/** The answers a route's policy and inputs add to its own responses. */
function policyResponses(
  url: string,
  guard: Guard,
  rateLimitClass: RateLimitClass | undefined,
  inputs: { body: boolean; other: boolean; pathParams: boolean },
): Responses {
  const error = errorShapeOf(url) === 'pocketbase' ? PbError : ErrorBody;
  const out: Responses = {};
  if (inputs.body || inputs.other) out[400] = described(error, 'invalid parameters or body');
  if (inputs.pathParams) out[414] = described(error, 'a path parameter longer than 1000 characters');
  if (inputs.body) {
    out[413] = described(error, 'body over its size cap');
    out[415] = described(error, 'unsupported Content-Type');
  }
  if (guard.kind === 'superuser') out[401] = described(PbError, 'no valid superuser token');
  else if (guard.kind === 'superuser-or-session') {
    out[401] = described(PbError, 'neither a valid superuser token nor a user session');
  } else if (guard.kind !== 'public') {
    out[401] = described(ErrorBody, 'no credential, or an invalid, expired or foreign one');
    out[403] =
      guard.kind === 'scope'
        ? described(ScopeDenied, `the credential lacks ${guard.obj}:${guard.act}`)
        : described(ErrorBody, 'not a browser session (PATs and the system PAT are refused)');
  }
  if (rateLimitClass !== undefined) out[429] = described(ErrorBody, 'rate limit exceeded (see Retry-After)');
  return out;
}

/**
 * An operation's media types: a route that declares its own (HTML, a script, a tarball) still answers errors in
 * JSON, and Swagger 2.0 names media types per operation, so JSON joins them when any error answer is documented.
 */
function withJsonErrors(produces: unknown, responses: Responses): { produces?: string[] } {
  if (!Array.isArray(produces)) return {};
  const json = 'application/json';
  const errors = Object.keys(responses).some((status) => Number(status) >= 400);
  return { produces: errors && !produces.includes(json) ? [...(produces as string[]), json] : [...produces] };
}

/**
 * The security requirement of a guarded operation comes from its guard and overrides the schema's. Only the three
 * PocketBase session routes (public in the route table, CONTRACT §7.2) declare theirs in the schema.
 */
const security = (guard: Guard) => (guard.kind === 'public' ? {} : { security: [{ Bearer: [] }] });

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A response object: description, schema (none for 204/null bodies), headers (`Location` for redirects). */
function response(status: string, schema: TSchema): Json {
  const { headers, ...plain } = clone(schema) as Json;
  const description = typeof plain['description'] === 'string' ? plain['description'] : STATUS_CODES[status];
  const out: Json = { description: description ?? status };
  if (status.startsWith('3')) out['headers'] = { Location: { type: 'string', description: 'redirect target' } };
  else if (headers !== undefined) out['headers'] = headers;
  if (!status.startsWith('3') && plain['type'] !== 'null') out['schema'] = plain;
  return out;
}

/** Parameters of one location from a TypeBox object. */
function parameters(location: 'path' | 'query', schema: TObject | undefined): Json[] {
  if (!schema) return [];
  const plain = clone(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(plain.properties ?? {}).map(([name, prop]) => ({
    ...prop,
    name,
    in: location,
    required: location === 'path' || (plain.required ?? []).includes(name),
  }));
}

function dispatchedOperation(op: DispatchedOperation): Json {
  const { schema } = op;
  const files = schema.files ?? [];
  const inputs = { body: files.length > 0, other: true, pathParams: false };
  const responses: Responses = { ...policyResponses(op.url, op.guard, op.rateLimitClass, inputs), ...schema.response };
  return {
    summary: schema.summary,
    ...(schema.description ? { description: schema.description } : {}),
    tags: [...schema.tags],
    ...(schema.deprecated ? { deprecated: true } : {}),
    ...(files.length > 0 ? { consumes: ['multipart/form-data'] } : {}),
    ...security(op.guard),
    parameters: [
      ...parameters('path', schema.params),
      ...parameters('query', schema.querystring),
      ...files.map((f) => ({ name: f.name, in: 'formData', type: 'file', required: true, description: f.description })),
    ],
    responses: Object.fromEntries(Object.entries(responses).map(([status, s]) => [status, response(status, s)])),
  };
}

/** Options for `@fastify/swagger`: the route transform and the document post-processing. */
export function openApiOptions(dispatched: () => readonly DispatchedOperation[]): SwaggerOptions {
  return {
    swagger: {
      info: { title: 'pks — paper knowledge service', version: VERSION },
      consumes: ['application/json'],
      produces: ['application/json'],
      securityDefinitions: { Bearer: { type: 'apiKey', name: 'Authorization', in: 'header' } },
    },
    transform: ({ schema, url, route }) => {
      const config = (route as RouteOptions).config ?? {};
      const base = { ...(schema ?? {}), ...config.openapi } as Json & { response?: Responses; hide?: boolean };
      const guard = config.guard;
      if (guard === undefined || base.hide) return { schema: base as never, url };
      // Any POST or DELETE may carry a body, which is parsed (400, 413, 415) whether or not the route reads it.
      const methods = [(route as RouteOptions).method].flat();
      const body = base['body'] !== undefined || methods.some((m) => m === 'POST' || m === 'DELETE');
      const inputs = { body, other: !!(base['querystring'] ?? base['params']), pathParams: url.includes(':') };
      const responses = { ...policyResponses(url, guard, config.rateLimitClass, inputs), ...base.response };
      const produces = withJsonErrors(base['produces'], responses);
      return { schema: { ...base, ...produces, ...security(guard), response: responses } as never, url };
    },
    transformObject: (documentObject) => {
      const doc = (documentObject as { swaggerObject: Json & { paths: Record<string, Json> } }).swaggerObject;
      const paths = { ...doc.paths };
      for (const op of dispatched())
        paths[op.url] = { ...paths[op.url], [op.method.toLowerCase()]: dispatchedOperation(op) };
      return swagger2(requireBodies(describeResponses({ ...doc, paths }))) as never;
    },
  };
}

/** Responses without a description of their own are described by their status text, not "Default Response". */
function describeResponses<D extends Json & { paths: Record<string, Json> }>(doc: D): D {
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations) as { responses?: Record<string, Json> }[]) {
      for (const [status, r] of Object.entries(operation.responses ?? {})) {
        if (r['description'] === 'Default Response') r['description'] = STATUS_CODES[status] ?? status;
      }
    }
  }
  return doc;
}

/**
 * A body whose schema names required properties is itself required: without one the route answers 400 (an empty
 * body counts as none).
 */
function requireBodies(doc: Json & { paths: Record<string, Json> }): Json {
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations) as { parameters?: Json[] }[]) {
      for (const p of operation.parameters ?? []) {
        const required = (p['schema'] as Json | undefined)?.['required'];
        if (p['in'] === 'body' && Array.isArray(required) && required.length > 0) p['required'] = true;
      }
    }
  }
  return doc;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One property of several union members: enums of one type are joined, otherwise the first one stands. */
function mergeProperty(first: unknown, next: unknown): unknown {
  if (!isObject(first)) return next;
  if (isObject(next) && Array.isArray(first['enum']) && Array.isArray(next['enum']) && first['type'] === next['type']) {
    return { ...first, enum: [...new Set([...first['enum'], ...next['enum']])] };
  }
  return first;
}

/** A union as Swagger 2.0 can say it: one schema plus `x-nullable`, one enum, or one merged object. */
function fromUnion(rest: Json, members: Json[]): Json {
  const nonNull = members.filter((m) => m['type'] !== 'null');
  const nullable = nonNull.length < members.length ? { 'x-nullable': true } : {};
  if (nonNull.length === 1) return { ...nonNull[0], ...rest, ...nullable };
  if (nonNull.every((m) => Array.isArray(m['enum']) && m['type'] === nonNull[0]!['type'])) {
    return { type: nonNull[0]!['type'], ...rest, enum: nonNull.flatMap((m) => m['enum'] as unknown[]), ...nullable };
  }
  if (nonNull.every((m) => m['type'] === 'object')) {
    const properties: Json = {};
    for (const m of nonNull) {
      for (const [k, v] of Object.entries((m['properties'] as Json) ?? {}))
        properties[k] = mergeProperty(properties[k], v);
    }
    const required = nonNull
      .map((m) => (m['required'] as string[] | undefined) ?? [])
      .reduce((a, b) => a.filter((k) => b.includes(k)));
    return {
      type: 'object',
      ...rest,
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: true,
      ...nullable,
    };
  }
  return { ...rest, ...nullable };
}

/** Rewrites JSON Schema constructs Swagger 2.0 lacks, throughout the document. */
export function swagger2(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(swagger2);
  if (!isObject(node)) return node;
  let out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, swagger2(v)]));
  if ('const' in out) {
    const { const: value, ...rest } = out;
    out = { ...rest, enum: [value] };
  }
  const union = out['anyOf'] ?? out['oneOf'];
  if (Array.isArray(union)) {
    const { anyOf: _a, oneOf: _o, ...rest } = out;
    out = fromUnion(rest, union as Json[]);
  }
  if (Array.isArray(out['type'])) {
    const types = (out['type'] as string[]).filter((t) => t !== 'null');
    out = {
      ...out,
      type: types[0],
      ...(types.length < (out['type'] as string[]).length ? { 'x-nullable': true } : {}),
    };
  }
  for (const [bound, limit] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[bound] === 'number') out = { ...out, [limit]: out[bound], [bound]: true };
  }
  delete out['$id'];
  return out;
}
