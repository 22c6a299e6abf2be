import { randomUUID } from 'node:crypto';
import { makeZip } from '../../server/papers/zip.js';
import { makePng } from '../../web/support/png.js';
import type { ServerResponse } from 'node:http';
import {
  Gate,
  sendAnswer,
  sendJson,
  startHttpDouble,
  type Answer,
  type HttpDouble,
  type DoubleOptions,
} from './http-double.js';

export type TaskState = 'waiting-file' | 'pending' | 'running' | 'converting' | 'done' | 'failed';

/** How a task behaves: the states its polls report, one per poll (the last one sticks), and its result. */
export interface TaskScript {
  readonly states: readonly TaskState[];
  /** `err_msg` once the task reports `failed`. */
  readonly errMsg?: string;
  /** The result zip; default: a bundle with `full.md` naming the task's `data_id` and one image. */
  readonly zip?: Buffer;
  /** `done` without a `full_zip_url`. */
  readonly noZipUrl?: boolean;
  /** The zip host answers this instead of the zip. */
  readonly zipAnswer?: Answer;
  /** Report `extract_progress` pages while running. */
  readonly totalPages?: number;
}

export interface MineruTask {
  readonly task_id: string;
  readonly token: string;
  readonly request: Record<string, unknown>;
  readonly script: TaskScript;
  state: TaskState;
  /** Polls answered so far. */
  polls: number;
  err_msg: string;
  /** The result zip served at `full_zip_url` once `done`. */
  zip: Buffer | null;
}

/** One file of a batch (the client's queue mode); tests move it along by setting `state`, `err_msg` and `zip`. */
export interface BatchEntry {
  readonly data_id: string;
  readonly url: string;
  state: TaskState;
  err_msg: string;
  /** Served at the entry's `full_zip_url` once `done`. */
  zip: Buffer | null;
}

export interface MineruBatch {
  readonly batch_id: string;
  readonly token: string;
  readonly request: Record<string, unknown>;
  readonly entries: BatchEntry[];
}

export interface MineruDouble extends HttpDouble {
  readonly tasks: Map<string, MineruTask>;
  /** Batches created (`POST /api/v4/extract/task/batch`), in order. */
  readonly batches: MineruBatch[];
  /** Envelopes the next batch creations answer with instead of success, in order. */
  readonly batchCreateFailures: { code: number | string; msg: string; status?: number }[];
  /** Valid bearer tokens; any other token gets code `A0202`. */
  readonly tokens: Set<string>;
  /**
   * Task creations each token has left today (a batch takes one per file); a token at 0 gets code `-60018` (not
   * listed = unlimited).
   */
  readonly quota: Map<string, number>;
  /** The script of tasks without a `scripts` entry for their `data_id`. */
  defaultScript: TaskScript;
  /** Scripts by `data_id` (the paper stem); a list gives successive tasks of that paper successive scripts (the last sticks). */
  readonly scripts: Map<string, TaskScript | TaskScript[]>;
  /** While set, polls report the task's current state without moving it along. */
  frozen: boolean;
  /** Holds task polls unanswered while closed (to observe a poll in flight). */
  readonly pollGate: Gate;
  /** Polls held by `pollGate` whose client is still connected (a client that gave up is not counted). */
  readonly heldPolls: number;
  /** The envelope the next task creation answers with instead of success (e.g. `{code: -60018, msg}`). */
  failNextCreate(envelope: { code: number | string; msg: string }, httpStatus?: number): void;
  /** The envelope the next poll answers with instead of the task. */
  failNextPoll(envelope: { code: number | string; msg: string }, httpStatus?: number): void;
  /** Task creations seen (successful or not), by token. */
  readonly creations: { token: string; dataId: string | undefined; accepted: boolean }[];
}

/** A MinerU-like result zip: `<dir>/full.md`, `<dir>/images/<name>`, and files the service ignores. */
export function resultZip(markdown: string, images: Readonly<Record<string, Buffer>> = {}, dir = 'result'): Buffer {
  return makeZip([
    { name: `${dir}/full.md`, content: markdown },
    ...Object.entries(images).map(([name, content]) => ({ name: `${dir}/images/${name}`, content })),
    { name: `${dir}/layout.json`, content: '{}' },
    { name: `${dir}/x_origin.pdf`, content: '%PDF-1.7\n' },
  ]);
}

/** The markdown of the default result zip of a paper. */
export const defaultMarkdown = (dataId: string) => `# ${dataId}\n\nConverted text.\n\n![fig](images/fig1.png)\n`;
/** The default result's figure: a valid 240×150 PNG (a bar chart), so browsers and image tools can show it. */
export const PNG = makePng(240, 150, (x, y) => {
  const bar = Math.floor((x - 20) / 40);
  const inBar = x >= 20 && x < 220 && (x - 20) % 40 < 28 && y >= 140 - [60, 110, 85, 125, 40][bar]! && y < 140;
  if (inBar) return [9, 105, 218];
  return y === 140 && x >= 12 && x < 228 ? [36, 41, 47] : [255, 255, 255];
});

export const DONE: TaskScript = { states: ['pending', 'running', 'converting', 'done'] };

/**
 * The MinerU cloud API as CONTRACT §12.4 describes it: `POST /api/v4/extract/task` → `{code:0,data:{task_id}}`,
 * `GET /api/v4/extract/task/{id}` → state, `err_msg`, `extract_progress` and `full_zip_url`, `GET
 * /zips/{id}.zip` (no auth) → the result zip. Tasks move one state per poll along their script. The batch calls
 * the client uses (`POST /api/v4/extract/task/batch`, `GET /api/v4/extract-results/batch/{id}`, zips at
 * `/zips/{batch_id}/{data_id}.zip`) report the entries of `batches` as the test sets them.
 */
export async function startMineruDouble(options: DoubleOptions = {}): Promise<MineruDouble> {
  const tasks = new Map<string, MineruTask>();
  const tokens = new Set<string>();
  const quota = new Map<string, number>();
  const scripts = new Map<string, TaskScript | TaskScript[]>();
  const scriptOf = (dataId: string | undefined): TaskScript => {
    const entry = dataId !== undefined ? scripts.get(dataId) : undefined;
    if (entry === undefined) return state.defaultScript;
    if (!Array.isArray(entry)) return entry;
    return (entry.length > 1 ? entry.shift() : entry[0]) ?? state.defaultScript;
  };
  const creations: MineruDouble['creations'] = [];
  const batches: MineruBatch[] = [];
  const batchCreateFailures: MineruDouble['batchCreateFailures'] = [];
  const state = { defaultScript: DONE, frozen: false };
  const pollGate = new Gate();
  const held = new Set<ServerResponse>();
  let nextCreateFailure: { envelope: { code: number | string; msg: string }; status: number } | null = null;
  let nextPollFailure: { envelope: { code: number | string; msg: string }; status: number } | null = null;
  let base = '';
  const double = await startHttpDouble(async (req, res) => {
    const url = new URL(req.url, 'http://mineru.test');
    const zip = /^\/zips\/([^/]+)\.zip$/.exec(url.pathname);
    if (req.method === 'GET' && zip) {
      const task = tasks.get(zip[1]!);
      if (task?.script.zipAnswer) return sendAnswer(res, task.script.zipAnswer);
      const bytes = task?.zip;
      if (!bytes) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': bytes.length });
      return void res.end(bytes);
    }
    const batchZip = /^\/zips\/([^/]+)\/([^/]+)\.zip$/.exec(url.pathname);
    if (req.method === 'GET' && batchZip) {
      const entry = batches.find((b) => b.batch_id === batchZip[1])?.entries.find((e) => e.data_id === batchZip[2]);
      if (!entry?.zip) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': entry.zip.length });
      return void res.end(entry.zip);
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !tokens.has(token)) return sendJson(res, 200, { code: 'A0202', msg: 'token invalid', data: null });
    if (req.method === 'POST' && url.pathname === '/api/v4/extract/task') {
      const request = JSON.parse(req.body.toString() || '{}') as Record<string, unknown>;
      const dataId = typeof request['data_id'] === 'string' ? request['data_id'] : undefined;
      if (nextCreateFailure) {
        const { envelope, status } = nextCreateFailure;
        nextCreateFailure = null;
        creations.push({ token, dataId, accepted: false });
        return sendJson(res, status, { ...envelope, data: null });
      }
      const left = quota.get(token);
      if (left !== undefined && left <= 0) {
        creations.push({ token, dataId, accepted: false });
        return sendJson(res, 200, { code: -60018, msg: 'daily task limit reached', data: null });
      }
      if (left !== undefined) quota.set(token, left - 1);
      creations.push({ token, dataId, accepted: true });
      const script = scriptOf(dataId);
      const task: MineruTask = {
        task_id: randomUUID(),
        token,
        request,
        script,
        state: script.states[0] ?? 'pending',
        polls: 0,
        err_msg: '',
        zip: null,
      };
      tasks.set(task.task_id, task);
      return sendJson(res, 200, { code: 0, msg: 'ok', data: { task_id: task.task_id }, trace_id: randomUUID() });
    }
    if (req.method === 'POST' && url.pathname === '/api/v4/extract/task/batch') {
      const failure = batchCreateFailures.shift();
      if (failure) return sendJson(res, failure.status ?? 200, { code: failure.code, msg: failure.msg, data: null });
      const request = JSON.parse(req.body.toString() || '{}') as { files?: { url: string; data_id: string }[] };
      const files = request.files ?? [];
      const left = quota.get(token);
      if (left !== undefined && left <= 0) {
        return sendJson(res, 200, { code: -60018, msg: 'daily task limit reached', data: null });
      }
      if (left !== undefined) quota.set(token, Math.max(0, left - files.length));
      const batch: MineruBatch = {
        batch_id: randomUUID(),
        token,
        request,
        entries: files.map((f) => ({ data_id: f.data_id, url: f.url, state: 'waiting-file', err_msg: '', zip: null })),
      };
      batches.push(batch);
      return sendJson(res, 200, { code: 0, msg: 'ok', data: { batch_id: batch.batch_id }, trace_id: randomUUID() });
    }
    const batchGet = /^\/api\/v4\/extract-results\/batch\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && batchGet) {
      const batch = batches.find((b) => b.batch_id === batchGet[1]);
      if (!batch || batch.token !== token) {
        return sendJson(res, 200, { code: -60012, msg: 'task not found', data: null });
      }
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
    const get = /^\/api\/v4\/extract\/task\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && get) {
      held.add(res);
      res.once('close', () => held.delete(res));
      await pollGate.pass();
      held.delete(res);
      if (res.destroyed) return;
      if (nextPollFailure) {
        const { envelope, status } = nextPollFailure;
        nextPollFailure = null;
        return sendJson(res, status, { ...envelope, data: null });
      }
      const task = tasks.get(get[1]!);
      if (!task || task.token !== token) return sendJson(res, 200, { code: -60012, msg: 'task not found', data: null });
      if (!state.frozen) {
        task.state = task.script.states[Math.min(task.polls, task.script.states.length - 1)] ?? 'done';
        task.polls++;
      }
      if (task.state === 'failed') task.err_msg = task.script.errMsg ?? 'parse failed';
      if (task.state === 'done' && task.zip === null) {
        const dataId = String(task.request['data_id'] ?? task.task_id);
        task.zip = task.script.zip ?? resultZip(defaultMarkdown(dataId), { 'fig1.png': PNG });
      }
      const running = task.state === 'running' || task.state === 'converting';
      const total = task.script.totalPages;
      return sendJson(res, 200, {
        code: 0,
        msg: 'ok',
        data: {
          task_id: task.task_id,
          data_id: task.request['data_id'],
          state: task.state,
          full_zip_url: task.state === 'done' && !task.script.noZipUrl ? `${base}/zips/${task.task_id}.zip` : '',
          err_msg: task.err_msg,
          ...(running && total
            ? {
                extract_progress: {
                  extracted_pages: Math.min(total, task.polls),
                  total_pages: total,
                  start_time: '2026-05-01 12:00:00',
                },
              }
            : {}),
        },
      });
    }
    sendJson(res, 404, { code: -500, msg: 'no such endpoint', data: null });
  }, options);
  base = double.baseUrl;
  return {
    ...double,
    tasks,
    batches,
    batchCreateFailures,
    tokens,
    quota,
    scripts,
    creations,
    get defaultScript() {
      return state.defaultScript;
    },
    set defaultScript(v: TaskScript) {
      state.defaultScript = v;
    },
    get frozen() {
      return state.frozen;
    },
    set frozen(v: boolean) {
      state.frozen = v;
    },
    pollGate,
    get heldPolls() {
      return held.size;
    },
    failNextCreate(envelope, httpStatus = 200) {
      nextCreateFailure = { envelope, status: httpStatus };
    },
    failNextPoll(envelope, httpStatus = 200) {
      nextPollFailure = { envelope, status: httpStatus };
    },
  };
}
