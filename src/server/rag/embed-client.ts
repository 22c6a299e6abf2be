/**
 * The embed server of chunk search (CONTRACT §12.6): query embeddings (dense, optionally sparse) and reranking.
 */
const EMBED_TIMEOUT_MS = 30_000;

export interface SparseVector {
  readonly indices: number[];
  readonly values: number[];
}

export interface QueryEmbedding {
  readonly dense: number[];
  readonly sparse: SparseVector | null;
}

export class EmbedClient {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly token: string | null,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  private headers(): Record<string, string> {
    return { 'Content-Type': 'application/json', ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}) };
  }

  /** `GET /healthz` answered 2xx within `timeoutMs`. */
  async healthy(timeoutMs: number): Promise<boolean> {
    try {
      const res = await fetch(`${this.baseUrl}/healthz`, {
        headers: this.headers(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }

  /** `POST /embed?lane=query`; throws with the reason on any failure. */
  async embedQuery(query: string, sparse: boolean): Promise<QueryEmbedding> {
    const body = await this.post('/embed?lane=query', { texts: [query], return_sparse: sparse }, EMBED_TIMEOUT_MS);
    const dense = (body as { dense?: unknown }).dense;
    if (!Array.isArray(dense) || !Array.isArray(dense[0]))
      throw new Error('embed server answered without a dense vector');
    const sparseList = (body as { sparse?: unknown }).sparse;
    const first = Array.isArray(sparseList) ? (sparseList[0] as SparseVector | undefined) : undefined;
    const valid = first && Array.isArray(first.indices) && Array.isArray(first.values) && first.indices.length > 0;
    return {
      dense: dense[0] as number[],
      sparse: sparse && valid ? { indices: first.indices, values: first.values } : null,
    };
  }

  /** `POST /rerank?lane=query` → one score per passage. */
  async rerank(query: string, passages: readonly string[]): Promise<number[]> {
    const body = await this.post('/rerank?lane=query', { query, passages }, EMBED_TIMEOUT_MS);
    const scores = (body as { scores?: unknown }).scores;
    if (!Array.isArray(scores) || scores.length !== passages.length || scores.some((s) => typeof s !== 'number')) {
      throw new Error('rerank answered without one score per passage');
    }
    return scores as number[];
  }

  private async post(path: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new Error(`embed server unreachable: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) throw new Error(`embed server HTTP ${res.status}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error('embed server answered invalid JSON');
    }
  }
}
