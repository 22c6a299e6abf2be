/** Sample papers for the doubles, and small HTTP helpers for the paper-access tests. */
import { fakePdf, type ArxivDouble } from '../../../support/upstreams/arxiv.js';
import { until } from './clocks.js';

/** Registers a paper with versions 1..latest on the arXiv double; returns the PDF bytes by version. */
export function addPaper(arxiv: ArxivDouble, versionless: string, latest = 1, size = 0): Map<number, Buffer> {
  const pdfs = new Map<number, Buffer>();
  for (let v = 1; v <= latest; v++) pdfs.set(v, fakePdf(`${versionless}v${v}`, size));
  arxiv.papers.set(versionless, { latestVersion: latest, pdfs });
  return pdfs;
}

export type Body = Record<string, unknown> & {
  state?: string;
  phase?: string;
  detail?: string;
  kind?: string;
  pdf_ready?: boolean;
  md_ready?: boolean;
  queue?: Record<string, unknown>;
  fetch?: Record<string, unknown>;
  convert?: Record<string, unknown>;
};

export async function jsonOf(res: Response): Promise<Body> {
  return (await res.json()) as Body;
}

/** Polls `get(path)` until the JSON body satisfies `predicate`; returns that body. */
export async function pollJson(
  get: (path: string) => Promise<Response>,
  path: string,
  predicate: (body: Body) => boolean,
  what = `${path} to reach the expected state`,
): Promise<Body> {
  let last: Body = {};
  await until(
    what,
    async () => {
      last = await jsonOf(await get(path));
      return predicate(last);
    },
    30_000,
    20,
  );
  return last;
}
