/**
 * The MCP server of CONTRACT §20 over any transport: tools listed per the credential's grants, called with their
 * arguments checked against their schemas, and the two resource templates. Every tool is read-only.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { scopesCover, type ScopeAction, type ScopeObject } from '../shared/scopes.js';
import { VERSION } from '../shared/version.js';
import { replyDetail, type ApiCaller } from './caller.js';
import type { Grants } from './grants.js';
import type { MarkdownIndexes } from './markdown-indexes.js';
import { errorResult, type ToolResult } from './results.js';
import { storedMarkdown, TOOLS, wikiPagePath, type Feature, type ToolDef } from './tools.js';

export interface McpServerOptions {
  readonly call: ApiCaller;
  /** The caller's grants; asked at most once per server (a failure is asked again). */
  readonly grants: () => Promise<Grants>;
  /** Logs a fault (never on a protocol stream). */
  readonly log: (message: string) => void;
  readonly pollMs?: number;
  readonly now?: () => number;
  /** Kept by the caller across servers (pksd makes one server per request); absent: whole markdown reads. */
  readonly markdownIndexes?: MarkdownIndexes;
}

const POLL_MS = 1000;

/** Why a tool that needs a feature is not served. */
const MISSING: Readonly<Record<Feature, string>> = {
  paperAccess: 'paper access is off (SVC_PAPER_ACCESS_ENABLED)',
  graph: 'no graph database is configured (GRAPHDB_URI)',
  chunkSearch: 'chunk search is not configured',
};

const covers = (grants: Grants, tool: Pick<ToolDef, 'scope'>): boolean => {
  const [obj, act] = tool.scope.split(':') as [ScopeObject, ScopeAction];
  return scopesCover(grants.scopes, obj, act);
};

const usable = (grants: Grants, tool: ToolDef): boolean =>
  covers(grants, tool) && (tool.needs === undefined || grants.features.has(tool.needs));

function listing(tool: ToolDef): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: `${tool.description} (needs scope ${tool.scope})`,
    inputSchema: JSON.parse(JSON.stringify(tool.input)) as Tool['inputSchema'],
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  };
}

/** The arguments' first schema violation, as one line. */
async function invalidArguments(tool: ToolDef, args: unknown): Promise<string | null> {
  // Loaded at the first call, not before `initialize` is answered (a host waits for that at its start).
  const { Value } = await import('@sinclair/typebox/value');
  if (Value.Check(tool.input, args)) return null;
  const first = Value.Errors(tool.input, args).First();
  const where = first?.path ? ` at ${first.path}` : '';
  return `invalid arguments for ${tool.name}${where}: ${first?.message ?? 'does not match the input schema'}`;
}

const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'pks://wiki/{id}',
    name: 'wiki-page',
    title: 'Wiki page',
    description: 'The markdown of one wiki page (needs scope wiki:read)',
    mimeType: 'text/markdown',
    scope: 'wiki:read',
  },
  {
    uriTemplate: 'pks://papers/{id}/markdown',
    name: 'paper-markdown',
    title: 'Stored paper markdown',
    description: 'The stored markdown of a paper; never starts a conversion (needs scope papers:read)',
    mimeType: 'text/markdown',
    scope: 'papers:read',
  },
] as const;

export function createMcpServer(options: McpServerOptions): Server {
  const { call, log } = options;
  const now = options.now ?? Date.now;
  let grants: Promise<Grants> | null = null;
  const granted = (): Promise<Grants> =>
    (grants ??= options.grants().catch((err: unknown) => {
      grants = null;
      throw err;
    }));

  const server = new Server(
    { name: 'pks', title: 'pks — paper knowledge service', version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Papers (arXiv ids, DOIs), their markdown and figures, the wiki and the citation graph of a pks server. ' +
        'Read long papers with paper_outline, then paper_markdown with offset/max_chars per section.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const g = await granted();
    if (g.problem !== undefined) log(`pks mcp: no tools available: ${g.problem}`);
    return { tools: TOOLS.filter((t) => usable(g, t)).map(listing) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<ToolResult> => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name}`);
    const g = await granted();
    if (!covers(g, tool)) {
      return errorResult(
        `tool ${tool.name} needs scope ${tool.scope}, which this credential lacks (mint a PAT at /pat with it)`,
      );
    }
    if (!usable(g, tool)) {
      return errorResult(`tool ${tool.name} is not available on this server: ${MISSING[tool.needs!]}`);
    }
    const args = request.params.arguments ?? {};
    const invalid = await invalidArguments(tool, args);
    if (invalid !== null) return errorResult(invalid);
    const progressToken = request.params._meta?.progressToken;
    try {
      return await tool.run(args, {
        call,
        signal: extra.signal,
        pollMs: options.pollMs ?? POLL_MS,
        now,
        ...(options.markdownIndexes ? { markdownIndexes: options.markdownIndexes } : {}),
        async progress(progress, total, message) {
          if (progressToken === undefined) return;
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, ...(total !== undefined ? { total } : {}), message },
          });
        },
      });
    } catch (err) {
      if (extra.signal.aborted) throw err;
      log(`pks mcp: ${tool.name} failed: ${(err as Error).message}`);
      return errorResult(`${tool.name} failed: ${(err as Error).message}`);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    const g = await granted();
    const shown = RESOURCE_TEMPLATES.filter(
      (r) => covers(g, r) && (r.scope !== 'papers:read' || g.features.has('paperAccess')),
    );
    return { resourceTemplates: shown.map(({ scope: _scope, ...template }) => template) };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params;
    const wiki = /^pks:\/\/wiki\/([^/]+)$/.exec(uri);
    const paper = /^pks:\/\/papers\/(.+)\/markdown$/.exec(uri);
    const id = decodeURIComponent((wiki ?? paper)?.[1] ?? '');
    if (id === '') throw new McpError(ErrorCode.InvalidParams, `unknown resource: ${uri}`);
    if (wiki) {
      const reply = await call({ method: 'GET', path: wikiPagePath(id), signal: extra.signal });
      if (reply.status !== 200) throw new McpError(ErrorCode.InvalidParams, replyDetail(reply));
      const page = JSON.parse(reply.body.toString('utf8')) as { content: string };
      return { contents: [{ uri, mimeType: 'text/markdown', text: page.content }] };
    }
    const stored = await storedMarkdown(call, id, extra.signal);
    if ('error' in stored) {
      const first = stored.error.content[0];
      throw new McpError(ErrorCode.InvalidParams, first?.type === 'text' ? first.text : 'markdown not stored');
    }
    return { contents: [{ uri, mimeType: 'text/markdown', text: stored.markdown }] };
  });

  return server;
}
