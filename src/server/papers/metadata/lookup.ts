/**
 * Reference lookup (CONTRACT §18.2 `GET /api/papers/lookup?ids=arxiv:…,doi:…,openalex:…`): each ref answered from
 * the graph and the metadata cache; `doi:`/`openalex:` refs neither knows are fetched from OpenAlex (§12.2), at
 * most `OPENALEX_MAX_PER_LOOKUP` per lookup (the rest unresolved). Results in request order, one per ref; a ref of
 * an unknown namespace, or one that does not parse, is echoed unresolved. Upstream failures are unresolved refs,
 * never errors. Like DOI resolutions (issue 20), the OpenAlex requests of one caller are limited per minute
 * (`LOOKUP_FETCH_RULE`): past it, misses stay unresolved.
 */
import type { Logger } from 'pino';
import { FixedWindowLimiter, type RateRule } from '../../auth/rate-limit.js';
import type { LookupItem } from '../../../shared/api/registry.js';
import { normaliseDoi } from '../../../shared/doi.js';
import { parsePreprintId } from '../../../shared/ids.js';
import type { OpenAlexClient, OpenAlexWork } from '../../access/openalex-client.js';
import type { GraphPaper } from '../../graph/paper-metadata.js';
import type { PaperIndex } from '../paper-index.js';
import type { PaperMetadataService } from './service.js';

/** OpenAlex requests one lookup may make. */
export const OPENALEX_MAX_PER_LOOKUP = 20;
/** OpenAlex requests of one lookup in flight at once. */
const OPENALEX_PARALLEL = 4;
/** OpenAlex requests of one caller's lookups per minute: a loop over lookups cannot flood OpenAlex. */
export const LOOKUP_FETCH_RULE: RateRule = { name: 'lookup refs fetched from OpenAlex', limit: 60 };

type Ref =
  | { readonly kind: 'arxiv'; readonly id: string }
  | { readonly kind: 'doi'; readonly doi: string }
  | { readonly kind: 'openalex'; readonly openalexId: string }
  | { readonly kind: 'invalid' };

/** What is known of a ref's work: its paper (versionless id) when it has one, and its metadata when known. */
interface Known {
  readonly preprintId: string | null;
  readonly title: string | null;
  readonly authors: readonly string[];
  readonly published: string | null;
}

const OPENALEX_ID = /^(?:https?:\/\/openalex\.org\/)?(W\d+)$/i;

function parseRef(ref: string): Ref {
  const colon = ref.indexOf(':');
  const namespace = colon < 0 ? '' : ref.slice(0, colon).trim().toLowerCase();
  const value = ref.slice(colon + 1).trim();
  if (namespace === 'arxiv') {
    const id = parsePreprintId(value);
    return id ? { kind: 'arxiv', id: id.versionless } : { kind: 'invalid' };
  }
  if (namespace === 'doi') {
    const doi = normaliseDoi(value);
    return doi.ok ? { kind: 'doi', doi: doi.doi } : { kind: 'invalid' };
  }
  if (namespace === 'openalex') {
    const m = OPENALEX_ID.exec(value);
    return m ? { kind: 'openalex', openalexId: `W${m[1]!.slice(1)}` } : { kind: 'invalid' };
  }
  return { kind: 'invalid' };
}

const keyOf = (ref: Ref): string =>
  ref.kind === 'arxiv'
    ? `arxiv:${ref.id}`
    : ref.kind === 'doi'
      ? `doi:${ref.doi}`
      : ref.kind === 'openalex'
        ? `openalex:${ref.openalexId}`
        : '';

export interface PaperLookupDeps {
  readonly index: PaperIndex;
  /** `null`: answers come from the index alone. */
  readonly metadata: PaperMetadataService | null;
  /** `null` when `SVC_SCHOLARLY_MAILTO` is unset: nothing is fetched from OpenAlex. */
  readonly openalex: OpenAlexClient | null;
  readonly logger: Logger;
  /** Epoch ms (the per-caller window of `LOOKUP_FETCH_RULE`). */
  readonly now?: () => number;
}

export class PaperLookup {
  private readonly fetches: FixedWindowLimiter;

  constructor(private readonly deps: PaperLookupDeps) {
    this.fetches = new FixedWindowLimiter(deps.now ?? Date.now);
  }

  /** `caller` keys the per-minute limit on OpenAlex requests (a user, the system PAT, a client address). */
  async lookup(refs: readonly string[], caller: string): Promise<LookupItem[]> {
    const parsed = refs.map(parseRef);
    const known = await this.knownLocally(parsed);
    await this.fetchMisses(parsed, known, caller);
    return refs.map((ref, i) => this.item(ref, known.get(keyOf(parsed[i]!)) ?? null));
  }

  /** What the graph and the metadata cache (and the index, for DOIs) know, by ref key. */
  private async knownLocally(refs: readonly Ref[]): Promise<Map<string, Known>> {
    const ids = new Set<string>();
    const dois = new Set<string>();
    const openalexIds = new Set<string>();
    for (const r of refs) {
      if (r.kind === 'arxiv') ids.add(r.id);
      else if (r.kind === 'doi') dois.add(r.doi);
      else if (r.kind === 'openalex') openalexIds.add(r.openalexId);
    }
    const { metadata } = this.deps;
    const nodes = metadata
      ? await metadata.graphPapers({ ids: [...ids], dois: [...dois], openalexIds: [...openalexIds] })
      : [];
    const known = new Map<string, Known>();
    /** A paper's node with a title, completed by its cached row; else the row; else the node as it is. */
    const knownOf = async (preprintId: string, node: GraphPaper | undefined): Promise<Known | null> => {
      const row = (await metadata?.cached(preprintId))?.metadata;
      if (node?.title || (node && !row)) {
        return {
          preprintId,
          title: node.title,
          authors: node.authors.length > 0 ? node.authors : (row?.authors ?? []),
          published: node.publication_date ?? row?.published ?? null,
        };
      }
      return row ? { preprintId, title: row.title, authors: row.authors, published: row.published } : null;
    };
    for (const id of ids) {
      const found = await knownOf(
        id,
        nodes.find((n) => n.preprint_id === id),
      );
      const hosted = this.deps.index.versionsOf(id).length > 0;
      if (found || hosted)
        known.set(`arxiv:${id}`, found ?? { preprintId: id, title: null, authors: [], published: null });
    }
    for (const doi of dois) {
      const node = nodes.find((n) => n.doi === doi);
      const paper = node?.preprint_id ?? (await metadata?.cachedByDoi(doi))?.preprintId;
      const indexed = this.deps.index.rowsByDoi(doi)[0]?.preprint_id;
      const found = paper ? await knownOf(paper, node) : indexed ? this.indexedKnown(indexed) : null;
      if (found) known.set(`doi:${doi}`, found);
    }
    for (const oa of openalexIds) {
      const node = nodes.find((n) => n.openalex_id === oa);
      const paper = node?.preprint_id ?? (await metadata?.cachedByOpenAlexId(oa))?.preprintId;
      const found = paper ? await knownOf(paper, node) : null;
      if (found) known.set(`openalex:${oa}`, found);
    }
    return known;
  }

  /** A paper the index knows by DOI: its id, and its title/authors columns when set (§4.1). */
  private indexedKnown(preprintId: string): Known | null {
    const id = parsePreprintId(preprintId);
    if (!id) return null;
    const row = this.deps.index.get(preprintId);
    return {
      preprintId: id.versionless,
      title: row?.title ?? null,
      authors: row?.authors ? row.authors.split('; ') : [],
      published: row?.publication_date ?? null,
    };
  }

  /**
   * Fetches unknown `doi:`/`openalex:` refs from OpenAlex: each distinct ref once, at most the per-lookup cap and
   * what the caller's minute has left.
   */
  private async fetchMisses(refs: readonly Ref[], known: Map<string, Known>, caller: string): Promise<void> {
    const { openalex } = this.deps;
    if (openalex === null) return;
    const misses = new Map<string, Ref>();
    for (const r of refs) {
      if ((r.kind === 'doi' || r.kind === 'openalex') && !known.has(keyOf(r))) misses.set(keyOf(r), r);
    }
    const queue = [...misses.entries()].slice(0, OPENALEX_MAX_PER_LOOKUP);
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [key, ref] = next;
        try {
          this.fetches.hit(LOOKUP_FETCH_RULE, caller);
        } catch {
          this.deps.logger.debug({ caller }, 'lookup: OpenAlex request limit reached; misses stay unresolved');
          queue.length = 0;
          return;
        }
        const work = await this.fetchWork(openalex, ref);
        if (work) known.set(key, work);
      }
    };
    await Promise.all(Array.from({ length: OPENALEX_PARALLEL }, worker));
  }

  private async fetchWork(openalex: OpenAlexClient, ref: Ref): Promise<Known | null> {
    let work: OpenAlexWork | null;
    try {
      work = await openalex.work(
        ref.kind === 'doi' ? { doi: ref.doi } : { openalexId: (ref as { openalexId: string }).openalexId },
      );
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message, ref: keyOf(ref) }, 'lookup: OpenAlex request failed');
      return null;
    }
    if (work === null || work.title === null) return null;
    const preprintId = work.arxivId ? (parsePreprintId(work.arxivId)?.versionless ?? null) : null;
    if (preprintId) {
      await this.deps.metadata?.remember({
        preprintId,
        metadata: {
          title: work.title,
          authors: [...work.authors],
          abstract: '',
          published: work.publicationDate ?? '',
          doi: work.doi,
          openalex_id: work.openalexId,
          cited_by_count: work.citedByCount,
          source: 'openalex',
        },
      });
    }
    return { preprintId, title: work.title, authors: work.authors, published: work.publicationDate };
  }

  private item(ref: string, known: Known | null): LookupItem {
    if (known === null) return { ref, resolved: false, hosted: false, has_md: false };
    const rows = known.preprintId ? this.deps.index.versionsOf(known.preprintId) : [];
    const hosted = rows.length > 0;
    const year = /^(\d{4})/.exec(known.published ?? '')?.[1];
    return {
      ref,
      resolved: true,
      hosted,
      has_md: rows.some((r) => r.has_md),
      ...(hosted ? { preprint_id: known.preprintId! } : {}),
      ...(known.title ? { title: known.title } : {}),
      ...(known.authors.length > 0 ? { authors: [...known.authors] } : {}),
      ...(year ? { year: Number(year) } : {}),
    };
  }
}
