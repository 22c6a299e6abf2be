/**
 * Chunk search (CONTRACT §11.7): embed the query, query Qdrant with named vectors `dense` and `sparse`
 * (reciprocal-rank fusion of both prefetches when a sparse vector came back, dense only otherwise), optionally
 * rerank, truncate to `top_k`. Qdrant is spoken to through its official client.
 */
import { QdrantClient } from '@qdrant/js-client-rest';
import { UpstreamError } from '../../shared/domain-errors.js';
import type { EmbedClient, QueryEmbedding } from './embed-client.js';

const HEALTH_TIMEOUT_MS = 3_000;
const QUERY_TIMEOUT_S = 30;

export interface SearchInput {
  readonly query: string;
  readonly top_k: number;
  readonly rerank: boolean;
  readonly rerank_pool: number;
  readonly use_sparse: boolean;
  readonly filters: Readonly<Record<string, string | number | boolean>>;
}

export interface SearchHit {
  preprint_id: string | null;
  canonical: string | null;
  yymm: string | null;
  version: number | null;
  title: string | null;
  authors: string[];
  categories: string[];
  section_path: string[];
  chunk_index: number | null;
  snippet: string;
  score: number;
  md_object_key: string | null;
  char_start: number | null;
  char_end: number | null;
  image_refs: string[];
}

export interface SearchResult {
  readonly query: string;
  readonly took_s: number;
  readonly reranked: boolean;
  readonly results: SearchHit[];
}

export type Health = 'ok' | 'degraded' | 'down';

interface Point {
  readonly score: number;
  readonly payload?: Record<string, unknown> | null;
}

const fail = (upstream: 'embed' | 'vectordb', err: unknown) =>
  new UpstreamError(upstream, `search upstream error: ${(err as Error).message}`, { cause: err });

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];

/** A point's payload as a hit (payload keys of §12.6; `chunk_text` becomes `snippet`). */
function hit(point: Point): SearchHit {
  const p = point.payload ?? {};
  return {
    preprint_id: str(p['preprint_id']),
    canonical: str(p['canonical']),
    yymm: str(p['yymm']),
    version: int(p['version']),
    title: str(p['title']),
    authors: strs(p['authors']),
    categories: strs(p['categories']),
    section_path: strs(p['section_path']),
    chunk_index: int(p['chunk_index']),
    snippet: str(p['chunk_text']) ?? '',
    score: point.score,
    md_object_key: str(p['md_object_key']),
    char_start: int(p['char_start']),
    char_end: int(p['char_end']),
    image_refs: strs(p['image_refs']),
  };
}

export class ChunkSearch {
  private readonly qdrant: QdrantClient;

  constructor(
    private readonly vectordbUrl: string,
    private readonly vectordbApiKey: string | null,
    private readonly collection: string,
    private readonly embed: EmbedClient,
  ) {
    this.qdrant = new QdrantClient({
      url: vectordbUrl,
      ...(vectordbApiKey ? { apiKey: vectordbApiKey } : {}),
      timeout: QUERY_TIMEOUT_S * 1000,
      checkCompatibility: false,
    });
  }

  /** `ok` when both upstreams answer `/healthz` with 2xx within 3 s, `degraded` when one does, else `down`. */
  async health(): Promise<Health> {
    const [vectordb, embed] = await Promise.all([this.vectordbHealthy(), this.embed.healthy(HEALTH_TIMEOUT_MS)]);
    return vectordb && embed ? 'ok' : vectordb || embed ? 'degraded' : 'down';
  }

  private async vectordbHealthy(): Promise<boolean> {
    try {
      const res = await fetch(`${this.vectordbUrl.replace(/\/+$/, '')}/healthz`, {
        headers: this.vectordbApiKey ? { 'api-key': this.vectordbApiKey } : {},
        signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
      });
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }

  async search(input: SearchInput): Promise<SearchResult> {
    const started = performance.now();
    let embedding: QueryEmbedding;
    try {
      embedding = await this.embed.embedQuery(input.query, input.use_sparse);
    } catch (err) {
      throw fail('embed', err);
    }
    const limit = input.rerank ? Math.max(input.rerank_pool, input.top_k) : input.top_k;
    const entries = Object.entries(input.filters);
    const filter =
      entries.length > 0 ? { must: entries.map(([key, value]) => ({ key, match: { value } })) } : undefined;
    let points: Point[];
    try {
      const request = embedding.sparse
        ? {
            prefetch: [
              { query: embedding.dense, using: 'dense', limit },
              { query: embedding.sparse, using: 'sparse', limit },
            ],
            query: { fusion: 'rrf' as const },
            limit,
            with_payload: true,
            ...(filter ? { filter } : {}),
          }
        : { query: embedding.dense, using: 'dense', limit, with_payload: true, ...(filter ? { filter } : {}) };
      points = (await this.qdrant.query(this.collection, request)).points as Point[];
    } catch (err) {
      throw fail('vectordb', err);
    }
    let hits = points.map(hit);
    let reranked = false;
    if (input.rerank && hits.length > 0) {
      try {
        const scores = await this.embed.rerank(
          input.query,
          hits.map((h) => h.snippet),
        );
        hits = hits.map((h, i) => ({ ...h, score: scores[i]! })).sort((a, b) => b.score - a.score);
        reranked = true;
      } catch {
        // Reranking is an improvement, not a requirement: keep the fusion order.
      }
    }
    return {
      query: input.query,
      took_s: Math.round(performance.now() - started) / 1000,
      reranked,
      results: hits.slice(0, input.top_k),
    };
  }
}
