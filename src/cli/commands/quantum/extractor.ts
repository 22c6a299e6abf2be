import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CliContext } from '../../context.js';
import { verboseOption } from '../common-options.js';
import type { RegisterCommand } from '../host.js';
import { toolAction } from './tool.js';

/** The `pks paper get markdown <id>` flow of this client, as the extractor's markdown source. */
async function serverMarkdown(ctx: CliContext, preprintId: string): Promise<string> {
  const { paperGet } = await import('../paper/get.js');
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

/** `pks extractor` (CONTRACT §17.7): an AlgorithmIR from a paper, with an LLM. */
export const registerExtractor: RegisterCommand = (program, host) => {
  program
    .command('extractor')
    .description('extract an algorithm description (AlgorithmIR YAML) from a paper with an LLM (experimental)')
    .argument('<preprint_id>', 'arXiv id of a paper whose markdown is local or on the server')
    .option('--llm-provider <provider>', 'openai or anthropic', 'openai')
    .option('--model <model>', 'model (default gpt-4o / claude-3-5-sonnet-latest)')
    .option('-o, --output <file>', 'write the YAML to FILE (default: stdout)')
    .option('--papers-dir <dir>', 'where paper markdown is read and saved', './papers')
    .addOption(verboseOption())
    .action(
      toolAction(
        host,
        () => import('../../quantum/extractor.js'),
        (tool, preprintId, o) => tool.parseExtractorOptions(preprintId!, o),
        (tool, options, ctx) => {
          const cfg = ctx.config();
          return tool.runExtractor(options, ctx.io, {
            openaiApiKey: cfg.openaiApiKey,
            anthropicApiKey: cfg.anthropicApiKey,
            openaiBaseUrl: cfg.openaiBaseUrl,
            anthropicBaseUrl: cfg.anthropicBaseUrl,
            fetchMarkdown: (id) => serverMarkdown(ctx, id),
          });
        },
      ),
    );
};
