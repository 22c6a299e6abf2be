/**
 * `POST /mcp` (CONTRACT §20) driven by the SDK's own client over Streamable HTTP against a real pksd with paper
 * access on the upstream doubles and a real Neo4j: the tools listed per scope, every tool's answer against the REST
 * answer of the same credential, a conversion awaited with progress notifications, `isError` results, and the
 * route's HTTP behaviour (401, headers, no CORS, size limit, OpenAPI, server info).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { continuationHint } from '../../../src/mcp/text-window.js';
import type { Scope } from '../../../src/shared/scopes.js';
import { addPaper } from '../access/support/papers.js';
import { startTestServer } from '../../support/server.js';
import { defaultMarkdown } from '../../support/upstreams/mineru.js';
import { ALL_TOOLS, callTool, json, PAPER_TOOLS, pngBytes, texts, useMcpServer } from './support/server.js';

const PAT = 'mcp-http-system-pat-0123456789';
const ID = '2507.00101v1';
const PNG = pngBytes(1);
/** A paper long enough to be read in pieces, with headings, a fence and astral characters (𝜓 is two UTF-16 units). */
const MARKDOWN = [
  '# Widgets of 𝜓',
  '',
  'We show the widget below.',
  '',
  '![](images/w1.png)',
  '',
  'Figure 1: The widget.',
  '',
  '## Method',
  '',
  ...Array.from({ length: 400 }, (_, i) => `Line ${i} of the method, with 𝜓 and ψ and some words to fill it.`),
  '',
  '```',
  '# not a heading',
  '```',
  '',
  '### Detail',
  '',
  'Deep text.',
  '',
  '## Results',
  '',
  'Everything works.',
  '',
].join('\n');

const mcp = useMcpServer({ pat: PAT, paper: { id: ID, markdown: MARKDOWN, images: { 'w1.png': PNG } } });

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A client of `/mcp`; closed after the test unless `kept` (closed by its describe block). */
async function connect(token: string, kept = false): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${mcp.srv.url}/mcp`), {
    requestInit: { headers: auth(token) },
  });
  await client.connect(transport);
  if (!kept) mcp.closeAfterTest(client);
  return client;
}

const userPat = (scopes: Scope[]): Promise<string> => mcp.userPat('alice', scopes);
const rest = (pathname: string, init?: RequestInit): Promise<unknown> => mcp.rest(pathname, init);

describe('tools listed per scope', () => {
  it.each([
    ['the system PAT (every scope)', null, ALL_TOOLS],
    ['papers:read', ['papers:read'], PAPER_TOOLS],
    ['wiki:read', ['wiki:read'], ['wiki_search', 'wiki_page']],
    ['graph:read', ['graph:read'], ['graph_schema', 'graph_query']],
    [
      'wiki:write (implies wiki:read) and graph:read',
      ['wiki:write', 'graph:read'],
      ['wiki_search', 'wiki_page', 'graph_schema', 'graph_query'],
    ],
    ['no scope', [], []],
  ])('%s', async (_label, scopes, expected) => {
    const client = await connect(scopes === null ? PAT : await userPat(scopes as Scope[]));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expected);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
  });

  it('tools needing what a server lacks (paper access, a graph) are not listed there', async () => {
    const bare = await startTestServer({ SVC_SYSTEM_PAT: PAT });
    try {
      const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${bare.url}/mcp`), { requestInit: { headers: auth(PAT) } }),
      );
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
        'paper_metadata',
        'paper_figures',
        'paper_status',
        'paper_lookup',
        'paper_list',
        'wiki_search',
        'wiki_page',
      ]);
      const result = await callTool(client, 'paper_markdown', { id: ID });
      expect(texts(result)).toEqual([
        'tool paper_markdown is not available on this server: paper access is off (SVC_PAPER_ACCESS_ENABLED)',
      ]);
      await client.close();
    } finally {
      await bare.close();
    }
  });

  it('a tool whose scope the credential lacks refuses when called', async () => {
    const client = await connect(await userPat(['wiki:read']));
    const result = await callTool(client, 'paper_list');
    expect(result.isError).toBe(true);
    expect(texts(result)).toEqual([
      'tool paper_list needs scope papers:read, which this credential lacks (mint a PAT at /pat with it)',
    ]);
  });

  it('resource templates follow the scopes too', async () => {
    const all = await (await connect(PAT)).listResourceTemplates();
    expect(all.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['pks://wiki/{id}', 'pks://papers/{id}/markdown']);
    const wiki = await (await connect(await userPat(['wiki:read']))).listResourceTemplates();
    expect(wiki.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['pks://wiki/{id}']);
  });
});

describe('each tool answers what the REST route answers', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(PAT, true);
  });
  afterAll(() => client?.close());

  it('paper_metadata: the detail’s metadata and versions', async () => {
    const detail = (await rest(`/api/papers/${ID}`)) as Record<string, unknown>;
    const result = await callTool(client, 'paper_metadata', { id: `https://arxiv.org/abs/${ID}` });
    expect(result.isError).toBeFalsy();
    expect(json(result)).toEqual({
      preprint_id: detail['preprint_id'],
      metadata: detail['metadata'],
      versions: detail['versions'],
    });
  });

  it('paper_figures, paper_status, paper_lookup, paper_list: the route bodies', async () => {
    expect(json(await callTool(client, 'paper_figures', { id: ID }))).toEqual(await rest(`/api/papers/${ID}/figures`));
    expect(json(await callTool(client, 'paper_status', { ids: [ID, '2507.99999v1'] }))).toEqual(
      await rest(`/api/papers/status/batch?ids=${ID},2507.99999v1`),
    );
    expect(json(await callTool(client, 'paper_lookup', { refs: [`arxiv:${ID}`] }))).toEqual(
      await rest(`/api/papers/lookup?ids=arxiv:${ID}`),
    );
    const list = json(await callTool(client, 'paper_list', { q: '2507.001', has_md: true, page: 1 }));
    expect(list).toEqual(await rest('/api/papers?q=2507.001&has_md=true&page=1'));
    expect((list as { total: number }).total).toBe(1);
  });

  it('paper_image: the stored bytes as image content', async () => {
    const result = await callTool(client, 'paper_image', { id: ID, name: 'w1.png' });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'image', mimeType: 'image/png', data: PNG.toString('base64') }]);
    const missing = await callTool(client, 'paper_image', { id: ID, name: 'nope.png' });
    expect(missing).toMatchObject({ isError: true, content: [{ type: 'text', text: 'image not found' }] });
  });

  it('paper_outline: headings with offsets and lengths in characters; a section read with them', async () => {
    const result = await callTool(client, 'paper_outline', { id: ID });
    const { total_chars, headings } = json(result) as {
      total_chars: number;
      headings: { level: number; text: string; offset: number; length: number }[];
    };
    const chars = [...MARKDOWN];
    expect(total_chars).toBe(chars.length);
    expect(headings.map((h) => [h.level, h.text])).toEqual([
      [1, 'Widgets of 𝜓'],
      [2, 'Method'],
      [3, 'Detail'],
      [2, 'Results'],
    ]);
    const results = headings[3]!;
    expect(chars.slice(results.offset, results.offset + results.length).join('')).toBe(
      '## Results\n\nEverything works.\n',
    );
    const section = await callTool(client, 'paper_markdown', { id: ID, offset: results.offset, max_chars: 200 });
    expect(texts(section)).toEqual(['## Results\n\nEverything works.\n']);
    const method = headings[1]!;
    expect(method.length).toBe(headings[3]!.offset - method.offset);
  });

  it('paper_markdown: pieces cut at line ends within max_chars, hint exactly as §20, reassembled exactly', async () => {
    const whole = await (await mcp.srv.fetch(`/api/papers/${ID}/markdown`, { headers: auth(PAT) })).text();
    expect(whole).toBe(MARKDOWN);
    const total = [...MARKDOWN].length;
    let offset = 0;
    let text = '';
    for (let pieces = 0; ; pieces++) {
      expect(pieces).toBeLessThan(100);
      const result = await callTool(client, 'paper_markdown', { id: ID, offset, max_chars: 2000 });
      expect(result.isError).toBeFalsy();
      const [piece, hint] = texts(result);
      expect([...piece!].length + [...(hint ?? '')].length).toBeLessThanOrEqual(2000);
      text += piece;
      if (hint === undefined) break;
      expect(piece!.endsWith('\n')).toBe(true);
      const next = offset + [...piece!].length;
      expect(hint).toBe(continuationHint(total - next, next));
      expect(hint).toMatch(/^\[… \d+ more characters; call again with offset=\d+\]$/);
      offset = next;
    }
    expect(text).toBe(MARKDOWN);
    const first = await callTool(client, 'paper_markdown', { id: ID });
    expect(texts(first)).toEqual([MARKDOWN]); // under the default 40 000
    const past = await callTool(client, 'paper_markdown', { id: ID, offset: total + 1 });
    expect(past).toMatchObject({ isError: true });
    expect(texts(past)).toEqual([`offset ${total + 1} is past the end of the markdown (${total} characters)`]);
  });

  it('wiki_search and wiki_page: the route bodies (the page as facts, then its markdown)', async () => {
    expect(json(await callTool(client, 'wiki_search', { q: 'qubit', limit: 3 }))).toEqual(
      await rest('/api/search?q=qubit&limit=3'),
    );
    const page = (await rest('/api/pages/concept-qubit')) as Record<string, unknown>;
    const result = await callTool(client, 'wiki_page', { id: 'concept-qubit' });
    const { content, ...facts } = page;
    expect(texts(result)).toEqual([JSON.stringify(facts), content]);
    const read = await client.readResource({ uri: 'pks://wiki/concept-qubit' });
    expect(read.contents).toEqual([{ uri: 'pks://wiki/concept-qubit', mimeType: 'text/markdown', text: content }]);
  });

  it('graph_schema and graph_query: the schema with label counts, the query answer', async () => {
    const schema = (await rest('/api/graph/schema')) as Record<string, unknown>;
    const stats = (await rest('/api/graph/stats')) as Record<string, unknown>;
    expect(json(await callTool(client, 'graph_schema'))).toEqual({
      ...schema,
      label_counts: stats['label_counts'],
      nodes: stats['nodes'],
      relationships: stats['relationships'],
    });
    const query = 'MATCH (c:Concept) RETURN c.id AS id ORDER BY id';
    expect(json(await callTool(client, 'graph_query', { query, limit: 5 }))).toEqual(
      await rest('/api/graph/query', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 5 }),
      }),
    );
  });

  it('the stored markdown as a resource; one not stored is an error and starts no job', async () => {
    const read = await client.readResource({ uri: `pks://papers/${ID}/markdown` });
    expect(read.contents).toEqual([{ uri: `pks://papers/${ID}/markdown`, mimeType: 'text/markdown', text: MARKDOWN }]);
    await expect(client.readResource({ uri: 'pks://papers/2507.00555v1/markdown' })).rejects.toThrow(
      'the markdown of 2507.00555v1 is not stored (state none); paper_markdown converts it',
    );
    expect(await rest('/api/papers/2507.00555v1/markdown/status')).toMatchObject({ state: 'none' });
  });
});

describe('isError results', () => {
  it('a paper the server does not hold; a graph query the database refuses; bad arguments', async () => {
    const client = await connect(PAT);
    const missing = await callTool(client, 'paper_metadata', { id: '2507.00999v1' });
    expect(missing).toMatchObject({ isError: true, content: [{ type: 'text', text: 'not hosted: 2507.00999v1' }] });
    const refused = await callTool(client, 'graph_query', { query: "CREATE (:Concept {id: 'x'})" });
    expect(refused.isError).toBe(true);
    expect(texts(refused)[0]).toMatch(/^the graph is read-only: .+ is not allowed$/);
    const admin = await callTool(client, 'graph_query', { query: 'SHOW USERS' });
    expect(texts(admin)).toEqual(['administration commands are not allowed in graph queries']);
    const bad = await callTool(client, 'paper_markdown', { id: ID, max_chars: 10 });
    expect(bad.isError).toBe(true);
    expect(texts(bad)[0]).toMatch(/^invalid arguments for paper_markdown at \/max_chars: /);
  });
});

describe('a conversion awaited', () => {
  it('paper_markdown converts a paper, sending progress notifications, then answers the markdown', async () => {
    const id = '2507.00201v1';
    addPaper(mcp.d.arxiv, '2507.00201');
    mcp.d.mineru.frozen = true;
    const client = await connect(PAT);
    const progress: { progress: number; message?: string }[] = [];
    const pending = client.callTool({ name: 'paper_markdown', arguments: { id, wait_seconds: 60 } }, undefined, {
      onprogress: (p) => {
        progress.push(p);
        if (progress.length === 2) mcp.d.mineru.frozen = false;
      },
      resetTimeoutOnProgress: true,
    });
    const result = (await pending) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(texts(result)).toEqual([defaultMarkdown(id)]);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    for (const p of progress) expect(p.message).toMatch(/^(queued|running) (fetching_pdf|converting_md)/);
  }, 90_000);

  it('cancellation mid-wait (notifications/cancelled in a request of its own): the job is polled no more', async () => {
    const id = '2507.00203v1';
    addPaper(mcp.d.arxiv, '2507.00203');
    addPaper(mcp.d.arxiv, '2507.00204');
    mcp.d.mineru.frozen = true;
    try {
      const client = await connect(PAT);
      const polls = () =>
        mcp.srv.logs.lines.filter(
          (l) => l.includes('incoming request') && l.includes(`/api/papers/${id}/markdown/status`),
        ).length;
      const abort = new AbortController();
      let progressed!: () => void;
      const first = new Promise<void>((resolve) => (progressed = resolve));
      const pending = client.callTool({ name: 'paper_markdown', arguments: { id } }, undefined, {
        signal: abort.signal,
        onprogress: () => progressed(),
      });
      await first;
      abort.abort(new Error('user cancelled'));
      await expect(pending).rejects.toThrow('user cancelled');
      // The cancellation arrives in a request of its own (a poll may still be under way then). Another wait on the
      // same server makes three polls (about two seconds) meanwhile.
      const before = polls();
      let count = 0;
      let third!: () => void;
      const three = new Promise<void>((resolve) => (third = resolve));
      const other = new AbortController();
      const waiting = client.callTool({ name: 'paper_markdown', arguments: { id: '2507.00204v1' } }, undefined, {
        signal: other.signal,
        onprogress: () => ++count === 3 && third(),
      });
      await three;
      other.abort();
      await expect(waiting).rejects.toThrow();
      expect(polls()).toBeLessThanOrEqual(before + 1);
    } finally {
      mcp.d.mineru.frozen = false;
    }
  }, 60_000);

  it('a wait that ends before the conversion answers the job snapshot (not an error)', async () => {
    const id = '2507.00202v1';
    addPaper(mcp.d.arxiv, '2507.00202');
    mcp.d.mineru.frozen = true;
    try {
      const client = await connect(PAT);
      const result = await callTool(client, 'paper_markdown', { id, wait_seconds: 0 });
      expect(result.isError).toBeFalsy();
      expect(texts(result)[0]).toBe('still converting after 0 s; call paper_markdown again to keep waiting');
      expect(json(result, 1)).toMatchObject({ preprint_id: id, state: expect.stringMatching(/^(queued|running)$/) });
    } finally {
      mcp.d.mineru.frozen = false;
    }
  }, 60_000);
});

describe('the HTTP endpoint', () => {
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  it('401 with WWW-Authenticate: Bearer without a credential or with a bad one', async () => {
    const none = await mcp.srv.fetch('/mcp', { method: 'POST', headers, body: initialize });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await none.json()).toEqual({
      detail: 'authentication required (sign in at /login and mint a PAT at /pat, or use the system PAT)',
    });
    const bad = await mcp.srv.fetch('/mcp', {
      method: 'POST',
      headers: { ...headers, ...auth('pat_nope') },
      body: initialize,
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ detail: 'invalid or expired credential' });
  });

  it('the API’s headers, no CORS, a request size limit', async () => {
    const res = await mcp.srv.fetch('/mcp', {
      method: 'POST',
      headers: { ...headers, ...auth(PAT), origin: 'https://evil.example', 'accept-encoding': 'gzip, br' },
      body: initialize,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-store, no-transform');
    expect(res.headers.get('x-svc-server-version')).toMatch(/^\d+\.\d+\.\d+/);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('content-encoding')).toBeNull(); // events are not held back by a compressor
    await res.text();
    const preflight = await mcp.srv.fetch('/mcp', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.status).toBe(405);
    const get = await mcp.srv.fetch('/mcp', { headers: { ...auth(PAT), accept: 'text/event-stream' } });
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    const huge = await mcp.srv.fetch('/mcp', {
      method: 'POST',
      headers: { ...headers, ...auth(PAT) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { pad: 'x'.repeat(1024 * 1024) } }),
    });
    expect(huge.status).toBe(413);
  });

  it('what the transport refuses: 406 (Accept), 415 (Content-Type), 400 (not JSON-RPC, not JSON)', async () => {
    const post = (h: Record<string, string>, body: string) =>
      mcp.srv.fetch('/mcp', { method: 'POST', headers: { ...auth(PAT), ...h }, body });
    const accept = await post({ 'content-type': 'application/json', accept: 'application/json' }, initialize);
    expect(accept.status).toBe(406);
    expect(await accept.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    const type = await post({ 'content-type': 'text/plain', accept: headers.accept }, initialize);
    expect(type.status).toBe(415);
    const rpc = await post(headers, JSON.stringify({ hello: 'world' }));
    expect(rpc.status).toBe(400);
    expect(await rpc.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    const json = await post(headers, '{"jsonrpc":');
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ detail: expect.stringMatching(/^parse body: /) });
  });

  it('listed in the OpenAPI document; /api/server/info says "mcp": true', async () => {
    const doc = (await (await mcp.srv.fetch('/swagger/doc.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths['/mcp'] as object)).toEqual(['post']);
    expect(await (await mcp.srv.fetch('/api/server/info')).json()).toMatchObject({ mcp: true, paper_access: true });
  });
});
