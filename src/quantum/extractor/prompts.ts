/** The four extraction prompts (CONTRACT §17.7), each asking for one JSON object. */
import { PRIMITIVES } from '../designer/primitives.js';

export const MAX_PAPER_CHARS = 15_000;
export const TRUNCATION_MARK = '\n...[truncated]';

export function truncatePaper(text: string): string {
  return text.length > MAX_PAPER_CHARS ? `${text.slice(0, MAX_PAPER_CHARS)}${TRUNCATION_MARK}` : text;
}

export const SYSTEM_PROMPT =
  'You extract structured information about quantum algorithms from research papers. Answer with one JSON object and nothing else.';

export type Step = 'metadata' | 'pseudocode' | 'complexity' | 'primitives';
export const STEPS: readonly Step[] = ['metadata', 'pseudocode', 'complexity', 'primitives'];

const SHAPES: Readonly<Record<Step, string>> = {
  metadata:
    '{"name": string (the algorithm\'s name), "description": string, "authors": [string], "year": integer or null, "problem_type": string, "venue": string or null, "doi": string or null}',
  pseudocode:
    '{"algorithm_name": string, "pseudocode": string (numbered steps), "input_description": string, "output_description": string}',
  complexity:
    '{"time_complexity": string, "space_complexity": string, "query_complexity": string or null, "gate_count": string or integer or null, "circuit_depth": string or integer or null, "qubit_count": integer or string or null}',
  primitives: `{"primitives": [string], "usage_context": {primitive id: string}} where every primitive id is one of: ${PRIMITIVES.map((p) => p.id).join(', ')}`,
};

const TASKS: Readonly<Record<Step, string>> = {
  metadata: 'Extract the metadata of the main quantum algorithm of this paper.',
  pseudocode: 'Write the pseudocode of the main quantum algorithm of this paper.',
  complexity: 'Extract the resource complexity of the main quantum algorithm of this paper.',
  primitives: 'List the quantum primitives the main algorithm of this paper is built from, and how each is used.',
};

export function userPrompt(step: Step, paper: string): string {
  return `${TASKS[step]}\nReply with a JSON object of exactly this shape:\n${SHAPES[step]}\n\nPaper:\n${paper}`;
}
