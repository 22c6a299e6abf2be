import { outputOption, verboseOption } from '../common-options.js';
import type { RegisterCommand } from '../host.js';
import { toolCommand } from './tool.js';

/** `pks extractor` (CONTRACT §17.7): an AlgorithmIR from a paper, with an LLM. */
export const registerExtractor: RegisterCommand = (program, host) => {
  toolCommand(program, host, 'extractor', () => import('../../quantum/extractor.js'))
    .description('extract an algorithm description (AlgorithmIR YAML) from a paper with an LLM (experimental)')
    .argument('<preprint_id>', 'arXiv id of a paper whose markdown is local or on the server')
    .option('--llm-provider <provider>', 'openai or anthropic', 'openai')
    .option('--model <model>', 'model (default gpt-4o / claude-3-5-sonnet-latest)')
    .addOption(outputOption('write the YAML to FILE (default: stdout)'))
    .option('--papers-dir <dir>', 'where paper markdown is read and saved', './papers')
    .addOption(verboseOption());
};
