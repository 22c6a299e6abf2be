/**
 * `paper_markdown` over pksd's `/mcp` reads a piece as a byte range of the stored markdown once it has indexed it
 * (src/mcp/markdown-indexes.ts), on both object-store backends. Every answer is the one the whole-markdown path
 * gives (the tool without indexes over the REST API, as before): ASCII, multi-byte and 4-byte characters across
 * the cut and across the index's checkpoints, offsets at the end and past it; a markdown rewritten in the store
 * (another ETag) is never cut with the old index.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiCaller } from '../../../src/mcp/caller.js';
import { TOOLS, type ToolContext } from '../../../src/mcp/tools.js';
import { CHECKPOINT_BYTES } from '../../../src/mcp/text-window.js';
import type { ByteRange } from '../../../src/server/storage/object-store.js';
import { paperKeys, parseVersionedId } from '../../../src/shared/ids.js';
import { useMoto } from '../../support/moto.js';
import { AUTH, startAccessStack, stopAccessStack, type AccessStack } from '../access/support/server.js';
import { storePaper } from '../papers/registry-support.js';

const moto = useMoto();
const ID = '2507.00201v1';
const KEY = paperKeys(parseVersionedId(ID)!).markdown;

/** ~200 KB: numbered lines of ASCII, é, 中文 and 😀, and a 4-byte character across each of the first checkpoints. */
function paper(variant: string): string {
  const lines = Array.from({ length: 5000 }, (_, i) => `${variant} line ${i}: é 中文 😀 ${'x'.repeat(i % 17)}`);
  let text = lines.join('\n');
  for (const at of [CHECKPOINT_BYTES, 2 * CHECKPOINT_BYTES]) {
    const bytes = Buffer.from(text);
    const cut = bytes
      .subarray(0, at - 2)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
    text = `${cut}😀${bytes.subarray(Buffer.byteLength(cut)).toString('utf8')}`;
  }
  return `${text}\n`;
}

describe.each(['local', 's3'] as const)('paper_markdown from byte ranges (%s backend)', (backend) => {
  let stack: AccessStack;
  let client: Client;
  beforeAll(async () => {
    stack = await startAccessStack({}, backend === 's3' ? { moto: moto() } : {});
    await storePaper({ fetch: stack.s.fetch, auth: AUTH }, ID, paper('first'));
    client = new Client({ name: 'mcp-range-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.s.url}/mcp`), { requestInit: { headers: AUTH } }),
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    if (stack) await stopAccessStack(stack);
  });

  /** The tool's answer as `/mcp` gives it, with the store reads it made. */
  async function viaMcp(args: Record<string, unknown>) {
    const reads = vi.spyOn(stack.s.papers, 'readObject');
    try {
      const result = (await client.callTool({
        name: 'paper_markdown',
        arguments: { id: ID, ...args },
      })) as CallToolResult;
      const ranges = reads.mock.calls.filter(([key]) => key === KEY).map(([, range]) => range ?? null);
      return { result: { content: result.content, isError: result.isError ?? false }, ranges };
    } finally {
      reads.mockRestore();
    }
  }

  /** The same tool without indexes, over the REST API: the whole markdown read and cut, as before ranges. */
  async function wholePath(args: Record<string, unknown>) {
    const call: ApiCaller = async (request) => {
      const res = await stack.s.fetch(request.path, { headers: AUTH });
      const body = Buffer.from(await res.arrayBuffer());
      return { status: res.status, body, header: (name) => res.headers.get(name) ?? undefined };
    };
    const ctx: ToolContext = {
      call,
      signal: new AbortController().signal,
      progress: async () => undefined,
      pollMs: 10,
      now: Date.now,
    };
    const result = await TOOLS.find((t) => t.name === 'paper_markdown')!.run({ id: ID, ...args }, ctx);
    return { content: result.content, isError: result.isError ?? false };
  }

  const total = (text: string) => [...text].length;

  it('every piece equals the whole-markdown answer; after the first read, only the bytes a piece needs', async () => {
    const first = await viaMcp({});
    expect(first.result).toEqual(await wholePath({}));
    expect(first.ranges).toEqual([null]);
    const chars = total(paper('first'));
    const cases: [number, number][] = [];
    for (const maxChars of [200, 1_000, 40_000]) {
      for (const offset of [0, 1, 16_000, 16_001, 40_000, 60_000, 65_000, 120_000, chars - 150, chars - 1, chars]) {
        cases.push([offset, maxChars]);
      }
    }
    for (const [offset, maxChars] of cases) {
      const { result, ranges } = await viaMcp({ offset, max_chars: maxChars });
      expect(result, `offset ${offset}, max_chars ${maxChars}`).toEqual(
        await wholePath({ offset, max_chars: maxChars }),
      );
      expect(ranges).toHaveLength(1);
      const range = ranges[0] as ByteRange;
      expect(range.end! - range.start + 1).toBeLessThanOrEqual(CHECKPOINT_BYTES + 4 * maxChars);
    }
  });

  it('an offset past the end: the same error, from a one-byte read', async () => {
    const chars = total(paper('first'));
    for (const offset of [chars + 1, chars + 10_000]) {
      const { result, ranges } = await viaMcp({ offset });
      expect(result).toEqual({
        content: [{ type: 'text', text: `offset ${offset} is past the end of the markdown (${chars} characters)` }],
        isError: true,
      });
      expect(result).toEqual(await wholePath({ offset }));
      expect(ranges).toEqual([{ start: 0, end: 0 }]);
    }
  });

  it('a markdown rewritten in the store is read whole again and indexed anew: never a stale piece', async () => {
    await viaMcp({ offset: 100 });
    const changed = paper('second, longer');
    await stack.s.store.put(KEY, Buffer.from(changed), { contentType: 'text/markdown; charset=utf-8', metadata: {} });
    const after = await viaMcp({ offset: 100, max_chars: 500 });
    expect(after.result).toEqual(await wholePath({ offset: 100, max_chars: 500 }));
    expect((after.result.content[0] as { text: string }).text).toContain('second, longer line');
    // The range of the old index, then the whole new markdown.
    expect(after.ranges).toHaveLength(2);
    expect(after.ranges[1]).toBeNull();
    const next = await viaMcp({ offset: 150_000, max_chars: 1_000 });
    expect(next.result).toEqual(await wholePath({ offset: 150_000, max_chars: 1_000 }));
    expect(next.ranges).toHaveLength(1);
    expect(next.ranges[0]).not.toBeNull();
    // Shorter than the indexed one: the old index's range starts past its end (416), then the whole.
    await stack.s.store.put(KEY, Buffer.from('short\n'), { contentType: 'text/markdown', metadata: {} });
    const short = await viaMcp({ offset: 150_000, max_chars: 1_000 });
    expect(short.result).toEqual({
      content: [{ type: 'text', text: 'offset 150000 is past the end of the markdown (6 characters)' }],
      isError: true,
    });
    expect(short.ranges).toHaveLength(2);
    expect((await viaMcp({ offset: 0 })).result.content).toEqual([{ type: 'text', text: 'short\n' }]);
  });
});
