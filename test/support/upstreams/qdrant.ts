import {
  sendAnswer,
  sendJson,
  startHttpDouble,
  type Answer,
  type DoubleOptions,
  type HttpDouble,
} from './http-double.js';
import { withLiveState } from './live-state.js';

export interface QdrantPoint {
  readonly id: string | number;
  readonly score: number;
  readonly payload: Record<string, unknown>;
}

/** A chunk of paper `0811.317<i>v3` as pksd's chunk index stores it (CONTRACT §11.7), with `text` and `score`. */
export const chunkPoint = (i: number, text: string, score: number): QdrantPoint => ({
  id: i,
  score,
  payload: {
    preprint_id: `0811.317${i}v3`,
    canonical: `0811.317${i}`,
    yymm: '0811',
    version: 3,
    title: `Paper ${i}`,
    authors: ['A. Author'],
    categories: ['quant-ph'],
    section_path: ['2 Methods'],
    chunk_index: i,
    chunk_text: text,
    md_object_key: `markdown/0811/0811.317${i}v3.md`,
    char_start: 100 * i,
    char_end: 100 * i + 99,
    image_refs: [],
  },
});

export interface QdrantDouble extends HttpDouble {
  /** The points a query answers with (the double ranks nothing: it returns them in order, up to `limit`). */
  points: QdrantPoint[];
  /** Answers the next query with this instead. */
  answerNextQuery(answer: Answer): void;
  /** `/healthz` answers this status (200 by default). */
  healthStatus: number;
  /** Bodies of the queries received, parsed. */
  readonly queries: Record<string, unknown>[];
}

/**
 * Qdrant's HTTP API as CONTRACT §12.6 uses it: `GET /healthz`, `POST /collections/<c>/points/query` →
 * `{"result":{"points":[…]},"status":"ok","time":…}`; the `api-key` header is recorded with each request.
 */
export async function startQdrantDouble(options: DoubleOptions = {}): Promise<QdrantDouble> {
  const state = { points: [] as QdrantPoint[], healthStatus: 200, next: null as Answer | null };
  const queries: Record<string, unknown>[] = [];
  const double = await startHttpDouble((req, res) => {
    const url = new URL(req.url, 'http://qdrant.test');
    if (req.method === 'GET' && url.pathname === '/healthz') {
      return sendAnswer(res, { status: state.healthStatus, body: 'healthz check passed' });
    }
    const query = /^\/collections\/([^/]+)\/points\/query$/.exec(url.pathname);
    if (req.method === 'POST' && query) {
      const body = JSON.parse(req.body.toString() || '{}') as Record<string, unknown>;
      queries.push(body);
      if (state.next) {
        const next = state.next;
        state.next = null;
        return sendAnswer(res, next);
      }
      const limit = typeof body['limit'] === 'number' ? body['limit'] : 10;
      return sendJson(res, 200, { result: { points: state.points.slice(0, limit) }, status: 'ok', time: 0.001 });
    }
    sendJson(res, 404, { status: { error: 'Not found' } });
  }, options);
  const live = withLiveState(
    {
      ...double,
      queries,
      answerNextQuery(answer: Answer) {
        state.next = answer;
      },
    },
    state,
    ['points', 'healthStatus'],
  );
  return live;
}
