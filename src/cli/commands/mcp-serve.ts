/**
 * The MCP server of `pks mcp` (CONTRACT §20) on stdio, calling pksd through the client's API layer with the stored
 * credentials of the server's host. Standard output carries protocol messages only; logs go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ApiCaller } from '../../mcp/caller.js';
import { probeGrants } from '../../mcp/grants.js';
import { createMcpServer } from '../../mcp/server.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../errors.js';
import type { ApiClient } from '../http/api-client.js';

/** The tools' caller over the client's API layer: every request a read, its body read whole. */
export function apiCaller(api: ApiClient): ApiCaller {
  return async (request) => {
    const res = await api.request(request.method, request.path, {
      kind: 'read',
      ...(request.query ? { query: request.query } : {}),
      ...(request.body !== undefined ? { json: request.body } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const body = await res.buffer();
    return { status: res.status, header: (name) => res.header(name), body };
  };
}

/** Serves until standard input ends (or closes); exit 0. */
export async function serveMcp(ctx: CliContext, serverUrl: string | undefined): Promise<number> {
  const api = ctx.api(serverUrl === undefined ? {} : { baseUrl: serverUrl });
  const call = apiCaller(api);
  const log = (message: string) => ctx.io.stderr(`${message}\n`);
  const server = createMcpServer({ call, grants: () => probeGrants(call), log });
  const transport = new StdioServerTransport(ctx.io.stdin, ctx.io.stdoutStream);
  const ended = new Promise<void>((resolve) => {
    ctx.io.stdin.once('end', resolve);
    ctx.io.stdin.once('close', resolve);
  });
  server.onerror = (err) => log(`pks mcp: ${err.message}`);
  await server.connect(transport);
  log(`pks mcp: serving ${api.baseUrl} on stdio`);
  await ended;
  await server.close();
  return EXIT.ok;
}
