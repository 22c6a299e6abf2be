/**
 * MCP benchmark (run: `npm run build && npx vitest run --config bench/support/vitest.config.ts mcp`; see
 * bench/README.md). Each figure beside its baseline in the same run:
 *
 * 1. `tools/call paper_markdown` of the first 40,000 characters of a stored 2 MB paper over `/mcp` (Streamable
 *    HTTP, the SDK's client, one request after the other), against `GET /api/papers/{id}/markdown` of the whole
 *    paper on the same server. Target p99 < 30 ms.
 * 2. The built `pks mcp`: from spawning the process to the `initialize` answer on its stdout, against `pks --version`
 *    (the floor of starting the client). Target < 300 ms (median of 15 starts).
 * Targets are reported, not asserted; the run fails only on wrong answers.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeHome, PKS_BIN, type PksHome } from '../test/cli/support/pks.js';
import { accessEnv, startDoubles, type Doubles } from '../test/server/access/support/harness.js';
import { storePaper } from '../test/server/papers/registry-support.js';
import { startTestServer, type TestServer } from '../test/support/server.js';
import { machine, ms, percentile, report, summary, timeCalls, verdict } from './support/papers-util.js';

const PAT = 'm'.repeat(24);
const AUTH = { Authorization: `Bearer ${PAT}` };
const ID = '2507.00501v1';
/** About 2 MB of paper-like markdown: sections, prose lines, equations with astral characters. */
const MARKDOWN = Array.from({ length: 400 }, (_, s) =>
  [
    `## Section ${s}`,
    '',
    ...Array.from(
      { length: 60 },
      (_, i) => `Line ${i} of section ${s}: the state |𝜓⟩ = α|0⟩ + β|1⟩ evolves as stated.`,
    ),
    '',
  ].join('\n'),
).join('\n');

let d: Doubles;
let srv: TestServer;
let h: PksHome;

beforeAll(async () => {
  report(`# MCP benchmark — ${machine()}`);
  d = await startDoubles();
  srv = await startTestServer({ ...accessEnv(d), SVC_SYSTEM_PAT: PAT, SVC_LOG_LEVEL: 'error' });
  await storePaper({ fetch: srv.fetch, auth: AUTH }, ID, MARKDOWN);
  h = makeHome();
}, 120_000);
afterAll(async () => {
  h?.cleanup();
  await srv?.close();
  await d?.close();
});

test('tools/call paper_markdown, first 40,000 characters of a 2 MB paper, over HTTP', async () => {
  report(`paper: ${(Buffer.byteLength(MARKDOWN) / 1e6).toFixed(2)} MB, ${[...MARKDOWN].length} characters`);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), { requestInit: { headers: AUTH } }),
  );
  try {
    const first = (await client.callTool({ name: 'paper_markdown', arguments: { id: ID } })) as CallToolResult;
    expect(first.content).toHaveLength(2);
    const piece = (first.content[0] as { text: string }).text;
    expect(MARKDOWN.startsWith(piece)).toBe(true);
    const mcp = await timeCalls(300, () => client.callTool({ name: 'paper_markdown', arguments: { id: ID } }), 30);
    const rest = await timeCalls(
      300,
      async () => (await srv.fetch(`/api/papers/${ID}/markdown`, { headers: AUTH })).arrayBuffer(),
      30,
    );
    report(`tools/call paper_markdown (40,000 chars): ${summary(mcp)}`);
    report(`GET /api/papers/{id}/markdown (whole 2 MB): ${summary(rest)}`);
    report(`target p99 < 30 ms: ${verdict(percentile(mcp, 0.99) < 30)}`);
  } finally {
    await client.close();
  }
});

/** Milliseconds from spawning the built `pks` with `args` until `ready` sees its stdout. */
function timeStart(args: string[], input: string | null, ready: (line: string) => boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [PKS_BIN, ...args], {
      cwd: h.cwd,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: h.home },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let elapsed: number | null = null;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (elapsed === null && ready(line)) {
        elapsed = performance.now() - t0;
        child.stdin.end();
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (elapsed === null ? reject(new Error(`pks exited ${code}`)) : resolve(elapsed)));
    if (input !== null) child.stdin.write(input);
    else child.stdin.end();
  });
}

test('pks mcp: start to initialize answered', async () => {
  const initialize = `${JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  })}\n`;
  const starts: number[] = [];
  const versions: number[] = [];
  for (let i = 0; i < 15; i++) {
    starts.push(await timeStart(['mcp', '-s', srv.url], initialize, (l) => l.includes('"protocolVersion"')));
    versions.push(await timeStart(['--version'], null, (l) => l.startsWith('pks ')));
  }
  report(`pks mcp, spawn → initialize answered: median ${ms(percentile(starts, 0.5))}, max ${ms(Math.max(...starts))}`);
  report(`pks --version, spawn → output: median ${ms(percentile(versions, 0.5))}`);
  report(`target < 300 ms: ${verdict(percentile(starts, 0.5) < 300)}`);
});
