/**
 * The pksd both MCP transports are tested against: paper access on the upstream doubles, a copy of the sample wiki,
 * the caller's real Neo4j holding `qubit → gate`, the system PAT and one stored paper; plus what the MCP tests ask
 * of it (a user's PAT, the REST answer to compare a tool's answer with, a tool result's text items).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect } from 'vitest';
import type { Scope } from '../../../../src/shared/scopes.js';
import { useFixture } from '../../../support/fixture.js';
import { cypherRows, graphEnv, useNeo4j, type Neo4jServer } from '../../../support/neo4j.js';
import { openTestIdentity, REPO_ROOT, startTestServer, testPat, type TestServer } from '../../../support/server.js';
import { accessEnv, startDoubles, type Doubles } from '../../access/support/harness.js';
import { storePaper } from '../../papers/registry-support.js';

export interface McpServerOptions {
  readonly pat: string;
  readonly paper: { readonly id: string; readonly markdown: string; readonly images: Record<string, Buffer> };
}

export interface McpServer {
  readonly d: Doubles;
  readonly srv: TestServer;
  /** A PAT of user `login` with `scopes`. */
  userPat(login: string, scopes: Scope[]): Promise<string>;
  /** The JSON of a REST GET (or `init`) with the system PAT; expects 200. */
  rest(pathname: string, init?: RequestInit): Promise<unknown>;
  close(): Promise<void>;
}

export async function startMcpServer(neo: Neo4jServer, { pat, paper }: McpServerOptions): Promise<McpServer> {
  const wikiDir = mkdtempSync(path.join(os.tmpdir(), 'mcp-wiki-'));
  cpSync(path.join(REPO_ROOT, 'sample-wiki'), wikiDir, { recursive: true });
  const auth = { Authorization: `Bearer ${pat}` };
  const d = await startDoubles();
  const srv = await startTestServer({
    ...accessEnv(d),
    SVC_SYSTEM_PAT: pat,
    SVC_WIKI_DIR: wikiDir,
    ...graphEnv(neo),
  });
  await storePaper({ fetch: srv.fetch, auth }, paper.id, paper.markdown, paper.images);
  await cypherRows(neo, "MERGE (:Concept {id: 'qubit'})-[:RELATED_TO]->(:Concept {id: 'gate'})");
  const identity = await openTestIdentity(srv.config);
  return {
    d,
    srv,
    userPat: (login, scopes) => testPat(identity, login, scopes, `mcp ${scopes.join(' ')}`),
    async rest(pathname, init = {}) {
      const res = await srv.fetch(pathname, { ...init, headers: { ...auth, ...(init.headers ?? {}) } });
      expect(res.status, pathname).toBe(200);
      return res.json();
    },
    async close() {
      identity.close();
      await srv.close();
      await d.close();
      rmSync(wikiDir, { recursive: true, force: true });
    },
  };
}

export interface McpServerFixture extends McpServer {
  /** Closes `client` when the running test ends. */
  closeAfterTest(client: Client): void;
}

/**
 * `startMcpServer` on a Neo4j of the calling test file, before all its tests (and before the file's own hooks);
 * closed after them. The fixture's properties are for use inside tests and hooks.
 */
export function useMcpServer(options: McpServerOptions): McpServerFixture {
  const neo = useNeo4j();
  const current = useFixture(
    'pksd',
    () => startMcpServer(neo.server, options),
    (running) => running.close(),
    120_000,
  );
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  return {
    get d() {
      return current().d;
    },
    get srv() {
      return current().srv;
    },
    userPat: (login, scopes) => current().userPat(login, scopes),
    rest: (pathname, init) => current().rest(pathname, init),
    close: () => current().close(),
    closeAfterTest: (client) => clients.push(client),
  };
}

/** Bytes that start as a PNG image does (signature, header chunk), distinct per `n`: a stored paper's image. */
export const pngBytes = (n: number): Buffer =>
  Buffer.from(`89504e470d0a1a0a0000000d49484452${n.toString(16).padStart(8, '0')}`, 'hex');

/** The paper tools a server with paper access and a graph lists, in order (CONTRACT §20). */
export const PAPER_TOOLS = [
  'paper_markdown',
  'paper_outline',
  'paper_metadata',
  'paper_figures',
  'paper_image',
  'paper_status',
  'paper_lookup',
  'paper_list',
];
/** Every tool that server lists to a credential holding every scope, in order. */
export const ALL_TOOLS = [...PAPER_TOOLS, 'wiki_search', 'wiki_page', 'graph_schema', 'graph_query'];

/** `tools/call` of `name` through the SDK client. */
export const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

/** A tool result's items as text (other kinds as `<kind>`). */
export const texts = (result: CallToolResult): string[] =>
  result.content.map((c) => (c.type === 'text' ? c.text : `<${c.type}>`));
/** A tool result's `item`th text item, parsed. */
export const json = (result: CallToolResult, item = 0): unknown => JSON.parse(texts(result)[item]!);
