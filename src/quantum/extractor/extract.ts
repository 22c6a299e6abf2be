/**
 * `pks extractor` (CONTRACT §17.7): four sequential LLM calls on the paper's markdown, assembled into an
 * AlgorithmIR that `pks designer` accepts.
 */
import { UpstreamError } from '../../shared/domain-errors.js';
import { rfc3339 } from '../../shared/time.js';
import { findPrimitive } from '../designer/primitives.js';
import type { LlmClient, TokenUsage } from './llm.js';
import { STEPS, SYSTEM_PROMPT, truncatePaper, userPrompt, type Step } from './prompts.js';

export interface AlgorithmIR {
  id: string;
  name: string;
  description?: string;
  preprint_id: string;
  authors?: string[];
  year?: number;
  venue?: string;
  doi?: string;
  problem_type?: string;
  primitives: string[];
  complexity: {
    time?: string;
    space?: string;
    query_complexity?: string;
    gate_count?: string | number;
    circuit_depth?: string | number;
    qubit_count?: string | number;
  };
  pseudocode?: string;
  input_params: string[];
  output_params: string[];
  assumptions: string[];
  created_at: string;
  version: '1.0.0';
}

export interface ExtractionResult {
  algorithm: AlgorithmIR;
  usage: TokenUsage;
  /** Primitive ids the model named that are not built in (dropped). */
  droppedPrimitives: string[];
}

type Json = Record<string, unknown>;

/** The JSON object of a reply; tolerates a ```json fence around it. */
export function parseReplyJson(text: string, step: Step): Json {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  const body = fenced ? fenced[1]! : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    const start = body.indexOf('{');
    const end = body.lastIndexOf('}');
    try {
      value = start >= 0 && end > start ? JSON.parse(body.slice(start, end + 1)) : undefined;
    } catch {
      value = undefined;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UpstreamError('llm', `the ${step} reply is not a JSON object: ${text.slice(0, 200)}`);
  return value as Json;
}

/** `Shor's Algorithm` (1994) → `shor_s_algorithm_1994`. */
export function algorithmId(name: string, year: number | undefined): string {
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return year === undefined ? base : `${base}_${year}`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const strOrInt = (v: unknown): string | number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : str(v);
const strList = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.filter((x): x is string => typeof x === 'string')
    : typeof v === 'string' && v.trim() !== ''
      ? [v]
      : [];

function withoutUndefined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined && v !== null)) as T;
}

export interface ExtractOptions {
  readonly preprintId: string;
  readonly markdown: string;
  readonly client: LlmClient;
  readonly log?: (line: string) => void;
  readonly now?: Date;
}

export async function extractAlgorithm(options: ExtractOptions): Promise<ExtractionResult> {
  const paper = truncatePaper(options.markdown);
  const usage: TokenUsage = { prompt: 0, completion: 0, total: 0 };
  const replies: Partial<Record<Step, Json>> = {};
  for (const step of STEPS) {
    options.log?.(`Extracting ${step}…`);
    const reply = await options.client.complete(SYSTEM_PROMPT, userPrompt(step, paper));
    usage.prompt += reply.usage.prompt;
    usage.completion += reply.usage.completion;
    usage.total += reply.usage.total;
    replies[step] = parseReplyJson(reply.text, step);
  }
  const meta = replies.metadata!;
  const pseudo = replies.pseudocode!;
  const cx = replies.complexity!;
  const prims = replies.primitives!;

  const name = str(meta.name) ?? str(pseudo.algorithm_name) ?? options.preprintId;
  const year = typeof meta.year === 'number' && Number.isInteger(meta.year) ? meta.year : undefined;
  const primitives: string[] = [];
  const dropped: string[] = [];
  for (const id of strList(prims.primitives)) {
    const p = findPrimitive(id);
    if (p === undefined) dropped.push(id);
    else if (!primitives.includes(p.id)) primitives.push(p.id);
  }
  const algorithm: AlgorithmIR = withoutUndefined({
    id: algorithmId(name, year),
    name,
    description: str(meta.description),
    preprint_id: options.preprintId,
    authors: strList(meta.authors),
    year,
    venue: str(meta.venue),
    doi: str(meta.doi),
    problem_type: str(meta.problem_type),
    primitives,
    complexity: withoutUndefined({
      time: str(cx.time_complexity),
      space: str(cx.space_complexity),
      query_complexity: str(cx.query_complexity),
      gate_count: strOrInt(cx.gate_count),
      circuit_depth: strOrInt(cx.circuit_depth),
      qubit_count: strOrInt(cx.qubit_count),
    }),
    pseudocode: str(pseudo.pseudocode),
    input_params: strList(pseudo.input_description),
    output_params: strList(pseudo.output_description),
    assumptions: [],
    created_at: rfc3339(options.now ?? new Date()),
    version: '1.0.0',
  });
  return { algorithm, usage, droppedPrimitives: dropped };
}
