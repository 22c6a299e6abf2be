/**
 * Paper metadata (CONTRACT §18.1) through a real pksd with paper access on, against the arXiv double's API:
 * fetched once and cached (a second request and a restart make no upstream call, and paper access off still
 * answers from the cache), concurrent requests share one call, a miss that cannot be fetched is `metadata: null`
 * with 200, and uploads and paper-access jobs fill the cache in the background.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenBucket } from '../../../src/server/access/token-bucket.js';
import { systemClock } from '../../../src/server/access/clock.js';
import { openDatabase } from '../../../src/server/db/database.js';
import { createLogger } from '../../../src/server/logger.js';
import { ArxivApiClient } from '../../../src/server/papers/metadata/arxiv-api.js';
import { SqliteMetadataCache } from '../../../src/server/papers/metadata/metadata-cache.js';
import { PaperMetadataService } from '../../../src/server/papers/metadata/service.js';
import type { PaperDetail, PaperMetadata } from '../../../src/shared/api/registry.js';
import { LogCapture, testConfig } from '../../support/server.js';
import type { ArxivEntry } from '../../support/upstreams/arxiv.js';
import { composeServer, startAccessStack, stopAccessStack, AUTH, type AccessStack } from '../access/support/server.js';
import { multipart, pdfBytes } from './helpers.js';

let stack: AccessStack;
beforeAll(async () => {
  stack = await startAccessStack();
});
afterAll(() => stopAccessStack(stack));

const entry = (n: number): ArxivEntry => ({
  title: `Paper number ${n}: a study of everything`,
  authors: [`Author ${n}`, 'Second Author'],
  abstract: `Abstract of paper ${n}.`,
  published: '2025-01-0' + String(n % 9 || 1),
  doi: `10.1000/p${n}`,
});

const asMetadata = (e: ArxivEntry): PaperMetadata => ({
  title: e.title,
  authors: [...e.authors],
  abstract: e.abstract,
  published: e.published,
  doi: e.doi ?? null,
  openalex_id: null,
  cited_by_count: null,
  source: 'arxiv',
});

/** `/api/query` requests for one paper. */
const queries = (versionless: string, on: AccessStack = stack) =>
  on.d.arxiv.requestsTo('query').filter((r) => new URL(r.url, 'http://x').searchParams.get('id_list') === versionless)
    .length;

async function detail(id: string, base = stack.s.url): Promise<{ status: number; body: PaperDetail }> {
  const res = await fetch(`${base}/api/papers/${id}`, { headers: AUTH });
  return { status: res.status, body: (await res.json()) as PaperDetail };
}

async function upload(id: string, base = stack.s.url): Promise<void> {
  const { body, contentType } = multipart([{ name: 'pdf', filename: 'p.pdf', content: pdfBytes(id) }]);
  const res = await fetch(`${base}/api/papers/${id}/upload-pdf`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': contentType },
    body,
  });
  expect(res.status).toBe(201);
}

describe('metadata from the arXiv API, cached', () => {
  it('an upload fills the cache in the background; reads then make no upstream call, nor after a restart', async () => {
    // A stack of its own: its server is stopped and restarted on the same directory.
    const own = await startAccessStack();
    try {
      const e = entry(1);
      own.d.arxiv.entries.set('2501.00011', e);
      await upload('2501.00011v1', own.s.url);
      await expect.poll(() => queries('2501.00011', own)).toBe(1);

      const first = await detail('2501.00011v1', own.s.url);
      expect(first.status).toBe(200);
      expect(first.body.metadata).toEqual(asMetadata(e));
      expect((await detail('2501.00011v1', own.s.url)).body.metadata).toEqual(asMetadata(e));
      expect(queries('2501.00011', own)).toBe(1);
      const request = own.d.arxiv.requestsTo('query')[0]!;
      expect(request.url).toBe('/api/query?id_list=2501.00011');
      expect(request.headers['user-agent']).toMatch(/^pksd\/\S+ \(mailto:team@example\.org\)$/);

      // The same directories, paper access off and no graph: the cache answers.
      await own.s.stop();
      const config = testConfig(own.s.dir, {
        SVC_HTTP_ADDR: `${own.s.config.listen.host}:${own.s.config.listen.port}`,
        SVC_SYSTEM_PAT: own.s.config.systemPat!.token,
      });
      expect(config.paperAccessEnabled).toBe(false);
      const off = await composeServer(config, createLogger('warn', new LogCapture()));
      try {
        const after = await detail('2501.00011', off.url);
        expect(after.status).toBe(200);
        expect(after.body.metadata).toEqual(asMetadata(e));
      } finally {
        await off.close();
      }
      // Paper access on again.
      const on = await composeServer(own.s.config, createLogger('warn', new LogCapture()));
      try {
        expect((await detail('2501.00011v1', on.url)).body.metadata).toEqual(asMetadata(e));
      } finally {
        await on.close();
      }
      expect(queries('2501.00011', own)).toBe(1);
    } finally {
      await own.d.close();
      await rm(own.s.dir, { recursive: true, force: true });
    }
  });

  it('metadata that arrives titles the stored versions in the list (q finds the title); updated_at stays', async () => {
    const e = { ...entry(7), title: 'Surface codes below threshold' };
    stack.d.arxiv.entries.set('2501.00017', e);
    await upload('2501.00017v1');
    const list = async (q: string) => {
      const res = await stack.s.get(`/api/papers?q=${encodeURIComponent(q)}`);
      return (await res.json()) as { items: { preprint_id: string; title: string | null; updated_at: string }[] };
    };
    const before = (await list('2501.00017')).items[0]!;
    await expect
      .poll(async () => (await list('below THRESHOLD')).items.map((i) => [i.preprint_id, i.title]))
      .toEqual([['2501.00017v1', 'Surface codes below threshold']]);
    expect((await list('below threshold')).items[0]!.updated_at).toBe(before.updated_at);
  });

  it('a paper that is not stored is fetched by the detail read itself (200 with metadata only)', async () => {
    const e = entry(2);
    stack.d.arxiv.entries.set('2501.00012', e);
    const res = await detail('2501.00012v2');
    expect(res).toEqual({
      status: 200,
      body: {
        preprint_id: '2501.00012',
        versions: [],
        metadata: asMetadata(e),
        claim: null,
        jobs: { markdown: null, pdf: null },
      },
    });
    expect(queries('2501.00012')).toBe(1);
  });

  it('a paper-access job fills the cache in the background', async () => {
    stack.d.arxiv.entries.set('2501.00013', entry(3));
    stack.d.arxiv.papers.set('2501.00013', { latestVersion: 1, pdfs: new Map([[1, pdfBytes('job')]]) });
    const res = await stack.s.fetch('/api/papers/2501.00013v1/pdf', { headers: AUTH });
    expect([200, 202]).toContain(res.status);
    await res.arrayBuffer();
    await expect.poll(() => queries('2501.00013')).toBe(1);
    expect((await detail('2501.00013v1')).body.metadata).toEqual(asMetadata(entry(3)));
    expect(queries('2501.00013')).toBe(1);
  });

  it.each([
    ['the API fails (HTTP 503)', '2501.00021', { status: 503, body: 'Service Unavailable' }],
    ['the API answers something other than Atom', '2501.00022', { status: 200, body: 'Rate exceeded.' }],
    ['the API redirects', '2501.00023', { status: 301, headers: { location: 'https://elsewhere.example/' } }],
  ])('%s: metadata null, 200, never an error', async (_name, id, answer) => {
    stack.d.arxiv.entries.set(id, entry(4));
    stack.d.arxiv.answerNext('query', answer);
    await upload(`${id}v1`);
    await expect.poll(() => queries(id)).toBe(1);
    const res = await detail(`${id}v1`);
    expect(res.status).toBe(200);
    expect(res.body.metadata).toBeNull();
    expect(res.body.versions).toHaveLength(1);
  });

  it('an id the API does not know (its error entry): metadata null', async () => {
    await upload('2501.00099v1');
    await expect.poll(() => queries('2501.00099')).toBe(1);
    const res = await detail('2501.00099v1');
    expect(res.status).toBe(200);
    expect(res.body.metadata).toBeNull();
  });
});

type ServiceTiming = Pick<ConstructorParameters<typeof PaperMetadataService>[0], 'readWaitMs' | 'onKnown'>;

/**
 * `body` with a PaperMetadataService on a fresh SQLite cache and the arXiv double (no graph); afterwards the
 * double's query gate is open again and the database removed.
 */
async function withMetadataService(
  timing: ServiceTiming,
  body: (service: PaperMetadataService) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pks-metadata-'));
  const db = openDatabase(dir);
  try {
    const service = new PaperMetadataService({
      cache: new SqliteMetadataCache(db),
      graph: null,
      arxiv: new ArxivApiClient({
        apiUrl: `${stack.d.arxiv.baseUrl}/api/query`,
        mailto: null,
        limiter: new TokenBucket(1000, 2, systemClock),
      }),
      logger: pino({ level: 'silent' }),
      ...timing,
    });
    await body(service);
  } finally {
    stack.d.arxiv.queryGate.open();
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('PaperMetadataService', () => {
  it('concurrent requests for one paper share one upstream call', async () => {
    const e = entry(5);
    stack.d.arxiv.entries.set('2501.00015', e);
    await withMetadataService({ readWaitMs: 120_000 }, async (service) => {
      stack.d.arxiv.queryGate.close();
      const reads = [service.get('2501.00015'), service.get('2501.00015'), service.get('2501.00015')];
      await expect.poll(() => stack.d.arxiv.queryGate.held).toBe(1);
      stack.d.arxiv.queryGate.open();
      expect(await Promise.all(reads)).toEqual([asMetadata(e), asMetadata(e), asMetadata(e)]);
      expect(queries('2501.00015')).toBe(1);
      expect(await service.get('2501.00015')).toEqual(asMetadata(e));
      expect(queries('2501.00015')).toBe(1);
    });
  });

  it('a reader waits a bounded time: past it the answer is null, and the fetch still fills the cache', async () => {
    const e = entry(6);
    stack.d.arxiv.entries.set('2501.00016', e);
    const known: string[] = [];
    const onKnown = (id: string, metadata: PaperMetadata) => known.push(`${id}: ${metadata.title}`);
    await withMetadataService({ readWaitMs: 50, onKnown }, async (service) => {
      stack.d.arxiv.queryGate.close();
      expect(await service.get('2501.00016')).toBeNull();
      await expect.poll(() => stack.d.arxiv.queryGate.held).toBe(1);
      stack.d.arxiv.queryGate.open();
      await expect.poll(async () => (await service.cached('2501.00016'))?.metadata ?? null).toEqual(asMetadata(e));
      expect(known).toEqual([`2501.00016: ${e.title}`]);
      expect(await service.get('2501.00016')).toEqual(asMetadata(e));
      expect(queries('2501.00016')).toBe(1);
    });
  });
});
