import { randomUUID } from 'node:crypto';
import { sendJson, startHttpDouble, type HttpDouble } from './http-double.js';

export type TaskState = 'waiting-file' | 'pending' | 'running' | 'converting' | 'done' | 'failed';

export interface MineruTask {
  readonly task_id: string;
  readonly request: Record<string, unknown>;
  state: TaskState;
  err_msg: string;
  /** The result zip served at `full_zip_url` once `done`. */
  zip: Buffer | null;
}

export interface MineruDouble extends HttpDouble {
  readonly tasks: Map<string, MineruTask>;
  /** Valid bearer tokens; any other token gets code `A0202`. */
  readonly tokens: Set<string>;
  /** The envelope the next task creation answers with instead of success (e.g. `{code: -60018, msg}`). */
  failNextCreate(envelope: { code: number | string; msg: string }, httpStatus?: number): void;
}

/**
 * The MinerU cloud API as CONTRACT §12.4 describes it: `POST /api/v4/extract/task` → `{code:0,data:{task_id}}`,
 * `GET /api/v4/extract/task/{id}` → state and `full_zip_url`, `GET /zips/{id}.zip` (no auth) → the result zip.
 * Tests move tasks through their states by editing `tasks`.
 */
export async function startMineruDouble(): Promise<MineruDouble> {
  const tasks = new Map<string, MineruTask>();
  const tokens = new Set<string>();
  let nextFailure: { envelope: { code: number | string; msg: string }; status: number } | null = null;
  let base = '';
  const double = await startHttpDouble((req, res) => {
    const url = new URL(req.url, 'http://mineru.test');
    const zip = /^\/zips\/([^/]+)\.zip$/.exec(url.pathname);
    if (req.method === 'GET' && zip) {
      const bytes = tasks.get(zip[1]!)?.zip;
      if (!bytes) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': bytes.length });
      return void res.end(bytes);
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !tokens.has(token)) return sendJson(res, 200, { code: 'A0202', msg: 'token invalid', data: null });
    if (req.method === 'POST' && url.pathname === '/api/v4/extract/task') {
      if (nextFailure) {
        const { envelope, status } = nextFailure;
        nextFailure = null;
        return sendJson(res, status, { ...envelope, data: null });
      }
      const task: MineruTask = {
        task_id: randomUUID(),
        request: JSON.parse(req.body.toString() || '{}'),
        state: 'pending',
        err_msg: '',
        zip: null,
      };
      tasks.set(task.task_id, task);
      return sendJson(res, 200, { code: 0, msg: 'ok', data: { task_id: task.task_id } });
    }
    const get = /^\/api\/v4\/extract\/task\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && get) {
      const task = tasks.get(get[1]!);
      if (!task) return sendJson(res, 200, { code: -60012, msg: 'task not found', data: null });
      return sendJson(res, 200, {
        code: 0,
        msg: 'ok',
        data: {
          task_id: task.task_id,
          state: task.state,
          full_zip_url: task.state === 'done' ? `${base}/zips/${task.task_id}.zip` : '',
          err_msg: task.err_msg,
        },
      });
    }
    sendJson(res, 404, { code: -500, msg: 'no such endpoint', data: null });
  });
  base = double.baseUrl;
  return {
    ...double,
    tasks,
    tokens,
    failNextCreate(envelope, httpStatus = 200) {
      nextFailure = { envelope, status: httpStatus };
    },
  };
}
