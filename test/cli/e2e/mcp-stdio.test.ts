/**
 * `pks mcp` (CONTRACT §16.8, §20): the built client as an MCP server on stdio, driven by the SDK's own `Client` +
 * `StdioClientTransport` and by raw JSON-RPC lines, against a real pksd with paper access on the upstream doubles
 * and a real Neo4j: tools per the stored credential's scopes, each tool against the REST answer, a conversion
 * awaited with progress notifications, cancellation mid-wait, `isError` results, nothing but protocol messages on
 * stdout, exit 0 when stdin closes.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Scope } from '../../../src/shared/scopes.js';
import { addPaper } from '../../server/access/support/papers.js';
import { defaultMarkdown } from '../../support/upstreams/mineru.js';
import { loggedInHome, PKS_BIN, type PksHome } from '../support/pks.js';
import { ALL_TOOLS, callTool, json, texts, useMcpServer } from '../../server/mcp/support/server.js';

const PAT = 'mcp-stdio-system-pat-0123456789';
const ID = '2507.00401v1';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000002', 'hex');
const MARKDOWN = [
  '# Stdio 𝜓',
  '',
  '![](images/s1.png)',
  '',
  'Figure 1: A figure.',
  '',
  ...Array.from({ length: 200 }, (_, i) => `## Part ${i}\n\nText of part ${i}.\n`),
].join('\n');

const homes: PksHome[] = [];
const mcp = useMcpServer({ pat: PAT, paper: { id: ID, markdown: MARKDOWN, images: { 's1.png': PNG } } });
afterEach(() => {
  mcp.d.mineru.frozen = false;
});
afterAll(() => {
  for (const h of homes) h.cleanup();
});

async function home(token = PAT): Promise<PksHome> {
  const h = await loggedInHome(mcp.srv.url, token);
  homes.push(h);
  return h;
}

/** `pks mcp` under the SDK's stdio client transport; its stderr is collected. */
async function connect(h: PksHome): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PKS_BIN, 'mcp'],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: h.home },
    cwd: h.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  mcp.closeAfterTest(client);
  return { client, stderr: () => stderr };
}

const userPat = (scopes: Scope[]): Promise<string> => mcp.userPat('bob', scopes);
const rest = (pathname: string, init?: RequestInit): Promise<unknown> => mcp.rest(pathname, init);

/** Status polls the server received for a paper's markdown job. */
const statusPolls = (id: string): number =>
  mcp.srv.logs.lines.filter((l) => l.includes('incoming request') && l.includes(`/api/papers/${id}/markdown/status`))
    .length;

describe('tools', () => {
  it('listed per the stored credential’s scopes; a lacking scope refuses when called', async () => {
    const all = await connect(await home());
    expect((await all.client.listTools()).tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    const wiki = await connect(await home(await userPat(['wiki:read'])));
    expect((await wiki.client.listTools()).tools.map((t) => t.name)).toEqual(['wiki_search', 'wiki_page']);
    const refused = await callTool(wiki.client, 'graph_query', { query: 'RETURN 1' });
    expect(refused).toMatchObject({ isError: true });
    expect(texts(refused)).toEqual([
      'tool graph_query needs scope graph:read, which this credential lacks (mint a PAT at /pat with it)',
    ]);
  }, 60_000);

  it('no stored credential: no tools, and the reason on stderr', async () => {
    const h = await home();
    rmSync(h.hostsPath);
    const none = await connect(h);
    expect((await none.client.listTools()).tools).toEqual([]);
    expect(none.stderr()).toContain(
      'pks mcp: no tools available: authentication required (sign in at /login and mint a PAT at /pat, or use the system PAT)',
    );
  }, 60_000);

  it('each tool answers what the REST route answers', async () => {
    const { client } = await connect(await home());
    const same: [string, Record<string, unknown>, string][] = [
      ['paper_figures', { id: ID }, `/api/papers/${ID}/figures`],
      ['paper_status', { ids: [ID, '2507.00999v1'] }, `/api/papers/status/batch?ids=${ID},2507.00999v1`],
      ['paper_lookup', { refs: [`arxiv:${ID}`, 'doi:10.1/x'] }, `/api/papers/lookup?ids=arxiv:${ID},doi:10.1/x`],
      ['paper_list', { q: '2507.004' }, '/api/papers?q=2507.004'],
      ['wiki_search', { q: 'entanglement' }, '/api/search?q=entanglement'],
    ];
    for (const [tool, args, route] of same)
      expect(json(await callTool(client, tool, args)), tool).toEqual(await rest(route));
    const detail = (await rest(`/api/papers/${ID}`)) as Record<string, unknown>;
    expect(json(await callTool(client, 'paper_metadata', { id: ID }))).toEqual({
      preprint_id: detail['preprint_id'],
      metadata: detail['metadata'],
      versions: detail['versions'],
    });
    expect((await callTool(client, 'paper_image', { id: ID, name: 's1.png' })).content).toEqual([
      { type: 'image', mimeType: 'image/png', data: PNG.toString('base64') },
    ]);
    const { content, ...facts } = (await rest('/api/pages/concept-entanglement')) as Record<string, unknown>;
    expect(texts(await callTool(client, 'wiki_page', { id: 'concept-entanglement' }))).toEqual([
      JSON.stringify(facts),
      content,
    ]);
    const query = 'MATCH (c:Concept) RETURN c.id AS id ORDER BY id';
    expect(json(await callTool(client, 'graph_query', { query }))).toEqual(
      await rest('/api/graph/query', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      }),
    );
    const schema = json(await callTool(client, 'graph_schema')) as { label_counts: Record<string, number> };
    expect(schema).toMatchObject((await rest('/api/graph/schema')) as object);
    expect(schema.label_counts).toEqual(((await rest('/api/graph/stats')) as { label_counts: object }).label_counts);

    const outline = json(await callTool(client, 'paper_outline', { id: ID })) as {
      headings: { text: string; offset: number; length: number }[];
    };
    expect(outline.headings).toHaveLength(201);
    const part = outline.headings.find((h) => h.text === 'Part 7')!;
    const section = texts(await callTool(client, 'paper_markdown', { id: ID, offset: part.offset, max_chars: 200 }));
    expect(section[0]!.startsWith('## Part 7\n\nText of part 7.\n\n## Part 8\n')).toBe(true);
    expect(section[0]!.endsWith('\n')).toBe(true);
    expect([...section[0]!, ...section[1]!].length).toBeLessThanOrEqual(200);
    let text = '';
    for (let offset: number | null = 0; offset !== null;) {
      const piece = texts(await callTool(client, 'paper_markdown', { id: ID, offset, max_chars: 1000 }));
      text += piece[0];
      offset = piece[1] === undefined ? null : Number(/offset=(\d+)\]$/.exec(piece[1])![1]);
    }
    expect(text).toBe(MARKDOWN);
  }, 60_000);

  it('isError results: a missing paper, a refused graph query', async () => {
    const { client } = await connect(await home());
    expect(await callTool(client, 'paper_metadata', { id: '2507.00999v1' })).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'not hosted: 2507.00999v1' }],
    });
    const refused = await callTool(client, 'graph_query', { query: 'MATCH (n) DETACH DELETE n' });
    expect(refused.isError).toBe(true);
    expect(texts(refused)[0]).toMatch(/^the graph is read-only: .+ is not allowed$/);
  }, 60_000);
});

describe('waiting for a conversion', () => {
  it('progress notifications while converting, then the markdown', async () => {
    const id = '2507.00411v1';
    addPaper(mcp.d.arxiv, '2507.00411');
    mcp.d.mineru.frozen = true;
    const { client } = await connect(await home());
    const messages: string[] = [];
    const result = (await client.callTool({ name: 'paper_markdown', arguments: { id } }, undefined, {
      onprogress: (p) => {
        messages.push(p.message ?? '');
        if (messages.length === 3) mcp.d.mineru.frozen = false;
      },
    })) as CallToolResult;
    expect(texts(result)).toEqual([defaultMarkdown(id)]);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(messages.at(-1)).toMatch(/^running converting_md \(stage \w+/);
  }, 90_000);

  it('cancellation mid-wait: the call ends at once and the server is polled no more', async () => {
    const cancelled = '2507.00412v1';
    const other = '2507.00413v1';
    addPaper(mcp.d.arxiv, '2507.00412');
    addPaper(mcp.d.arxiv, '2507.00413');
    mcp.d.mineru.frozen = true;
    const { client } = await connect(await home());
    const errors: Error[] = [];
    client.onerror = (err) => errors.push(err);
    const abort = new AbortController();
    let progressed!: () => void;
    const firstProgress = new Promise<void>((resolve) => (progressed = resolve));
    const pending = client.callTool({ name: 'paper_markdown', arguments: { id: cancelled } }, undefined, {
      signal: abort.signal,
      onprogress: () => progressed(),
    });
    await firstProgress;
    abort.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
    // The cancellation travels before this request on the same pipe.
    await client.listTools();
    const polls = statusPolls(cancelled);
    // While another wait makes three polls (about two seconds), the cancelled one makes none.
    const second = new AbortController();
    let count = 0;
    let thirdProgress!: () => void;
    const three = new Promise<void>((resolve) => (thirdProgress = resolve));
    const waiting = client.callTool({ name: 'paper_markdown', arguments: { id: other } }, undefined, {
      signal: second.signal,
      onprogress: () => {
        if (++count === 3) thirdProgress();
      },
    });
    await three;
    second.abort();
    await expect(waiting).rejects.toThrow();
    expect(statusPolls(cancelled)).toBe(polls);
    expect(statusPolls(other)).toBeGreaterThanOrEqual(2);
    expect(errors).toEqual([]);
  }, 90_000);
});

describe('the stdio stream', () => {
  it('stdout carries protocol messages only (every line parsed); exit 0 when stdin closes', async () => {
    const h = await home();
    addPaper(mcp.d.arxiv, '2507.00421');
    const child = spawn(process.execPath, [PKS_BIN, 'mcp', '-s', mcp.srv.url], {
      cwd: h.cwd,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: h.home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const lines: string[] = [];
    const waiters: { id: number; resolve: () => void }[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const id = (JSON.parse(line) as { id?: number }).id;
      for (const w of waiters.filter((w) => w.id === id)) w.resolve();
    });
    const request = (id: number, method: string, params: object = {}) => {
      const answered = new Promise<void>((resolve) => waiters.push({ id, resolve }));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return answered;
    };
    await request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    await request(2, 'tools/list');
    await request(3, 'tools/call', {
      name: 'paper_markdown',
      arguments: { id: '2507.00421v1' },
      _meta: { progressToken: 'p1' },
    });
    await request(4, 'tools/call', { name: 'paper_metadata', arguments: { id: '2507.00999v1' } });
    await request(5, 'tools/call', { name: 'no_such_tool', arguments: {} });
    child.stdin.end();
    expect(await exited).toBe(0);

    const messages = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const m of messages) expect(m['jsonrpc']).toBe('2.0');
    expect(messages.filter((m) => 'id' in m).map((m) => m['id'])).toEqual([1, 2, 3, 4, 5]);
    const progress = messages.filter((m) => m['method'] === 'notifications/progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatchObject({ params: { progressToken: 'p1', progress: 1 } });
    expect(messages.find((m) => m['id'] === 3)).toMatchObject({
      result: { content: [{ type: 'text', text: defaultMarkdown('2507.00421v1') }] },
    });
    expect(messages.find((m) => m['id'] === 4)).toMatchObject({ result: { isError: true } });
    expect(messages.find((m) => m['id'] === 5)).toMatchObject({
      error: { message: expect.stringContaining('unknown tool: no_such_tool') },
    });
    expect(stderr).toContain(`pks mcp: serving ${mcp.srv.url} on stdio`);
  }, 60_000);
});
