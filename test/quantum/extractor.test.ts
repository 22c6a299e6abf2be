import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseDesignerOptions, runDesigner } from '../../src/cli/quantum/designer.js';
import { parseExtractorOptions, runExtractor, type ExtractorDeps } from '../../src/cli/quantum/extractor.js';
import { parseQuantumIR } from '../../src/quantum/index.js';
import { startAnthropicDouble, startOpenAIDouble, stepOf, type LlmDouble, type Step } from './support/llm-doubles.js';

const NOW = () => new Date('2026-05-01T12:00:00Z');

const REPLIES: Record<Step, string> = {
  metadata: JSON.stringify({
    name: "Shor's Algorithm",
    description: 'Polynomial-time factoring',
    authors: ['Peter W. Shor'],
    year: 1995,
    problem_type: 'factoring',
    venue: null,
    doi: null,
  }),
  pseudocode: JSON.stringify({
    algorithm_name: 'Shor',
    pseudocode: '1. pick a\n2. find the order',
    input_description: 'An odd composite integer N',
    output_description: 'A non-trivial factor of N',
  }),
  complexity: JSON.stringify({
    time_complexity: 'O((log N)^3)',
    space_complexity: 'O(log N)',
    query_complexity: null,
    gate_count: null,
    circuit_depth: null,
    qubit_count: '2n + 3',
  }),
  primitives:
    '```json\n' +
    JSON.stringify({ primitives: ['primitive_qpe', 'primitive_qft', 'primitive_teleport'], usage_context: {} }) +
    '\n```',
};

function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (t: string) => (out.stdout += t), stderr: (t: string) => (out.stderr += t) } };
}

let dir: string;
let papers: string;
const PAPER = `# Polynomial-time algorithms\n${'x'.repeat(20_000)}`;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pks-extractor-'));
  papers = path.join(dir, 'papers');
  await mkdir(papers);
  await writeFile(path.join(papers, 'quant-ph_9508027v2.md'), PAPER);
});

const doubles: LlmDouble[] = [];
afterEach(async () => {
  await Promise.all(doubles.splice(0).map((d) => d.close()));
});

function deps(extra: Partial<ExtractorDeps>): ExtractorDeps & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    openaiApiKey: 'sk-test-openai',
    anthropicApiKey: 'sk-ant-test',
    sleep: async (ms) => void sleeps.push(ms),
    now: NOW,
    sleeps,
    ...extra,
  };
}

describe('pks extractor', () => {
  it('validates the preprint id and the provider before any I/O', () => {
    expect(() => parseExtractorOptions('not-an-id', {})).toThrow('invalid preprint id: "not-an-id"');
    expect(() => parseExtractorOptions('2501.00010v1', { llmProvider: 'gemini' })).toThrow(
      "--llm-provider must be one of openai, anthropic, got 'gemini'",
    );
    expect(parseExtractorOptions('2501.00010v1', {})).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o',
      papersDir: './papers',
    });
    expect(parseExtractorOptions('2501.00010v1', { llmProvider: 'anthropic' }).model).toBe('claude-3-5-sonnet-latest');
  });

  it('OpenAI: four sequential JSON-mode calls on the truncated text, AlgorithmIR YAML on stdout, token usage on stderr', async () => {
    const llm = await startOpenAIDouble({ replies: REPLIES });
    doubles.push(llm);
    const { out, io } = capture();
    const options = parseExtractorOptions('9508027v2', { papersDir: papers });
    expect(await runExtractor(options, io, deps({ openaiBaseUrl: `${llm.baseUrl}/v1` }))).toBe(0);

    expect(llm.requests).toHaveLength(4);
    expect(llm.prompts.map(stepOf)).toEqual(['metadata', 'pseudocode', 'complexity', 'primitives']);
    for (const req of llm.requests) {
      expect(req.headers.authorization).toBe('Bearer sk-test-openai');
      const body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
      expect(body).toMatchObject({ model: 'gpt-4o', response_format: { type: 'json_object' } });
    }
    const paperInPrompt = llm.prompts[0]!.slice(llm.prompts[0]!.indexOf('Paper:\n') + 'Paper:\n'.length);
    expect(paperInPrompt).toBe(`${PAPER.slice(0, 15_000)}\n...[truncated]`);

    expect(parseYaml(out.stdout)).toEqual({
      id: 'shor_s_algorithm_1995',
      name: "Shor's Algorithm",
      description: 'Polynomial-time factoring',
      preprint_id: '9508027v2',
      authors: ['Peter W. Shor'],
      year: 1995,
      problem_type: 'factoring',
      primitives: ['primitive_qpe', 'primitive_qft'],
      complexity: { time: 'O((log N)^3)', space: 'O(log N)', qubit_count: '2n + 3' },
      pseudocode: '1. pick a\n2. find the order',
      input_params: ['An odd composite integer N'],
      output_params: ['A non-trivial factor of N'],
      assumptions: [],
      created_at: '2026-05-01T12:00:00Z',
      version: '1.0.0',
    });
    // prompt 101+102+103+104, completion 10+20+30+40.
    expect(out.stderr).toBe('Token usage: prompt 410, completion 100, total 510\n');
  });

  it('Anthropic: x-api-key, anthropic-version, max_tokens 4096, JSON-only system prompt; -o writes the file the designer accepts', async () => {
    const llm = await startAnthropicDouble({ replies: REPLIES });
    doubles.push(llm);
    const { out, io } = capture();
    const file = path.join(dir, 'out', 'shor.yaml');
    const options = parseExtractorOptions('quant-ph/9508027v2', {
      papersDir: papers,
      llmProvider: 'anthropic',
      output: file,
      model: 'claude-test',
    });
    expect(await runExtractor(options, io, deps({ anthropicBaseUrl: llm.baseUrl }))).toBe(0);
    expect(out.stdout).toBe(`Algorithm IR saved to: ${file}\n`);
    expect(out.stderr).toBe('Token usage: prompt 810, completion 200, total 1010\n');
    for (const req of llm.requests) {
      expect(req.url).toBe('/v1/messages');
      expect(req.headers['x-api-key']).toBe('sk-ant-test');
      expect(req.headers['anthropic-version']).toBe('2023-06-01');
      const body = JSON.parse(req.body.toString('utf8')) as { model: string; max_tokens: number; system: string };
      expect(body.model).toBe('claude-test');
      expect(body.max_tokens).toBe(4096);
      expect(body.system).toContain('Respond with valid JSON only.');
    }
    // The designer takes the extractor's output directly.
    const designed = capture();
    const irFile = path.join(dir, 'out', 'shor.json');
    expect(await runDesigner(parseDesignerOptions(file, { output: irFile }), designed.io, { wikiDir: dir })).toBe(0);
    const ir = parseQuantumIR(await readFile(irFile, 'utf8'));
    expect(ir.algorithm_id).toBe('shor_s_algorithm_1995');
    expect(ir.metadata.primitives_used).toEqual(['primitive_qpe', 'primitive_qft']);
  });

  it('retries 429 and 5xx up to 3 times after 1, 2 and 4 s', async () => {
    const llm = await startOpenAIDouble({ replies: REPLIES, failFirst: [429, 500, 503] });
    doubles.push(llm);
    const { io } = capture();
    const d = deps({ openaiBaseUrl: `${llm.baseUrl}/v1` });
    expect(await runExtractor(parseExtractorOptions('9508027v2', { papersDir: papers }), io, d)).toBe(0);
    expect(d.sleeps).toEqual([1000, 2000, 4000]);
    expect(llm.requests).toHaveLength(7);
  });

  it('gives up after the third retry with exit 1', async () => {
    const llm = await startAnthropicDouble({ replies: REPLIES, failFirst: [529, 529, 529, 529] });
    doubles.push(llm);
    const { out, io } = capture();
    const d = deps({ anthropicBaseUrl: llm.baseUrl });
    const options = parseExtractorOptions('9508027v2', { papersDir: papers, llmProvider: 'anthropic' });
    expect(await runExtractor(options, io, d)).toBe(1);
    expect(d.sleeps).toEqual([1000, 2000, 4000]);
    expect(out.stderr).toMatch(/^Error: Anthropic answered HTTP 529: /);
  });

  it('does not retry a 401', async () => {
    const llm = await startOpenAIDouble({ replies: REPLIES, failFirst: [401] });
    doubles.push(llm);
    const { out, io } = capture();
    const d = deps({ openaiBaseUrl: `${llm.baseUrl}/v1` });
    expect(await runExtractor(parseExtractorOptions('9508027v2', { papersDir: papers }), io, d)).toBe(1);
    expect(d.sleeps).toEqual([]);
    expect(out.stderr).toMatch(/^Error: OpenAI answered HTTP 401: /);
  });

  it('a missing key exits 1', async () => {
    const { out, io } = capture();
    const options = parseExtractorOptions('9508027v2', { papersDir: papers, llmProvider: 'anthropic' });
    expect(await runExtractor(options, io, deps({ anthropicApiKey: undefined }))).toBe(1);
    expect(out.stderr).toBe('Error: anthropic_api_key is not set; set it with: pks config set anthropic_api_key\n');
  });

  it('fetches missing markdown from the server and saves it under --papers-dir', async () => {
    const llm = await startOpenAIDouble({ replies: REPLIES });
    doubles.push(llm);
    const { io } = capture();
    const target = path.join(dir, 'fresh-papers');
    const asked: string[] = [];
    const d = deps({
      openaiBaseUrl: `${llm.baseUrl}/v1`,
      fetchMarkdown: async (id) => {
        asked.push(id);
        return '# fetched paper';
      },
    });
    expect(await runExtractor(parseExtractorOptions('2501.00010v1', { papersDir: target }), io, d)).toBe(0);
    expect(asked).toEqual(['2501.00010v1']);
    expect(await readFile(path.join(target, '2501.00010v1.md'), 'utf8')).toBe('# fetched paper');
    expect(llm.prompts[0]).toContain('Paper:\n# fetched paper');
  });

  it('unavailable markdown exits 1 with the hint', async () => {
    const { out, io } = capture();
    const d = deps({
      fetchMarkdown: async () => {
        throw new Error('HTTP 404 Not Found');
      },
    });
    expect(
      await runExtractor(parseExtractorOptions('2501.00011v1', { papersDir: path.join(dir, 'none') }), io, d),
    ).toBe(1);
    expect(out.stderr).toContain('HTTP 404 Not Found');
    expect(out.stderr).toContain(
      "run 'pks contrib parser 2501.00011v1' to parse it, or enable paper access on the server",
    );
  });

  it('a reply that is not JSON fails with exit 1', async () => {
    const llm = await startOpenAIDouble({ replies: { ...REPLIES, complexity: 'I cannot answer that.' } });
    doubles.push(llm);
    const { out, io } = capture();
    expect(
      await runExtractor(
        parseExtractorOptions('9508027v2', { papersDir: papers }),
        io,
        deps({ openaiBaseUrl: `${llm.baseUrl}/v1` }),
      ),
    ).toBe(1);
    expect(out.stderr).toBe('Error: the complexity reply is not a JSON object: I cannot answer that.\n');
  });
});
