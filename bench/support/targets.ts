/**
 * Issue 25's target table in one run. Each bench records the rows it measures with `recordTarget`; the bench
 * config's global setup empties the record at the start of a run and its teardown prints every row of the table
 * (a row no bench of the run measured says so), e.g. after
 * `npx vitest run --config bench/support/vitest.config.ts upload access wiki index cli scholarly-load`.
 * The record is a JSON-lines file because the benches run in forked workers, the table in the main process.
 */
import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

/** The rows of issue 25's table, in its order; `figure` is the issue's wording. */
export const TARGET_ROWS = {
  'upload-ratio': { figure: '100 MiB `upload-pdf` ÷ direct `PutObject` (median of 5)', target: '≥ 0.9' },
  'upload-rss': { figure: '100 MiB `upload-pdf`: server RSS growth', target: '< 32 MiB' },
  markdown: { figure: 'cache-hit `GET /markdown` ÷ SDK `GetObject`', target: '≥ 0.95' },
  pages: { figure: '`GET /api/pages/{id}` ÷ bare Fastify route', target: '≥ 0.95' },
  'wiki-cold': { figure: 'wiki of 10 000 pages: cold load (fresh process)', target: '< 0.5 s' },
  'wiki-p99': { figure: 'wiki of 10 000 pages: search p99', target: '< 1 ms' },
  'wiki-rss': { figure: 'wiki of 10 000 pages: RSS after load ÷ the text', target: '< 5 ×' },
  'index-start': { figure: '`pksd serve` start with a 2.6M-row index', target: '< 2 s' },
  'index-rss': { figure: '`pksd serve` with a 2.6M-row index: RSS', target: '< 200 MiB' },
  'index-flush': { figure: 'index flush of 2.6M rows: longest event-loop stall', target: '< 10 ms' },
  'wiki-search-cold': { figure: '`pks wiki search`, 10 000 pages, cold process, first run', target: '< 1 s' },
  'wiki-search-warm': { figure: '`pks wiki search`, 10 000 pages, wiki unchanged', target: '< 150 ms' },
  'contrib-pdf': { figure: '`pks contrib pdf` 100 MiB ÷ (`sha256sum` + `curl`)', target: '≥ 0.9' },
  'graph-load': { figure: 'graph load (Paper + CITES rows/s), fresh JVM', target: '≥ 60k' },
} as const satisfies Record<string, { figure: string; target: string }>;

export type TargetRow = keyof typeof TARGET_ROWS;

interface Recorded {
  row: TargetRow;
  measured: string;
  meets: boolean;
}

const RECORD = path.resolve(import.meta.dirname, '../../.cache/bench/targets.jsonl');

/** Records one measured row of the table (also printed by the bench itself, beside its other figures). */
export function recordTarget(row: TargetRow, measured: string, meets: boolean): void {
  mkdirSync(path.dirname(RECORD), { recursive: true });
  appendFileSync(RECORD, JSON.stringify({ row, measured, meets } satisfies Recorded) + '\n');
}

/** Global setup of the bench config: a run starts with an empty record and ends by printing the table. */
export default function setup(): () => void {
  rmSync(RECORD, { force: true });
  return () => {
    const table = targetTable();
    if (table !== undefined) console.log(`\n${table}`);
  };
}

/** The markdown table of the rows recorded in this run (the last record of a row wins), or undefined if none. */
export function targetTable(): string | undefined {
  let text: string;
  try {
    text = readFileSync(RECORD, 'utf8');
  } catch {
    return undefined;
  }
  const recorded = new Map<TargetRow, Recorded>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line) as Recorded;
    recorded.set(r.row, r);
  }
  const rows = Object.entries(TARGET_ROWS).map(([key, { figure, target }]) => {
    const r = recorded.get(key as TargetRow);
    const verdict = r === undefined ? 'not measured in this run' : r.meets ? 'meets' : 'MISSES';
    return `| ${figure} | ${r?.measured ?? '—'} | ${target} | ${verdict} |`;
  });
  return ['Issue 25 targets', '', '| Figure | Measured | Target | |', '|---|---|---|---|', ...rows].join('\n');
}
