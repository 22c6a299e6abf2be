/**
 * The brute-force reference of the bootstrap filter (CONTRACT §15.8), written straight from the contract: every
 * line parsed, no pre-checks, sets as plain `Set`s.
 */
import type { GeneratedSnapshot } from './snapshot-gen.js';

export interface ReferenceOptions {
  readonly pattern: RegExp;
  readonly inIndex: (versionless: string) => boolean;
  readonly references: boolean;
  readonly citers: boolean;
}

type Json = Record<string, unknown>;

const ARXIV =
  /^https?:\/\/(?:www\.|export\.)?arxiv\.org\/(?:abs|pdf)\/(\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]+(?:-[A-Za-z]+)*)?\/\d{7})(?:v\d+)?(?:\.pdf)?$/;

export const workNumber = (url: unknown): number | null =>
  typeof url === 'string' && /^https:\/\/openalex\.org\/W\d+$/.test(url) ? Number(url.slice(22)) : null;

export function arxivOf(work: Json): string | null {
  const locations = [
    ...((work['locations'] as Json[] | undefined) ?? []),
    work['primary_location'],
    work['best_oa_location'],
  ];
  for (const loc of locations as (Json | null | undefined)[]) {
    for (const url of [loc?.['landing_page_url'], loc?.['pdf_url']]) {
      const m = typeof url === 'string' ? ARXIV.exec(url) : null;
      if (m) return m[1]!;
    }
  }
  return null;
}

export function refsOf(work: Json): number[] {
  return ((work['referenced_works'] as unknown[] | undefined) ?? []).map(workNumber).filter((n) => n !== null);
}

function isSeed(work: Json, o: ReferenceOptions): boolean {
  const arxiv = arxivOf(work);
  if (arxiv === null) return false;
  if (arxiv.startsWith('quant-ph/') || o.inIndex(arxiv)) return true;
  for (const t of (work['topics'] as Json[] | undefined) ?? []) {
    const names = [
      t['display_name'],
      (t['subfield'] as Json)?.['display_name'],
      (t['field'] as Json)?.['display_name'],
    ];
    if (names.some((name) => typeof name === 'string' && o.pattern.test(name))) return true;
  }
  for (const c of (work['concepts'] as Json[] | undefined) ?? []) {
    if ((c['score'] as number) >= 0.3 && typeof c['display_name'] === 'string' && o.pattern.test(c['display_name']))
      return true;
  }
  return false;
}

/** The seeds and the kept work ids, by brute force. */
export function referenceFilter(
  snapshot: GeneratedSnapshot,
  o: ReferenceOptions,
): { seeds: Set<number>; kept: Set<number> } {
  const works = snapshot.parts.flatMap((p) => p.lines.map((l) => JSON.parse(l.toString('utf8')) as Json));
  const seeds = new Set<number>();
  const refs = new Set<number>();
  for (const w of works) {
    if (!isSeed(w, o)) continue;
    seeds.add(workNumber(w['id'])!);
    for (const r of refsOf(w)) refs.add(r);
  }
  const kept = new Set<number>();
  for (const w of works) {
    const id = workNumber(w['id'])!;
    if (seeds.has(id) || (o.references && refs.has(id)) || (o.citers && refsOf(w).some((r) => seeds.has(r)))) {
      kept.add(id);
    }
  }
  return { seeds, kept };
}
