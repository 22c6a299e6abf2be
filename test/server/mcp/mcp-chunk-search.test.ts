/**
 * `chunk_search` (CONTRACT §20, §11.7): listed only where chunk search is registered — by pksd's `/mcp` from its
 * own wiring, by `pks mcp` from the server's answers — and answering what `POST /api/rag/search` answers, against
 * the Qdrant and embed doubles.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedInHome, PKS_BIN } from '../../cli/support/pks.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { chunkPoint } from '../../support/upstreams/qdrant.js';
import { accessEnv } from '../access/support/harness.js';
import { startRagDoubles, type RagDoubles } from '../rag/support.js';

const PAT = 'mcp-chunk-search-system-pat-0123';
const AUTH = { Authorization: `Bearer ${PAT}` };

let rag: RagDoubles;
let withRag: TestServer;
let withoutRag: TestServer;

beforeAll(async () => {
  rag = await startRagDoubles();
  withRag = await startTestServer({ ...rag.env, SVC_SYSTEM_PAT: PAT });
  withoutRag = await startTestServer({ ...accessEnv(rag.d), SVC_SYSTEM_PAT: PAT });
  rag.qdrant.points = [1, 2, 3].map((i) => chunkPoint(i, `chunk ${i} about widgets`, 1 - i / 10));
}, 60_000);
afterAll(async () => {
  await withRag?.close();
  await withoutRag?.close();
  await rag?.close();
});

async function overHttp(srv: TestServer): Promise<Client> {
  const client = new Client({ name: 'chunk-search-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers: AUTH } }),
  );
  return client;
}

describe.each([
  ['/mcp', overHttp],
  [
    'pks mcp',
    async (srv: TestServer) => {
      const h = await loggedInHome(srv.url, PAT);
      const client = new Client({ name: 'chunk-search-test', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [PKS_BIN, 'mcp'],
          env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: h.home },
          cwd: h.cwd,
          stderr: 'ignore',
        }),
      );
      return Object.assign(client, { cleanup: () => h.cleanup() });
    },
  ],
] as const)('%s', (_transport, connect) => {
  it('chunk_search is listed only where chunk search is registered, and answers the route’s body', async () => {
    const without = await connect(withoutRag);
    const client = await connect(withRag);
    try {
      expect((await without.listTools()).tools.map((t) => t.name)).not.toContain('chunk_search');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('chunk_search');
      const result = (await client.callTool({
        name: 'chunk_search',
        arguments: { query: 'widgets', top_k: 2, filter: { yymm: '0811' } },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const res = await withRag.fetch('/api/rag/search', {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'widgets', top_k: 2, filters: { yymm: '0811' } }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      const answer = JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
      // Timings differ between two searches; everything else is the same answer.
      const { took_s: _a, ...same } = answer;
      const { took_s: _b, ...rest } = body;
      expect(same).toEqual(rest);
      expect((rest['results'] as unknown[]).length).toBe(2);
    } finally {
      for (const c of [without, client]) {
        await c.close();
        (c as { cleanup?: () => void }).cleanup?.();
      }
    }
  }, 60_000);
});
