/**
 * The batch half of the MinerU cloud API (CONTRACT §12.4, "client only" rows) that `contrib parser` uses in
 * queue mode: `POST /api/v4/extract/task/batch` and `GET /api/v4/extract-results/batch/{id}`, with result zips
 * under `/zips/`. Tests move entries through their states by editing `batches`. (The shared double in
 * test/support/upstreams/mineru.ts speaks the single-task half.)
 */
import { randomUUID } from 'node:crypto';
import { sendJson, startHttpDouble, type HttpDouble } from '../../support/upstreams/http-double.js';

export interface BatchEntry {
  readonly data_id: string;
  readonly url: string;
  state: string;
  err_msg: string;
  zip: Buffer | null;
}

export interface Batch {
  readonly batch_id: string;
  readonly token: string;
  readonly request: Record<string, unknown>;
  readonly entries: BatchEntry[];
}

export interface MineruBatchDouble extends HttpDouble {
  readonly batches: Batch[];
  readonly tokens: Set<string>;
  /** Envelopes the next batch creations answer with instead of success, in order. */
  readonly createFailures: { code: number | string; msg: string; status?: number }[];
}

export async function startMineruBatchDouble(): Promise<MineruBatchDouble> {
  const batches: Batch[] = [];
  const tokens = new Set<string>();
  const createFailures: MineruBatchDouble['createFailures'] = [];
  let base = '';
  const double = await startHttpDouble((req, res) => {
    const url = new URL(req.url, 'http://mineru.test');
    const zip = /^\/zips\/([^/]+)\/([^/]+)\.zip$/.exec(url.pathname);
    if (req.method === 'GET' && zip) {
      const entry = batches.find((b) => b.batch_id === zip[1])?.entries.find((e) => e.data_id === zip[2]);
      if (!entry?.zip) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': entry.zip.length });
      return void res.end(entry.zip);
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !tokens.has(token)) return sendJson(res, 200, { code: 'A0202', msg: 'token invalid', data: null });
    if (req.method === 'POST' && url.pathname === '/api/v4/extract/task/batch') {
      const failure = createFailures.shift();
      if (failure) return sendJson(res, failure.status ?? 200, { code: failure.code, msg: failure.msg, data: null });
      const request = JSON.parse(req.body.toString()) as { files: { url: string; data_id: string }[] };
      const batch: Batch = {
        batch_id: randomUUID(),
        token,
        request,
        entries: request.files.map((f) => ({
          data_id: f.data_id,
          url: f.url,
          state: 'waiting-file',
          err_msg: '',
          zip: null,
        })),
      };
      batches.push(batch);
      return sendJson(res, 200, { code: 0, msg: 'ok', data: { batch_id: batch.batch_id } });
    }
    const get = /^\/api\/v4\/extract-results\/batch\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && get) {
      const batch = batches.find((b) => b.batch_id === get[1]);
      if (!batch) return sendJson(res, 200, { code: -60012, msg: 'task not found', data: null });
      return sendJson(res, 200, {
        code: 0,
        msg: 'ok',
        data: {
          batch_id: batch.batch_id,
          extract_result: batch.entries.map((e) => ({
            file_name: `${e.data_id}.pdf`,
            data_id: e.data_id,
            state: e.state,
            full_zip_url: e.state === 'done' ? `${base}/zips/${batch.batch_id}/${e.data_id}.zip` : '',
            err_msg: e.err_msg,
          })),
        },
      });
    }
    sendJson(res, 404, { code: -500, msg: 'no such endpoint', data: null });
  });
  base = double.baseUrl;
  return { ...double, batches, tokens, createFailures };
}
