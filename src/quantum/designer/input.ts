/**
 * Designer input (CONTRACT §17.3): an algorithm file (`.yaml`, `.yml`, `.json`; an extractor AlgorithmIR
 * qualifies) or the id of a page in the local wiki, whose `[[prim-…]]` links name the primitives.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { InvalidInputError, NotFoundError } from '../../shared/domain-errors.js';
import { scanWiki } from '../../wiki/index.js';
import { parseAssignment, type ParamMap, type ParamValue } from './params.js';

export interface AlgorithmInput {
  readonly id: string;
  readonly name: string;
  /** Listed primitives; `null` when none are listed (then they are inferred). */
  readonly primitives: string[] | null;
  readonly inputParams: ParamMap;
  /** `complexity.qubit_count` when it is a positive integer. */
  readonly qubitCount: number | null;
  /** Problems met while reading the input (for `metadata.validation_errors`). */
  readonly notes: string[];
}

const FILE_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

export async function loadAlgorithmInput(arg: string, wikiDir: string): Promise<AlgorithmInput> {
  if (FILE_EXTENSIONS.has(path.extname(arg).toLowerCase()) && (await isFile(arg))) return readAlgorithmFile(arg);
  const fromWiki = await readWikiPage(arg, wikiDir);
  if (fromWiki !== null) return fromWiki;
  throw new NotFoundError(`${arg} is neither a file nor a wiki page id`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isParamValue(v: unknown): v is ParamValue {
  return typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string';
}

async function readAlgorithmFile(file: string): Promise<AlgorithmInput> {
  const text = await readFile(file, 'utf8');
  let doc: unknown;
  try {
    doc = path.extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new InvalidInputError(`invalid algorithm file ${file}: ${(err as Error).message}`);
  }
  if (!isObject(doc)) throw new InvalidInputError(`invalid algorithm file ${file}: expected a mapping`);
  const notes: string[] = [];
  const id =
    typeof doc.id === 'string' && doc.id.trim() !== '' ? doc.id.trim() : path.basename(file, path.extname(file));
  const name = typeof doc.name === 'string' ? doc.name : id;

  let primitives: string[] | null = null;
  if (doc.primitives !== undefined && doc.primitives !== null) {
    if (!Array.isArray(doc.primitives) || !doc.primitives.every((p) => typeof p === 'string'))
      throw new InvalidInputError(`invalid algorithm file ${file}: primitives must be a list of strings`);
    primitives = doc.primitives.length > 0 ? (doc.primitives as string[]) : null;
  }

  const inputParams: ParamMap = {};
  const raw = doc.input_params ?? [];
  if (!Array.isArray(raw)) throw new InvalidInputError(`invalid algorithm file ${file}: input_params must be a list`);
  for (const item of raw) {
    if (typeof item === 'string') {
      const kv = parseAssignment(item);
      if (kv === null) notes.push(`input parameter '${item}' is not k=v; ignored`);
      else inputParams[kv[0]] = kv[1];
    } else if (isObject(item) && typeof item.name === 'string' && isParamValue(item.value)) {
      inputParams[item.name] = item.value;
    } else {
      notes.push(`input parameter ${JSON.stringify(item)} is not {name, value}; ignored`);
    }
  }

  const complexity = isObject(doc.complexity) ? doc.complexity : {};
  const count = complexity.qubit_count;
  const qubitCount = Number.isInteger(count) && (count as number) > 0 ? (count as number) : null;
  return { id, name, primitives, inputParams, qubitCount, notes };
}

/** `prim-quantum-fourier-transform` → `primitive_quantum_fourier_transform`. */
export function primitiveIdFromPageId(pageId: string): string {
  return `primitive_${pageId.slice('prim-'.length).replace(/-/g, '_')}`;
}

async function readWikiPage(pageId: string, wikiDir: string): Promise<AlgorithmInput | null> {
  const scan = await scanWiki(wikiDir);
  const page = scan.files.find((f) => f.page?.id === pageId)?.page;
  if (page === undefined || page === null) return null;
  const primitives: string[] = [];
  for (const link of page.links) {
    if (!link.target.startsWith('prim-')) continue;
    const id = primitiveIdFromPageId(link.target);
    if (!primitives.includes(id)) primitives.push(id);
  }
  return {
    id: page.id,
    name: page.title,
    primitives: primitives.length > 0 ? primitives : null,
    inputParams: {},
    qubitCount: null,
    notes: [],
  };
}
