/**
 * The papers dispatcher: registers every `PaperAction` (one module each under papers/). A path with
 * `{preprint_id}` is an action of the dispatcher (`/api/papers/*`, `/api/v1/papers/*`): the id may contain `/`, so
 * the dispatcher peels the literal parts off the path; a path without is a route of its own. Either way the
 * action's path parameters, then its query are decoded by its compiled `params` and `querystring` (400 with the
 * field's message) before its handler runs.
 */
import fastifyMultipart from '@fastify/multipart';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlugin } from '../http/context.js';
import { requestPath } from '../http/headers.js';
import { HttpError } from '../http/http-error.js';
import type { ActionSchema } from '../http/openapi.js';
import { queryDecoder, queryDocument } from '../http/query-schema.js';
import { scope, type Guard } from './guard.js';
import type { PaperAction } from './papers/action.js';

export type { PaperAction } from './papers/action.js';

/** The path parameters the dispatcher matched, as text (each action's `params` decodes them). */
export type RawParams = Readonly<Record<string, string>>;

const PREFIXES = ['/api/papers/', '/api/v1/papers/'] as const;

/** An action's path as a matcher of the decoded rest after its prefix. */
interface Matcher {
  readonly prefix: string;
  readonly pattern: RegExp;
  /** Peeling order: `…/images/…` first (an image name may contain anything), the bare id last. */
  readonly rank: readonly [number, number];
}

const PARAM_PATTERN: Readonly<Record<string, string>> = {
  preprint_id: '(?<preprint_id>.+?)',
  claim_id: '(?<claim_id>[^/]+)',
  name: '(?<name>.+)',
};

const matchers = new Map<string, Matcher>();

/** The matcher of an action path (compiled once per path). */
function matcherOf(path: string): Matcher {
  let matcher = matchers.get(path);
  if (!matcher) {
    matcher = compileMatcher(path);
    matchers.set(path, matcher);
  }
  return matcher;
}

function compileMatcher(path: string): Matcher {
  const prefix = PREFIXES.find((p) => path.startsWith(`${p}{preprint_id}`));
  if (!prefix) throw new Error(`papers action path ${path} does not start with a papers prefix and {preprint_id}`);
  const rest = path.slice(prefix.length);
  const source = rest
    .split(/(\{[a-z_]+\})/)
    .map((part) => {
      const param = /^\{([a-z_]+)\}$/.exec(part)?.[1];
      if (param === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const pattern = PARAM_PATTERN[param];
      if (!pattern) throw new Error(`papers action path ${path}: unknown parameter {${param}}`);
      return pattern;
    })
    .join('');
  const literal = rest.replace(/\{[a-z_]+\}/g, '');
  const rank = [rest.includes('/images/') ? 0 : literal === '' ? 2 : 1, -literal.length] as const;
  // `s`: an id or name with a line break still dispatches (and is refused by its action as invalid, 400).
  return { prefix, pattern: new RegExp(`^${source}$`, 's'), rank };
}

/** The dispatch of `rest` (the decoded path after `prefix`) to one of `actions`, tried in peeling order. */
export function dispatchOf(
  actions: readonly PaperAction[],
  prefix: string,
  rest: string,
): { action: PaperAction; params: RawParams } | null {
  for (const action of actions) {
    const matcher = matcherOf(action.path);
    if (matcher.prefix !== prefix) continue;
    const groups = matcher.pattern.exec(rest)?.groups;
    if (!groups) continue;
    if (action.takes && !action.takes(groups['preprint_id']!)) continue;
    return { action, params: { ...groups } };
  }
  return null;
}

/** Actions in peeling order (stable within a rank). */
export function peelingOrder(actions: readonly PaperAction[]): PaperAction[] {
  const ranked = actions.map((action, index) => ({ action, index, rank: matcherOf(action.path).rank }));
  ranked.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.index - b.index);
  return ranked.map((r) => r.action);
}

/** The decoded rest of a papers path (an undecodable one stays raw and matches no id). */
function restOf(path: string, prefix: string): string {
  const raw = path.slice(prefix.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

const guardOf = (action: Pick<PaperAction, 'method' | 'guard'>): Guard =>
  action.guard ?? (action.method === 'GET' ? scope('papers', 'read') : scope('papers', 'write'));

/**
 * The documented path parameters of `action`: its `params`, which must name exactly the parameters of its path
 * (a mismatch is a wiring fault, refused at registration).
 */
export function paramsOf(action: PaperAction): ActionSchema['params'] {
  const params = queryDocument(action.params ?? Type.Object({}));
  const declared = Object.keys(params.properties).sort().join(', ');
  const inPath = [...action.path.matchAll(/\{([a-z_]+)\}/g)]
    .map((m) => m[1]!)
    .sort()
    .join(', ');
  if (declared !== inPath) {
    throw new Error(`papers action ${action.path}: params declare {${declared}}, the path has {${inPath}}`);
  }
  return params;
}

/**
 * The original clients' names (CONTRACT §19): each alias path and the path it stands for (same guard, query and
 * handler).
 */
const ALIASES: readonly (readonly [alias: string, of: string])[] = [
  ['/api/papers/{preprint_id}/upload-mineru', '/api/papers/{preprint_id}/upload-parser'],
  ['/api/papers/{preprint_id}/mineru-claim', '/api/papers/{preprint_id}/parser-claim'],
  ['/api/papers/{preprint_id}/mineru-claim/{claim_id}', '/api/papers/{preprint_id}/parser-claim/{claim_id}'],
  ['/api/v1/papers/{preprint_id}/mineru-lease', '/api/papers/{preprint_id}/parser-claim'],
  ['/api/v1/papers/{preprint_id}/mineru-lease/{claim_id}', '/api/papers/{preprint_id}/parser-claim/{claim_id}'],
  ['/api/papers/needs-mineru', '/api/papers/needs-parser'],
];

/** The alias actions of `actions` (a missing original is a wiring fault). */
function aliasesOf(actions: readonly PaperAction[]): PaperAction[] {
  return ALIASES.map(([alias, of]): PaperAction => {
    const original = actions.find((a) => a.path === of);
    if (!original) throw new Error(`papers alias ${alias}: no action for ${of}`);
    return {
      ...original,
      path: alias,
      schema: {
        ...original.schema,
        summary: `${original.schema.summary} (deprecated alias of ${of}, CONTRACT §19)`,
        deprecated: true,
      },
    };
  });
}

type Run = (request: FastifyRequest, reply: FastifyReply, params: RawParams) => Promise<unknown>;

const decoderOf = (schema: TSchema | undefined) => (schema ? queryDecoder(schema) : () => ({}));

/**
 * How `action` runs: its path's parameters decoded by its `params`, then its query by its `querystring` (both
 * compiled here, once; the first refusal answers), then its handler.
 */
function runOf(action: PaperAction): Run {
  const decodeParams = decoderOf(action.params);
  const decodeQuery = decoderOf(action.schema.querystring);
  return async (request, reply, params) =>
    action.handle(request, reply, decodeParams(params), decodeQuery(request.query));
}

/** The documented query of `action` (none for an action without one). */
const queryOf = (action: PaperAction) => {
  const schema = action.schema.querystring;
  return schema ? { querystring: queryDocument(schema) } : {};
};

/** The papers routes: every action passed in, with the §19 aliases. */
export const paperRoutes: RoutePlugin<{ actions: readonly PaperAction[] }> = async (app, { actions }) => {
  // Upload bodies are streamed by the handlers, never parsed up front: this also keeps authentication ahead of
  // any body handling. Multipart requests are marked by the plugin and read with `request.parts()`.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  // Size caps are enforced per part by the stager (busboy truncates one byte past the cap and drains the rest).
  await app.register(fastifyMultipart, { throwFileSizeLimit: false });

  const dispatched: PaperAction[] = [];
  const runs = new Map<PaperAction, Run>();
  for (const action of [...actions, ...aliasesOf(actions)]) {
    const guard = guardOf(action);
    const rateLimitClass = action.method === 'GET' ? undefined : ('write' as const);
    // Checked for every action (a route of its own declares none); documented for the dispatched ones.
    const params = paramsOf(action);
    const run = runOf(action);
    if (!action.path.includes('{preprint_id}')) {
      // The query is the action's to decode (with the contract's messages): Fastify validates none, the document
      // shows it.
      const { querystring: _decodedByTheAction, ...schema } = action.schema;
      app.route({
        method: action.method,
        url: action.path,
        config: {
          guard,
          ...(rateLimitClass ? { rateLimitClass } : {}),
          openapi: { ...queryOf(action), ...(action.body ? { body: action.body } : {}) },
        },
        schema,
        handler: (request, reply) => run(request, reply, {}),
      });
      continue;
    }
    dispatched.push(action);
    runs.set(action, run);
    app.documentAction({
      method: action.method,
      url: action.path,
      guard,
      ...(rateLimitClass ? { rateLimitClass } : {}),
      schema: { ...action.schema, querystring: undefined, ...queryOf(action), params },
    });
  }
  const byMethod = new Map(
    (['GET', 'POST', 'DELETE'] as const).map((m) => [m, peelingOrder(dispatched.filter((a) => a.method === m))]),
  );
  const find = (method: string, prefix: string, rest: string) => {
    const candidates = byMethod.get((method === 'HEAD' ? 'GET' : method) as PaperAction['method']);
    return candidates ? dispatchOf(candidates, prefix, rest) : null;
  };

  const dispatches = new WeakMap<FastifyRequest, { params: RawParams; action: PaperAction }>();
  const dispatchers = [
    { prefix: '/api/papers/', methods: ['GET', 'POST', 'DELETE'] as const },
    { prefix: '/api/v1/papers/', methods: ['POST', 'DELETE'] as const },
  ];
  for (const { prefix, methods } of dispatchers) {
    for (const method of methods) {
      const guard = guardOf({ method });
      const rateLimitClass = method === 'GET' ? undefined : ('write' as const);
      app.route({
        method,
        url: `${prefix}*`,
        config: {
          guard,
          ...(rateLimitClass ? { rateLimitClass } : {}),
          serves: (path: string) => find(method, prefix, restOf(path, prefix)) !== null,
        },
        schema: { hide: true },
        // Unknown actions answer 404 before any authentication (§9.1): this runs ahead of the policy hook.
        onRequest: async (request, reply) => {
          const rest = restOf(requestPath(request), prefix);
          const found = find(request.method, prefix, rest);
          if (!found) return reply.code(404).send({ detail: `no ${request.method} handler for ${prefix}${rest}` });
          dispatches.set(request, found);
        },
        handler: async (request, reply) => {
          const entry = dispatches.get(request);
          if (!entry) throw new HttpError(500, 'papers dispatcher without a dispatch (server wiring fault)');
          return runs.get(entry.action)!(request, reply, entry.params);
        },
      });
    }
  }
};
