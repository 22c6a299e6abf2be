/**
 * `POST /mcp` (CONTRACT §20): the MCP tools over Streamable HTTP, stateless — one MCP server per request, whose
 * tools call this server's own routes in-process with the caller's `Authorization`, so every guard, scope, rate
 * limit and body of the REST API applies unchanged. Credentials as §7.1 (401 with `WWW-Authenticate: Bearer`);
 * no CORS; the API's headers.
 */
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiCaller } from '../../mcp/caller.js';
import type { Grants } from '../../mcp/grants.js';
import { MarkdownIndexes } from '../../mcp/markdown-indexes.js';
import type { Feature } from '../../mcp/tools.js';
import type { App, RoutePlugin } from '../http/context.js';
import { API_HEADERS } from '../http/headers.js';
import { HttpError } from '../http/http-error.js';
import { paperAccessOf } from './access.js';
import type { Guard } from './guard.js';
import { ErrorBody } from './schemas.js';

/** Any valid credential: each tool's own scope is checked when it is listed and called. */
const ANY_CREDENTIAL: Guard = { kind: 'auth' };

/** A JSON-RPC message of MCP is small; a paper's worth of ids is far below this. */
export const MCP_BODY_LIMIT = 1024 * 1024;

/** The tools' caller: `app.inject` of the REST route with the caller's credential. */
function inProcessCaller(app: App, authorization: string | undefined): ApiCaller {
  return async (request) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query ?? {})) if (value !== undefined) query.set(key, value);
    const search = query.size > 0 ? `?${query.toString()}` : '';
    const res = await app.inject({
      method: request.method,
      url: request.path + search,
      headers: {
        ...request.headers,
        'user-agent': 'pksd-mcp',
        ...(authorization !== undefined ? { authorization } : {}),
        ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(request.body !== undefined ? { payload: JSON.stringify(request.body) } : {}),
      // The bytes only: a paper's markdown is not decoded whole to be cut into a piece.
      payloadAsStream: true,
    });
    const chunks: Buffer[] = [];
    for await (const chunk of res.stream()) chunks.push(chunk as Buffer);
    return {
      status: res.statusCode,
      header: (name) => {
        const value = res.headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value === undefined ? undefined : String(value);
      },
      body: Buffer.concat(chunks),
    };
  };
}

/** The request as the SDK's web-standard transport reads it (the body is passed already parsed). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'content-length') continue;
    for (const v of [value].flat()) headers.append(name, v);
  }
  return new Request(`http://pksd.invalid${request.url}`, { method: request.method, headers });
}

const McpMessage = Type.Unknown({ description: 'a JSON-RPC message of the Model Context Protocol (2025-06-18)' });

/** What the SDK's transport answers a request it refuses (bad JSON-RPC, `Accept` or `Content-Type`). */
const JsonRpcError = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    error: Type.Object({ code: Type.Integer(), message: Type.String() }, { additionalProperties: true }),
    id: Type.Union([Type.String(), Type.Number(), Type.Null()]),
  },
  { additionalProperties: true, description: 'a JSON-RPC error' },
);

/** The fields of a JSON-RPC message the route looks at: a tool call's id, a cancellation's request id. */
interface RpcFields {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: { readonly requestId?: unknown };
}

/** A request of one credential: its token's hash (no token is kept) and the JSON-RPC id. */
const callKey = (authorization: string | undefined, id: unknown): string =>
  `${createHash('sha256')
    .update(authorization ?? '')
    .digest('hex')}:${JSON.stringify(id)}`;

/**
 * The MCP SDK (with zod) and the tools, loaded by the first MCP request rather than at start: most servers never
 * answer one, and the SDK is among the largest modules a start would load (docs/decisions.md).
 */
const mcpModules = async () => {
  const [{ createMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
    import('../../mcp/server.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
  ]);
  return { createMcpServer, WebStandardStreamableHTTPServerTransport };
};

export const mcpRoutes: RoutePlugin = async (app, { ctx }) => {
  /**
   * Tool calls in progress, by credential and id: being stateless, a server learns of a cancellation in another
   * request (`notifications/cancelled`, which the SDK's client sends without closing the call's stream).
   */
  const calls = new Map<string, { close(): Promise<void> }>();
  /** Where `paper_markdown` cuts pieces of a stored markdown from byte ranges (src/mcp/markdown-indexes.ts). */
  const markdownIndexes = new MarkdownIndexes();

  const features = new Set<Feature>();
  if (paperAccessOf(ctx)) features.add('paperAccess');
  if (ctx.rag) features.add('chunkSearch');
  if (ctx.config.graph !== null) features.add('graph');

  app.post(
    '/mcp',
    {
      bodyLimit: MCP_BODY_LIMIT,
      // An event stream must reach the client as it is written (a compressor would hold progress notifications).
      compress: false,
      config: { guard: ANY_CREDENTIAL },
      // The API's own headers, also on the guard's 401/403 (the path is outside `/api/`).
      onRequest: async (_request: FastifyRequest, reply: FastifyReply) => {
        for (const [name, value] of API_HEADERS) reply.header(name, value);
        reply.header('Cache-Control', 'no-store');
      },
      schema: {
        summary: 'Model Context Protocol (Streamable HTTP, stateless): the paper, wiki and graph tools for AI agents',
        description:
          'Tools are listed per the credential’s scopes (papers:read, wiki:read, graph:read); see docs/mcp.md. ' +
          'Answers are JSON or an event stream (progress notifications while a conversion is awaited).',
        tags: ['mcp'],
        body: McpMessage,
        produces: ['text/event-stream', 'application/json'],
        response: {
          200: { description: 'the JSON-RPC response, after any progress notifications (text/event-stream)' },
          202: { description: 'a notification or response accepted' },
          400: Type.Union([ErrorBody, JsonRpcError], { description: 'not JSON, or not a JSON-RPC message' }),
          401: ErrorBody,
          406: { ...JsonRpcError, description: 'Accept must list application/json and text/event-stream' },
          413: ErrorBody,
          415: Type.Union([ErrorBody, JsonRpcError], { description: 'Content-Type must be application/json' }),
        },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (principal === null) throw new HttpError(500, 'MCP route without its guard (server wiring fault)');
      const grants: Grants = { scopes: principal.scopes, features };
      const { createMcpServer, WebStandardStreamableHTTPServerTransport } = await mcpModules();
      const server = createMcpServer({
        call: inProcessCaller(app, request.headers.authorization),
        grants: async () => grants,
        log: (message) => request.log.warn(message),
        markdownIndexes,
      });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      const message = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as RpcFields;
      const { authorization } = request.headers;
      if (message.method === 'notifications/cancelled') {
        void calls.get(callKey(authorization, message.params?.requestId))?.close();
      }
      const key = message.method === 'tools/call' ? callKey(authorization, message.id) : null;
      if (key !== null) calls.set(key, server);
      // A client that goes away cancels what its request still runs (a conversion it waits for).
      reply.raw.once('close', () => {
        if (key !== null && calls.get(key) === server) calls.delete(key);
        void server.close();
      });
      const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
      // Per-credential answers are never stored; an event stream must not be transformed (buffered) on its way.
      response.headers.set('Cache-Control', 'no-store, no-transform');
      return reply.send(response);
    },
  );
};
