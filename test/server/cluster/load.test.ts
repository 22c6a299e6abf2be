/**
 * Cluster mode under load with a rolling restart (CONTRACT §21, issue 24): two real `pksd serve` processes behind the
 * test bed's proxy take 200 mixed requests per second for 60 s from an open-loop generator in this process, and
 * instance `a` is restarted (SIGTERM → graceful shutdown → started again on the same port) after 30 s.
 *
 * The mix: PAT-authenticated reads (wiki page, paper list, paper detail, stored markdown, stats, status/batch) and
 * ~8 % uploads (`upload-pdf` of small distinct PDFs with `expected_sha256`, by the system PAT: a pipeline's
 * credential, exempt from the per-user write limit of §7.7 that 60 writes a minute would otherwise hit).
 *
 * The client retries a request that failed with a connection error or a 5xx: at most 3 tries, 250 ms then 1 s apart.
 * A retried upload is idempotent by content: the same bytes under the same id answer 200 `unchanged: true`.
 *
 * Asserted (correctness, not speed — the machine is shared):
 * - the generator issued all 12 000 requests, and every one ended with the expected answer (0 failing after
 *   retries, 0 lost uploads); read answers carry the seeded content;
 * - every upload the client saw succeed is in the object store with exactly its bytes;
 * - every attempt that failed (5xx or connection error) was answered by instance `a` (the proxy's `x-test-instance`)
 *   inside its shutdown window — from SIGTERM until the restarted process answers `/api/health` — so the surviving
 *   instance answered no 5xx at all;
 * - instance `a` came back with a new process.
 * The achieved rate is measured and printed, never asserted. A second test checks the graceful drain directly: an
 * upload whose body is still streaming when its instance gets SIGTERM completes (201, `Connection: close`) and is
 * stored, and repeating it answers 200 `unchanged` on either instance (what the retry policy relies on).
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectStore } from '../../../src/server/storage/object-store.js';
import { createS3Clients } from '../../../src/server/storage/s3-client.js';
import { S3ObjectStore } from '../../../src/server/storage/s3-store.js';
import { startCluster, type Cluster } from '../../support/cluster.js';
import { testUser } from '../../support/server.js';
import { multipart, pdfBytes, storedBytes } from '../papers/helpers.js';
import { makeZip } from '../papers/zip.js';
import { quietLogger } from '../storage/backends.js';
import { page } from '../wiki/git-fixture.js';

const RATE_PER_S = 200;
const DURATION_MS = 60_000;
const TOTAL = (RATE_PER_S * DURATION_MS) / 1000;
const RESTART_AT_MS = 30_000;
const MAX_TRIES = 3;
const BACKOFF_MS = [250, 1_000];
/** Generous: a request waits at most this long for its headers or between body chunks. */
const REQUEST_TIMEOUT_MS = 45_000;
const CONNECTIONS = 64;
const SEEDED = 6;
const PAGES = ['concept-a', 'concept-b', 'concept-c'];

type Kind = 'page' | 'list' | 'detail' | 'markdown' | 'stats' | 'batch' | 'upload';
/** One cycle of 25 requests: 2 uploads (8 %), the rest reads. The generator walks it in order. */
const CYCLE: readonly Kind[] = [
  'page',
  'list',
  'markdown',
  'detail',
  'stats',
  'batch',
  'page',
  'markdown',
  'upload',
  'list',
  'detail',
  'page',
  'markdown',
  'batch',
  'stats',
  'page',
  'list',
  'markdown',
  'detail',
  'upload',
  'batch',
  'page',
  'markdown',
  'list',
  'detail',
];

interface Attempt {
  readonly request: number;
  readonly kind: Kind;
  readonly try: number;
  readonly started: number;
  readonly ended: number;
  readonly status: number | null;
  readonly instance: string | null;
  readonly error: string | null;
}

interface Outcome {
  readonly request: number;
  readonly kind: Kind;
  readonly ok: boolean;
  readonly tries: number;
  readonly detail: string;
}

interface Upload {
  readonly id: string;
  readonly bytes: Buffer;
  readonly sha256: string;
  /** `pdf_path` of the successful answer; null when the upload never succeeded. */
  stored: string | null;
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const seededId = (n: number) => `2401.${String(10_001 + n)}v1`;
const markdownOf = (n: number) => `# Seeded paper ${n}\n\nThe body of seeded paper ${n}.\n`;

let cluster: Cluster;
let base: string;
let userPats: string[];
let store: ObjectStore;
let destroyStore: () => void;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-cluster-load-'));
  const wikis = ['wiki-a', 'wiki-b'].map((w) => path.join(base, w));
  for (const dir of wikis) {
    await mkdir(path.join(dir, 'concepts'), { recursive: true });
    for (const id of PAGES)
      await writeFile(path.join(dir, 'concepts', `${id}.md`), page(id, `Title ${id}`, `Text of ${id}.`));
  }
  // Paper access on (against the upstream doubles): `GET …/markdown` is one of its routes.
  cluster = await startCluster({ upstreams: true, instanceEnv: (i) => ({ SVC_WIKI_DIR: wikis[i]! }) });
  const shared = await cluster.identity();
  const alice = await testUser(shared, 'alice');
  const alicePat = await shared.pats.mint(alice.id, {
    name: 'load reader',
    description: '',
    expiresInDays: 30,
    scopes: ['papers:read', 'wiki:read'],
  });
  userPats = [await cluster.superuserPat(), alicePat.plaintext];
  const clients = createS3Clients(cluster.s3.config, null);
  store = new S3ObjectStore(clients, quietLogger());
  destroyStore = () => clients.destroy();

  // The stored papers the reads ask for: a PDF and the parser's markdown each.
  for (let n = 0; n < SEEDED; n++) {
    const pdf = multipart([{ name: 'pdf', filename: 'p.pdf', content: pdfBytes(`seed ${n}`) }]);
    const put = await fetch(`${cluster.proxyUrl}/api/papers/${seededId(n)}/upload-pdf`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${cluster.systemPat}`, 'Content-Type': pdf.contentType },
      body: pdf.body,
    });
    expect(put.status, await put.text()).toBe(201);
    const zip = makeZip([
      { name: 'out/full.md', content: markdownOf(n) },
      { name: 'out/layout.json', content: '{}' },
    ]);
    const parsed = multipart([{ name: 'parser_zip', filename: 'r.zip', content: zip }]);
    const md = await fetch(`${cluster.proxyUrl}/api/papers/${seededId(n)}/upload-parser`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${cluster.systemPat}`, 'Content-Type': parsed.contentType },
      body: parsed.body,
    });
    expect(md.status, await md.text()).toBe(201);
  }
  // Each instance sees every seeded paper before the load starts (an upload reaches the other within 15 s, §21).
  const seeded = Array.from({ length: SEEDED }, (_, n) => seededId(n)).join(',');
  const deadline = Date.now() + 30_000;
  for (const instance of cluster.instances) {
    for (;;) {
      const res = await fetch(`${instance.url}/api/papers/status/batch?ids=${seeded}`, {
        headers: { Authorization: `Bearer ${cluster.systemPat}` },
      });
      const { results } = (await res.json()) as { results: { state: string }[] };
      if (results.every((r) => r.state === 'cached')) break;
      if (Date.now() > deadline) throw new Error(`instance ${instance.id} does not see the seeded papers`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}, 240_000);

afterAll(async () => {
  destroyStore?.();
  await cluster?.stop();
  if (base) await rm(base, { recursive: true, force: true });
}, 120_000);

interface Call {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly token: string;
  readonly body?: { readonly bytes: Buffer; readonly contentType: string };
  /** The answer is the expected one (a wrong answer is a failure, never retried). */
  check(status: number, text: string): string | null;
}

const parse = (text: string): Record<string, unknown> => {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
};

function callFor(index: number, kind: Kind, uploads: Upload[]): Call {
  const token = userPats[index % userPats.length]!;
  const n = index % SEEDED;
  const expect200 = (status: number, text: string, ok: boolean): string | null =>
    status === 200 && ok ? null : `${status} ${text.slice(0, 200)}`;
  switch (kind) {
    case 'page': {
      const id = PAGES[index % PAGES.length]!;
      return {
        method: 'GET',
        path: `/api/pages/${id}`,
        token,
        check: (s, t) => expect200(s, t, parse(t)['id'] === id),
      };
    }
    case 'list':
      return {
        method: 'GET',
        path: `/api/papers?per_page=20&page=${(index % 3) + 1}`,
        token,
        check: (s, t) => expect200(s, t, Array.isArray(parse(t)['items'])),
      };
    case 'detail':
      return {
        method: 'GET',
        path: `/api/papers/${seededId(n)}`,
        token,
        check: (s, t) => expect200(s, t, parse(t)['preprint_id'] === seededId(n).replace(/v1$/, '')),
      };
    case 'markdown':
      return {
        method: 'GET',
        path: `/api/papers/${seededId(n)}/markdown`,
        token,
        check: (s, t) => expect200(s, t, t === markdownOf(n)),
      };
    case 'stats':
      return {
        method: 'GET',
        path: '/api/papers/stats',
        token,
        check: (s, t) => expect200(s, t, typeof parse(t) === 'object' && Object.keys(parse(t)).length > 0),
      };
    case 'batch': {
      const ids = [seededId(n), seededId((n + 1) % SEEDED), '2401.99999v1'];
      return {
        method: 'GET',
        path: `/api/papers/status/batch?ids=${ids.join(',')}`,
        token,
        check: (s, t) => {
          const results = parse(t)['results'] as { state?: string }[] | undefined;
          return expect200(s, t, results?.map((r) => r.state).join() === 'cached,cached,none');
        },
      };
    }
    case 'upload': {
      const upload: Upload = (() => {
        const bytes = pdfBytes(`load upload ${uploads.length} of request ${index}`);
        const u = { id: `2607.${String(10_001 + uploads.length)}v1`, bytes, sha256: sha256(bytes), stored: null };
        uploads.push(u);
        return u;
      })();
      const { body, contentType } = multipart([
        { name: 'pdf', filename: 'paper.pdf', content: upload.bytes, contentType: 'application/pdf' },
      ]);
      return {
        method: 'POST',
        path: `/api/papers/${upload.id}/upload-pdf?expected_sha256=${upload.sha256}`,
        token: cluster.systemPat,
        body: { bytes: body, contentType },
        check: (status, text) => {
          const answer = parse(text);
          // 201 written; 200 unchanged: a retry of an upload whose first try was stored before its answer was lost.
          const ok =
            (status === 201 || (status === 200 && answer['unchanged'] === true)) &&
            answer['pdf_sha256'] === upload.sha256;
          if (!ok) return `${status} ${text.slice(0, 300)}`;
          upload.stored = String(answer['pdf_path']);
          return null;
        },
      };
    }
  }
}

describe('cluster under load with a rolling restart', () => {
  it('200 mixed requests/s for 60 s, instance a restarted at 30 s: no lost upload, no 5xx but the restarting one', async () => {
    const dispatcher = new Agent({
      connections: CONNECTIONS,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    const attempts: Attempt[] = [];
    const uploads: Upload[] = [];
    const t0 = performance.now();
    const now = () => performance.now() - t0;

    const run = async (index: number, kind: Kind): Promise<Outcome> => {
      const call = callFor(index, kind, uploads);
      let last = '';
      for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
        if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS[attempt - 2]));
        const started = now();
        const record = (status: number | null, instance: string | null, error: string | null) =>
          attempts.push({ request: index, kind, try: attempt, started, ended: now(), status, instance, error });
        try {
          const res = await request(cluster.proxyUrl + call.path, {
            dispatcher,
            method: call.method,
            headers: {
              authorization: `Bearer ${call.token}`,
              ...(call.body ? { 'content-type': call.body.contentType } : {}),
            },
            ...(call.body ? { body: call.body.bytes } : {}),
          });
          const text = await res.body.text();
          const instance = res.headers['x-test-instance'];
          record(res.statusCode, typeof instance === 'string' ? instance : null, null);
          if (res.statusCode >= 500) {
            last = `${res.statusCode} from ${String(instance)}: ${text.slice(0, 200)}`;
            continue;
          }
          const wrong = call.check(res.statusCode, text);
          return { request: index, kind, ok: wrong === null, tries: attempt, detail: wrong ?? '' };
        } catch (err) {
          const message = `${(err as { code?: string }).code ?? ''} ${(err as Error).message}`;
          record(null, null, message);
          last = message;
        }
      }
      return { request: index, kind, ok: false, tries: MAX_TRIES, detail: `gave up: ${last}` };
    };

    // Open loop: request i is due at i / RATE s; each tick issues every request that is due, whatever is pending.
    const outcomes: Promise<Outcome>[] = [];
    let issuedAllAt = 0;
    const generator = new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const due = Math.min(TOTAL, Math.floor((now() * RATE_PER_S) / 1000));
        while (outcomes.length < due) outcomes.push(run(outcomes.length, CYCLE[outcomes.length % CYCLE.length]!));
        if (outcomes.length === TOTAL) {
          clearInterval(tick);
          issuedAllAt = now();
          resolve();
        }
      }, 5);
    });

    const restartedPid = cluster.instances[0]!.pid;
    const restart = (async () => {
      await new Promise((resolve) => setTimeout(resolve, RESTART_AT_MS));
      const from = now();
      await cluster.restart(0);
      return { from, to: now() };
    })();

    await generator;
    const window = await restart;
    const results = await Promise.all(outcomes);
    const finishedAt = now();
    await dispatcher.close();

    const failedAttempts = attempts.filter((a) => a.status === null || a.status >= 500);
    const failedBy = new Map<string, number>();
    for (const a of failedAttempts) {
      const key = `${a.instance ?? 'client'} ${a.status ?? a.error}`;
      failedBy.set(key, (failedBy.get(key) ?? 0) + 1);
    }
    const retried = results.filter((r) => r.tries > 1);
    console.log(
      `load: issued ${outcomes.length} requests in ${(issuedAllAt / 1000).toFixed(1)} s ` +
        `(${((outcomes.length * 1000) / issuedAllAt).toFixed(0)}/s), all answered after ${(finishedAt / 1000).toFixed(1)} s ` +
        `(${((results.length * 1000) / finishedAt).toFixed(0)}/s); ${attempts.length} attempts, ` +
        `${failedAttempts.length} failed attempts ${JSON.stringify(Object.fromEntries(failedBy))}, ` +
        `${retried.length} requests retried; ` +
        `${uploads.length} uploads; restart of a from ${(window.from / 1000).toFixed(1)} s ` +
        `to ${(window.to / 1000).toFixed(1)} s`,
    );

    // Every request was issued and ended with the expected answer, after at most MAX_TRIES tries.
    expect(results).toHaveLength(TOTAL);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    // 0 lost uploads: each one succeeded and is stored with exactly its bytes.
    expect(uploads.length).toBe((TOTAL / CYCLE.length) * 2);
    expect(uploads.filter((u) => u.stored === null).map((u) => u.id)).toEqual([]);
    const mismatched: string[] = [];
    for (let i = 0; i < uploads.length; i += 16) {
      await Promise.all(
        uploads.slice(i, i + 16).map(async (u) => {
          const bytes = await storedBytes(store, u.stored!);
          if (bytes === null || sha256(bytes) !== u.sha256) mismatched.push(u.id);
        }),
      );
    }
    expect(mismatched).toEqual([]);
    // No 5xx and no connection error but from instance a while it shut down and came back.
    const outside = failedAttempts.filter(
      (a) => !(a.instance === 'a' || a.instance === null) || a.started > window.to || a.ended < window.from,
    );
    expect(outside).toEqual([]);
    // The restart happened: a new process on the same port.
    expect(cluster.instances[0]!.pid).not.toBe(restartedPid);
  }, 180_000);

  it('an upload in flight when its instance gets SIGTERM completes and is stored (graceful drain)', async () => {
    const instance = cluster.instances[1]!;
    const bytes = pdfBytes('drained upload '.repeat(20_000));
    const digest = sha256(bytes);
    const { body, contentType } = multipart([{ name: 'pdf', filename: 'p.pdf', content: bytes }]);
    const half = Math.floor(body.length / 2);
    const stream = new PassThrough();
    stream.write(body.subarray(0, half));
    const dispatcher = new Agent({ headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS });
    // Instance b has not been stopped before and no other request names this paper: its log lines are this test's.
    const logged = (text: string) => () => cluster.logs(1).includes(text);
    const answer = request(`${instance.url}/api/papers/2608.00001v1/upload-pdf?expected_sha256=${digest}`, {
      dispatcher,
      method: 'POST',
      headers: {
        authorization: `Bearer ${cluster.systemPat}`,
        'content-type': contentType,
        'content-length': String(body.length),
      },
      body: stream,
    });
    const until = async (what: string, check: () => boolean): Promise<void> => {
      const deadline = Date.now() + 30_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`${what}: not within 30 s:\n${cluster.logs(1).slice(-4_000)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    // The instance is reading the body when the signal arrives.
    await until('the upload reached the instance', logged('/api/papers/2608.00001v1/upload-pdf'));
    const restarting = cluster.restart(1);
    await until('the instance began its shutdown', logged('received SIGTERM; shutting down'));
    stream.end(body.subarray(half));
    const res = await answer;
    const text = await res.body.text();
    await restarting;
    await dispatcher.close();

    expect(res.statusCode, text).toBe(201);
    expect(res.headers['connection']).toBe('close');
    const stored = JSON.parse(text) as { pdf_path: string; pdf_sha256: string };
    expect(stored.pdf_sha256).toBe(digest);
    const kept = await storedBytes(store, stored.pdf_path);
    expect(kept && sha256(kept)).toBe(digest);
    // What a client's retry of it gets, from either instance: 200, unchanged — the retry policy relies on it.
    for (const target of cluster.instances) {
      const again = await fetch(`${target.url}/api/papers/2608.00001v1/upload-pdf?expected_sha256=${digest}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${cluster.systemPat}`, 'Content-Type': contentType },
        body,
      });
      expect(again.status).toBe(200);
      expect(await again.json()).toMatchObject({ pdf_sha256: digest, unchanged: true, pdf_path: stored.pdf_path });
    }
  }, 120_000);
});
