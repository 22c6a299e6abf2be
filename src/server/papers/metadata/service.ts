/**
 * Per-preprint metadata (CONTRACT §18.1), version-independent: the graph's `Paper` node when it has a title, else
 * the metadata cache, else — with paper access on — fetched once from the arXiv API and cached with no expiry. A
 * miss that cannot be fetched is `null`, never an error: every failure (graph, cache, upstream) is logged and read
 * as "not known". Concurrent requests for one paper share one upstream call. Metadata that arrives gives a `Paper`
 * node without a title its title and authors.
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { PaperMetadata } from '../../../shared/api/registry.js';
import type { GraphClient } from '../../graph/driver.js';
import {
  readGraphPapers,
  setGraphPaperTitle,
  type GraphPaper,
  type GraphPaperQuery,
} from '../../graph/paper-metadata.js';
import type { ArxivApiClient } from './arxiv-api.js';
import type { CachedPaper, MetadataCache } from './metadata-cache.js';

export interface PaperMetadataDeps {
  readonly cache: MetadataCache;
  /** `null` when the graph is not configured. */
  readonly graph: GraphClient | null;
  /** `null` when paper access is off: misses are not fetched. */
  readonly arxiv: ArxivApiClient | null;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** A reader's longest wait for an arXiv fetch (default 10 s); tests shorten it. */
  readonly readWaitMs?: number;
  /** Told every time a paper's metadata is read as known (the index takes its title from here). */
  readonly onKnown?: (versionless: string, metadata: PaperMetadata) => void;
}

/**
 * A paper the arXiv API did not give (unknown, or a failure) is not asked for again for a minute: repeated reads of
 * it must not spend the preprint token bucket that PDF downloads share.
 */
const MISS_TTL_MS = 60_000;

/** How long a reader waits for an arXiv fetch before answering without it (§18.1: a miss is `null`, never a hang). */
const READ_WAIT_MS = 10_000;
const MISS_MEMORY = 1024;

const DATE = /^\d{4}-\d{2}-\d{2}/;

/** A node's metadata; what the node lacks (the graph holds no abstract) comes from the cached row. */
function fromGraph(node: GraphPaper & { readonly title: string }, cached: CachedPaper | null): PaperMetadata {
  const row = cached?.metadata;
  return {
    title: node.title,
    authors: [...node.authors],
    abstract: row?.abstract ?? '',
    published: DATE.exec(node.publication_date ?? '')?.[0] ?? row?.published ?? '',
    doi: node.doi ?? row?.doi ?? null,
    openalex_id: node.openalex_id ?? row?.openalex_id ?? null,
    cited_by_count: node.cited_by_count ?? row?.cited_by_count ?? null,
    source: 'graph',
  };
}

export class PaperMetadataService {
  private readonly inFlight = new Map<string, Promise<PaperMetadata | null>>();
  private readonly misses = new LRUCache<string, true>({ max: MISS_MEMORY, ttl: MISS_TTL_MS });
  private readonly now: () => Date;

  constructor(private readonly deps: PaperMetadataDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  get graphConfigured(): boolean {
    return this.deps.graph !== null;
  }

  /** The metadata of a paper (versionless id), in the §18.1 order; `null` when unknown. Never throws. */
  async get(versionless: string): Promise<PaperMetadata | null> {
    const [node] = await this.graphPapers({ ids: [versionless] });
    const cached = await this.cached(versionless);
    if (node?.title) {
      const metadata = fromGraph({ ...node, title: node.title }, cached);
      this.deps.onKnown?.(versionless, metadata);
      return metadata;
    }
    // A row from OpenAlex (a lookup) has no abstract: arXiv's answer completes it when it can be fetched.
    const wanted = this.deps.arxiv !== null && cached?.metadata.source !== 'arxiv' && !this.misses.has(versionless);
    const metadata =
      (wanted ? await this.waitAtMost(this.fetchOnce(versionless, cached)) : null) ?? cached?.metadata ?? null;
    if (node && metadata) this.titleNode(versionless, metadata);
    if (metadata) this.deps.onKnown?.(versionless, metadata);
    return metadata;
  }

  /**
   * Fills the cache for a paper in the background (uploads and paper-access jobs call it): errors are logged,
   * never thrown.
   */
  fill(versionless: string): void {
    this.get(versionless).catch((err: unknown) =>
      this.deps.logger.warn({ err: (err as Error).message, preprint_id: versionless }, 'metadata fill failed'),
    );
  }

  /** The cached row of a paper, or `null` (a cache failure is logged and reads as a miss). */
  cached(versionless: string): Promise<CachedPaper | null> {
    return this.fromCache(() => this.deps.cache.get(versionless));
  }

  cachedByDoi(doi: string): Promise<CachedPaper | null> {
    return this.fromCache(() => this.deps.cache.findByDoi(doi));
  }

  cachedByOpenAlexId(openalexId: string): Promise<CachedPaper | null> {
    return this.fromCache(() => this.deps.cache.findByOpenAlexId(openalexId));
  }

  /** `Paper` nodes by id, DOI or OpenAlex id; `[]` without a graph or when it fails (logged). */
  async graphPapers(query: GraphPaperQuery): Promise<GraphPaper[]> {
    const { graph } = this.deps;
    if (graph === null) return [];
    try {
      return await readGraphPapers(graph, query);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'paper metadata: graph read failed; using the cache');
      return [];
    }
  }

  /**
   * Caches metadata that arrived from OpenAlex (a lookup) and titles the paper's node. A row from arXiv stays: it
   * only takes OpenAlex's id, citation count and (when it has none) DOI.
   */
  async remember(paper: CachedPaper): Promise<void> {
    const known = (await this.cached(paper.preprintId))?.metadata;
    const row: CachedPaper =
      known?.source === 'arxiv'
        ? {
            preprintId: paper.preprintId,
            metadata: {
              ...known,
              doi: known.doi ?? paper.metadata.doi,
              openalex_id: paper.metadata.openalex_id,
              cited_by_count: paper.metadata.cited_by_count,
            },
          }
        : paper;
    await this.store(row);
    this.titleNode(row.preprintId, row.metadata);
  }

  private async fromCache(read: () => Promise<CachedPaper | null>): Promise<CachedPaper | null> {
    try {
      return await read();
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'paper metadata cache read failed');
      return null;
    }
  }

  private async store(paper: CachedPaper): Promise<void> {
    try {
      await this.deps.cache.put(paper, this.now());
    } catch (err) {
      this.deps.logger.warn(
        { err: (err as Error).message, preprint_id: paper.preprintId },
        'metadata cache write failed',
      );
    }
  }

  /**
   * A reader waits at most `READ_WAIT_MS` for a fetch (it may queue behind PDF downloads on the shared rate limit):
   * past that it answers without, and the fetch goes on and fills the cache for the next read.
   */
  private async waitAtMost(fetch: Promise<PaperMetadata | null>): Promise<PaperMetadata | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.deps.readWaitMs ?? READ_WAIT_MS);
      timer.unref();
    });
    try {
      return await Promise.race([fetch, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One arXiv API call per paper at a time: concurrent callers share it. */
  private fetchOnce(versionless: string, cached: CachedPaper | null): Promise<PaperMetadata | null> {
    let pending = this.inFlight.get(versionless);
    if (!pending) {
      pending = this.fetchAndCache(versionless, cached).finally(() => this.inFlight.delete(versionless));
      this.inFlight.set(versionless, pending);
    }
    return pending;
  }

  private async fetchAndCache(versionless: string, cached: CachedPaper | null): Promise<PaperMetadata | null> {
    let fetched;
    try {
      fetched = await this.deps.arxiv!.metadata(versionless);
    } catch (err) {
      this.deps.logger.warn(
        { err: (err as Error).message, preprint_id: versionless },
        'arXiv API metadata fetch failed',
      );
      this.misses.set(versionless, true);
      return null;
    }
    if (fetched === null) {
      this.deps.logger.debug({ preprint_id: versionless }, 'the arXiv API does not know the paper');
      this.misses.set(versionless, true);
      return null;
    }
    const known = cached?.metadata;
    const metadata = {
      ...fetched,
      doi: fetched.doi ?? known?.doi ?? null,
      openalex_id: known?.openalex_id ?? null,
      cited_by_count: known?.cited_by_count ?? null,
    };
    await this.store({ preprintId: versionless, metadata });
    this.deps.onKnown?.(versionless, metadata);
    return metadata;
  }

  /** Gives the paper's `Paper` node the title and authors when it has none (in the background; failures logged). */
  private titleNode(versionless: string, metadata: PaperMetadata): void {
    const { graph, logger } = this.deps;
    if (graph === null || metadata.title === '') return;
    setGraphPaperTitle(graph, versionless, metadata.title, metadata.authors).catch((err: unknown) =>
      logger.warn({ err: (err as Error).message, preprint_id: versionless }, 'setting the Paper title failed'),
    );
  }
}
