/** `pks extractor <preprint_id>` (CONTRACT §17.7). */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { parsePreprintId } from '../../shared/ids.js';
import {
  DEFAULT_BASE_URLS,
  DEFAULT_MODELS,
  LLM_PROVIDERS,
  createLlmClient,
  extractAlgorithm,
  paperMarkdown,
  type LlmProvider,
  type MarkdownFetcher,
} from '../../quantum/index.js';
import type { CliContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { messageOf, parseChoiceFlag, stringFlag, writeText, type QuantumIO } from './common.js';
import type { QuantumTool } from './tool.js';

export interface ExtractorOptions {
  readonly preprintId: string;
  readonly provider: LlmProvider;
  readonly model: string;
  readonly output: string | undefined;
  readonly papersDir: string;
  readonly verbose: boolean;
}

/** What the extractor takes from the configuration (`config.yaml`, CONTRACT §16.1) and the rest of `pks`. */
export interface ExtractorDeps {
  readonly openaiApiKey: string | undefined;
  readonly anthropicApiKey: string | undefined;
  /** Default `https://api.openai.com/v1`. */
  readonly openaiBaseUrl?: string;
  /** Default `https://api.anthropic.com`. */
  readonly anthropicBaseUrl?: string;
  /** The `pks paper get markdown` flow; absent = local files only. */
  readonly fetchMarkdown?: MarkdownFetcher;
  /** Waits between LLM retries (tests record them instead of sleeping). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => Date;
}

export function parseExtractorOptions(preprintId: string, o: Record<string, unknown>): ExtractorOptions {
  if (parsePreprintId(preprintId) === null) throw new UsageError(`invalid preprint id: "${preprintId}"`);
  const provider = parseChoiceFlag('--llm-provider', o.llmProvider ?? 'openai', LLM_PROVIDERS);
  return {
    preprintId: preprintId.trim(),
    provider,
    model: typeof o.model === 'string' && o.model.trim() !== '' ? o.model : DEFAULT_MODELS[provider],
    output: stringFlag(o.output),
    papersDir: typeof o.papersDir === 'string' ? o.papersDir : './papers',
    verbose: o.verbose === true,
  };
}

export async function runExtractor(options: ExtractorOptions, io: QuantumIO, deps: ExtractorDeps): Promise<number> {
  const log = options.verbose ? (line: string) => io.stderr(`${line}\n`) : undefined;
  const apiKey = options.provider === 'openai' ? deps.openaiApiKey : deps.anthropicApiKey;
  const keyName = `${options.provider}_api_key`;
  if (apiKey === undefined || apiKey === '') {
    io.stderr(`Error: ${keyName} is not set; set it with: pks config set ${keyName}\n`);
    return EXIT.failure;
  }
  let paper;
  try {
    paper = await paperMarkdown(options.preprintId, options.papersDir, deps.fetchMarkdown);
  } catch (err) {
    io.stderr(`Error: ${messageOf(err)}\n`);
    return EXIT.failure;
  }
  log?.(paper.fetched ? `Fetched markdown from the server into ${paper.path}` : `Using ${paper.path}`);
  const baseUrl =
    (options.provider === 'openai' ? deps.openaiBaseUrl : deps.anthropicBaseUrl) ?? DEFAULT_BASE_URLS[options.provider];
  const client = createLlmClient({
    provider: options.provider,
    apiKey,
    model: options.model,
    baseUrl,
    ...(deps.sleep === undefined ? {} : { sleep: deps.sleep }),
  });
  log?.(`Calling ${options.provider} (${options.model}) at ${baseUrl}`);
  let result;
  try {
    result = await extractAlgorithm({
      preprintId: options.preprintId,
      markdown: paper.text,
      client,
      ...(log === undefined ? {} : { log }),
      ...(deps.now === undefined ? {} : { now: deps.now() }),
    });
  } catch (err) {
    io.stderr(`Error: ${messageOf(err)}\n`);
    return EXIT.failure;
  }
  if (result.droppedPrimitives.length > 0)
    log?.(`Ignored primitives that are not built in: ${result.droppedPrimitives.join(', ')}`);
  const { prompt, completion, total } = result.usage;
  io.stderr(`Token usage: prompt ${prompt}, completion ${completion}, total ${total}\n`);
  const yaml = toYaml(result.algorithm, { lineWidth: 0 });
  if (options.output === undefined) io.stdout(yaml);
  else {
    await writeText(options.output, yaml);
    io.stdout(`Algorithm IR saved to: ${options.output}\n`);
  }
  return EXIT.ok;
}

/** The `pks paper get markdown <id>` flow of this client, as the extractor's markdown source. */
async function serverMarkdown(ctx: CliContext, preprintId: string): Promise<string> {
  const { paperGet } = await import('../commands/paper/get.js');
  const dir = await mkdtemp(path.join(tmpdir(), 'pks-extractor-'));
  try {
    const output = path.join(dir, 'paper.md');
    const code = await paperGet(ctx, {
      kind: 'markdown',
      id: preprintId,
      output,
      wait: true,
      maxWaitS: 1800,
      quietProgress: false,
      quietNotes: false,
      timeoutMs: 120_000,
    });
    if (code !== 0) throw new Error(`pks paper get markdown ${preprintId} failed (exit ${code})`);
    return await readFile(output, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `pks extractor`: its `<preprint_id>` is required, so commander has checked that it is there. */
export const tool: QuantumTool<ExtractorOptions> = {
  validate: (preprintId, o) => parseExtractorOptions(preprintId!, o),
  run: (options, ctx) => {
    const cfg = ctx.config();
    return runExtractor(options, ctx.io, {
      openaiApiKey: cfg.openaiApiKey,
      anthropicApiKey: cfg.anthropicApiKey,
      openaiBaseUrl: cfg.openaiBaseUrl,
      anthropicBaseUrl: cfg.anthropicBaseUrl,
      fetchMarkdown: (id) => serverMarkdown(ctx, id),
    });
  },
};
