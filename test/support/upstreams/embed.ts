import {
  sendAnswer,
  sendJson,
  startHttpDouble,
  type Answer,
  type DoubleOptions,
  type HttpDouble,
} from './http-double.js';

export interface EmbedDouble extends HttpDouble {
  /** `/healthz` answers this status (200 by default). */
  healthStatus: number;
  /** Whether `/embed` returns a sparse vector when asked (default true). */
  sparse: boolean;
  /** Scores `/rerank` gives: by default, longer passages first. */
  rerankScores: ((query: string, passages: string[]) => number[]) | null;
  /** Answers the next request of a route with this instead. */
  answerNext(route: 'embed' | 'rerank', answer: Answer): void;
}

/**
 * The embed server as CONTRACT §12.6 describes it: `GET /healthz`, `POST /embed?lane=query` →
 * `{dense:[[…]], sparse:[{indices,values}]|null, model}`, `POST /rerank?lane=query` → `{scores:[…], model}`.
 */
export async function startEmbedDouble(options: DoubleOptions = {}): Promise<EmbedDouble> {
  const state = {
    healthStatus: 200,
    sparse: true,
    rerankScores: null as EmbedDouble['rerankScores'],
    next: { embed: null as Answer | null, rerank: null as Answer | null },
  };
  const double = await startHttpDouble((req, res) => {
    const url = new URL(req.url, 'http://embed.test');
    if (req.method === 'GET' && url.pathname === '/healthz')
      return sendAnswer(res, { status: state.healthStatus, body: 'ok' });
    const route = url.pathname === '/embed' ? 'embed' : url.pathname === '/rerank' ? 'rerank' : null;
    if (req.method !== 'POST' || route === null) return sendJson(res, 404, { detail: 'not found' });
    const queued = state.next[route];
    if (queued) {
      state.next[route] = null;
      return sendAnswer(res, queued);
    }
    const body = JSON.parse(req.body.toString() || '{}') as Record<string, unknown>;
    if (route === 'embed') {
      const texts = (body['texts'] as string[]) ?? [];
      const wantSparse = body['return_sparse'] === true && state.sparse;
      return sendJson(res, 200, {
        dense: texts.map((t) => [t.length / 100, 0.5, 0.25]),
        sparse: wantSparse ? texts.map(() => ({ indices: [3, 17], values: [0.8, 0.2] })) : null,
        model: 'double-embed',
      });
    }
    const passages = (body['passages'] as string[]) ?? [];
    const scores = state.rerankScores
      ? state.rerankScores(String(body['query']), passages)
      : passages.map((p) => p.length / 1000);
    return sendJson(res, 200, { scores, model: 'double-rerank' });
  }, options);
  return {
    ...double,
    get healthStatus() {
      return state.healthStatus;
    },
    set healthStatus(v: number) {
      state.healthStatus = v;
    },
    get sparse() {
      return state.sparse;
    },
    set sparse(v: boolean) {
      state.sparse = v;
    },
    get rerankScores() {
      return state.rerankScores;
    },
    set rerankScores(v) {
      state.rerankScores = v;
    },
    answerNext(route, answer) {
      state.next[route] = answer;
    },
  };
}
