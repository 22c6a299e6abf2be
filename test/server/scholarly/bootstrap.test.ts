/**
 * `pksd scholarly bootstrap` end to end (CONTRACT §15.8): filter into the snapshot bucket (local and S3), load into
 * a real Neo4j (exactly the expected `Paper` nodes and `CITES`, derived counts), metadata into the index rows,
 * `--entities` copies, the http(s) source, and the exit codes.
 */
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import neo4j from 'neo4j-driver';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { writePaperAssets } from '../../../src/server/graph/paper-assets.js';
import { StoreIndexPersistence } from '../../../src/server/papers/index-parquet.js';
import { emptyRow, type IndexRow, type RowMutation } from '../../../src/server/papers/index/row.js';
import { IndexTable } from '../../../src/server/papers/index/table.js';
import { LocalSnapshotBucket } from '../../../src/server/scholarly/bucket.js';
import { loadSnapshot } from '../../../src/server/scholarly/load.js';
import { createS3Clients } from '../../../src/server/storage/s3-client.js';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { pksd } from '../../support/cli.js';
import { startMoto, type MotoServer } from '../../support/moto.js';
import { graphEnv, useNeo4j } from '../../support/neo4j.js';
import { objectStoreEnv, motoBuckets } from '../storage/backends.js';
import { arxivOf, referenceFilter, refsOf, workNumber } from './reference.js';
import { generateSnapshot, type GeneratedSnapshot } from './snapshot-gen.js';

let dir: string;
let snapshot: GeneratedSnapshot;
const db = useNeo4j();

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-bootstrap-'));
  snapshot = await generateSnapshot(path.join(dir, 'source'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
function settings(extra: Record<string, string> = {}): { env: Record<string, string>; raw: string } {
  const home = path.join(dir, `pksd-${++n}`);
  const raw = path.join(home, 'raw');
  return {
    raw,
    env: {
      SVC_RAW_DIR: raw,
      SVC_DATA_DIR: path.join(home, 'data'),
      SVC_DB_DATA_DIR: path.join(home, 'pb'),
      ...graphEnv(db.server),
      ...extra,
    },
  };
}

async function cypher(query: string): Promise<Record<string, unknown>[]> {
  const { records } = await db.graph.driver.executeQuery(query);
  return records.map((r) => r.toObject());
}

const summaryValue = (stdout: string, name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(stdout)?.[1]);

type Json = Record<string, unknown>;

/** The expected graph from the kept works (bucket order = source order), by brute force. */
function expectedGraph(kept: Set<number>) {
  const works = [...snapshot.lineOf].filter(([id]) => kept.has(id)).map(([, l]) => JSON.parse(l.toString()) as Json);
  const paperOf = new Map<number, string>();
  const first = new Map<string, Json>();
  for (const w of works) {
    const arxiv = arxivOf(w);
    if (arxiv === null) continue;
    paperOf.set(workNumber(w['id'])!, arxiv);
    if (!first.has(arxiv)) first.set(arxiv, w);
  }
  const cites = new Set<string>();
  for (const w of works) {
    const from = paperOf.get(workNumber(w['id'])!);
    if (from === undefined) continue;
    for (const ref of refsOf(w)) {
      const to = paperOf.get(ref);
      if (to !== undefined && to !== from) cites.add(`${from} -> ${to}`);
    }
  }
  return { first, cites };
}

/** What the default bootstrap keeps (seed pattern `\bquantum\b`, references and citers; no index here), by brute force. */
const defaultFilter = () =>
  referenceFilter(snapshot, { pattern: /\bquantum\b/i, inIndex: () => false, references: true, citers: true });

describe('bootstrap into a local bucket and Neo4j', () => {
  it('filters, loads exactly the expected Paper/CITES with derived counts, and updates the index rows', async () => {
    const { env, raw } = settings();
    // A metadata index with two versions of one kept paper (and a paper the snapshot does not have).
    const expected = defaultFilter();
    const { first, cites } = expectedGraph(expected.kept);
    const indexedPaper = [...first.keys()].find((id) => /^\d{4}\./.test(id))!;
    const store = new LocalObjectStore(raw);
    await store.start();
    const rows: IndexRow[] = [
      emptyRow(requireUploadId(`${indexedPaper}v1`), new Date('2026-01-01T00:00:00Z')),
      emptyRow(requireUploadId(`${indexedPaper}v2`), new Date('2026-01-01T00:00:00Z')),
      emptyRow(requireUploadId('2512.99999v1'), new Date('2026-01-01T00:00:00Z')),
    ];
    const persistence = new StoreIndexPersistence(store, pino({ level: 'silent' }));
    await persistence.save(
      IndexTable.fromRows(rows),
      new Map<string, RowMutation>(rows.map((r) => [r.preprint_id, r])),
    );
    // Asset properties written before the bootstrap survive it.
    await writePaperAssets(db.graph, {
      id: indexedPaper,
      props: {
        yymm: indexedPaper.slice(0, 4),
        versions: [`${indexedPaper}v1`],
        pdf_versions: [`${indexedPaper}v1`],
        md_versions: [],
        has_pdf: true,
        has_md: false,
        latest_pdf_version: 1,
        pdf_size: 10,
        pdf_sha256: 'a'.repeat(64),
        latest_md_version: null,
        md_size: null,
        md_sha256: null,
        image_count: 0,
        assets_updated_at: '2026-01-01T00:00:00Z',
      },
    });

    const result = await pksd(['scholarly', 'bootstrap', '--source', snapshot.root], env);
    expect(result.stderr).toContain('pass 1: part 1/3');
    expect(result.code).toBe(0);
    expect(summaryValue(result.stdout, 'works read')).toBe(600);
    expect(summaryValue(result.stdout, 'works kept')).toBe(expected.kept.size);
    expect(summaryValue(result.stdout, 'papers merged')).toBe(first.size);
    expect(summaryValue(result.stdout, 'citations merged')).toBe(cites.size);
    expect(summaryValue(result.stdout, 'parts read')).toBe(3);
    expect(result.stdout).toMatch(/^duration: \d+\.\ds$/m);

    const papers = await cypher(
      `MATCH (p:Paper) RETURN p.preprint_id AS id, p.openalex_id AS w, p.doi AS doi, p.title AS title,
         p.authors AS authors, p.publication_date AS date, p.cited_by_count AS cited, p.has_pdf AS has_pdf,
         p.__derived_citations_in AS cin, p.__derived_citations_out AS cout`,
    );
    expect(new Set(papers.map((p) => p['id']))).toEqual(new Set(first.keys()));
    for (const p of papers) {
      const w = first.get(p['id'] as string)!;
      const doi = ((w['doi'] ?? (w['ids'] as Json)['doi']) as string).slice('https://doi.org/'.length).toLowerCase();
      expect(p).toMatchObject({
        w: `W${workNumber(w['id'])}`,
        doi,
        title: (w['title'] ?? w['display_name']) as string,
        authors: (w['authorships'] as Json[]).map((a) => (a['author'] as Json)['display_name'] ?? a['raw_author_name']),
        date: w['publication_date'],
      });
      expect(Number(p['cited'])).toBe(w['cited_by_count']);
      const out = [...cites].filter((c) => c.startsWith(`${p['id'] as string} -> `)).length;
      const inn = [...cites].filter((c) => c.endsWith(` -> ${p['id'] as string}`)).length;
      expect([Number(p['cin']), Number(p['cout'])]).toEqual([inn, out]);
    }
    expect(papers.find((p) => p['id'] === indexedPaper)!['has_pdf']).toBe(true);
    const edges = await cypher(
      'MATCH (a)-[r:CITES]->(b) RETURN a.preprint_id AS a, b.preprint_id AS b, labels(a) AS la',
    );
    expect(new Set(edges.map((e) => `${e['a'] as string} -> ${e['b'] as string}`))).toEqual(cites);
    expect(edges).toHaveLength(cites.size);

    const index = (await new StoreIndexPersistence(store, pino({ level: 'silent' })).load())!;
    const w = first.get(indexedPaper)!;
    for (const v of ['v1', 'v2']) {
      expect(index.row(index.indexOf(`${indexedPaper}${v}`)!)).toMatchObject({
        openalex_id: `W${workNumber(w['id'])}`,
        title: (w['title'] ?? w['display_name']) as string,
        publication_date: w['publication_date'],
        authors: (w['authorships'] as Json[])
          .map((a) => (a['author'] as Json)['display_name'] ?? a['raw_author_name'])
          .join('; '),
      });
    }
    expect(index.row(index.indexOf('2512.99999v1')!).title).toBeNull();
    expect(summaryValue(result.stdout, 'index rows updated')).toBe(2);

    // A second run changes nothing: same graph, parts reused.
    const again = await pksd(['scholarly', 'bootstrap', '--source', snapshot.root], env);
    expect(again.code).toBe(0);
    expect(summaryValue(again.stdout, 'parts already present')).toBe(3);
    expect(summaryValue(again.stdout, 'index rows updated')).toBe(0);
    expect(await cypher('MATCH ()-[r:CITES]->() RETURN count(r) AS n')).toEqual([{ n: neo4j.int(cites.size) }]);
    // Without --source only the load runs, from the bucket.
    const loadOnly = await pksd(['scholarly', 'bootstrap'], env);
    expect(loadOnly.code).toBe(0);
    expect(summaryValue(loadOnly.stdout, 'parts read')).toBe(0);
    expect(summaryValue(loadOnly.stdout, 'papers merged')).toBe(first.size);

    // Asset writers keep the scholarly properties and recompute (never keep stale) derived counts: papers sync
    // finds no objects, so it clears the asset properties it owns and nothing else.
    const before = await cypher(
      `MATCH (p:Paper {preprint_id: '${indexedPaper}'}) RETURN p.title AS title, p.__derived_citations_in AS cin`,
    );
    await db.graph.driver.executeQuery(
      `MATCH (p:Paper {preprint_id: '${indexedPaper}'}) SET p.__derived_citations_in = -1`,
    );
    const sync = await pksd(['papers', 'sync', '--full', '--from-objects'], env);
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain('graph papers touched: 1');
    const after = await cypher(
      `MATCH (p:Paper {preprint_id: '${indexedPaper}'}) RETURN p.title AS title, p.__derived_citations_in AS cin,
         p.has_pdf AS has_pdf, p.openalex_id AS w`,
    );
    expect(after).toEqual([{ ...before[0], has_pdf: false, w: `W${workNumber(first.get(indexedPaper)!['id'])}` }]);
  });
});

describe('load: the citation pass', () => {
  it.each([
    ['from the reference lists kept by pass 1', undefined],
    ['reading the bucket again when the references exceed the budget', 50],
  ])('%s: exactly the expected CITES', async (_how, referenceBudget) => {
    const { env, raw } = settings({ GRAPHDB_URI: '' });
    expect((await pksd(['scholarly', 'bootstrap', '--source', snapshot.root, '--no-graph'], env)).code).toBe(0);
    await db.graph.driver.executeQuery('MATCH (n) DETACH DELETE n');
    const expected = defaultFilter();
    const { first, cites } = expectedGraph(expected.kept);
    const store = new LocalObjectStore(raw);
    await store.start();
    const progress: string[] = [];
    const report = await loadSnapshot({
      bucket: new LocalSnapshotBucket(path.join(raw, 'scholarly-snapshot')),
      graph: db.graph,
      store,
      logger: pino({ level: 'silent' }),
      progress: (line) => progress.push(line),
      dryRun: false,
      writer: { batchRows: 7 },
      ...(referenceBudget === undefined ? {} : { referenceBudget }),
    });
    expect(report).toMatchObject({ papersMerged: first.size, citationsMerged: cites.size });
    expect(progress.includes('load: more than 50 references; reading the bucket again for the citations')).toBe(
      referenceBudget !== undefined,
    );
    const edges = await cypher('MATCH (a)-[r:CITES]->(b) RETURN a.preprint_id AS a, b.preprint_id AS b');
    expect(edges.map((e) => `${e['a'] as string} -> ${e['b'] as string}`).sort()).toEqual([...cites].sort());
  });
});

describe('load: failures', () => {
  it('a decode error in a later part: the load rejects only after its transactions in flight have ended', async () => {
    const { env, raw } = settings({ GRAPHDB_URI: '' });
    expect((await pksd(['scholarly', 'bootstrap', '--source', snapshot.root, '--no-graph'], env)).code).toBe(0);
    const bucketDir = path.join(raw, 'scholarly-snapshot');
    const manifest = JSON.parse(await readFile(path.join(bucketDir, 'works/manifest'), 'utf8')) as {
      entries: { url: string }[];
    };
    expect(manifest.entries.length).toBeGreaterThan(1);
    const last = path.join(bucketDir, manifest.entries.at(-1)!.url);
    const gz = await readFile(last);
    await writeFile(last, gz.subarray(0, gz.length - 20)); // truncated
    await db.graph.driver.executeQuery('MATCH (n) DETACH DELETE n');
    // The graph client as the load sees it, counting its sessions that are not closed yet.
    let open = 0;
    const driver = db.graph.driver;
    const counted = new Proxy(driver, {
      get(target, prop) {
        if (prop === 'session') {
          return (...args: Parameters<typeof driver.session>) => {
            const session = target.session(...args);
            open++;
            const close = session.close.bind(session);
            session.close = async () => {
              try {
                await close();
              } finally {
                open--;
              }
            };
            return session;
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const store = new LocalObjectStore(raw);
    await store.start();
    await expect(
      loadSnapshot({
        bucket: new LocalSnapshotBucket(bucketDir),
        graph: { driver: counted, database: null, close: () => Promise.resolve() },
        store,
        logger: pino({ level: 'silent' }),
        progress: () => {},
        dryRun: false,
        writer: { batchRows: 3 },
      }),
    ).rejects.toThrow(/decode error in part works\/.*, line \d+: gzip: /);
    expect(open).toBe(0);
  });
});

describe('pksd scholarly bootstrap: options and exit codes', () => {
  it('--no-graph filters only; --entities copies parts and manifest unmodified', async () => {
    const { env, raw } = settings({ GRAPHDB_URI: '' });
    const result = await pksd(
      ['scholarly', 'bootstrap', '--source', snapshot.root, '--no-graph', '--entities', 'authors'],
      env,
    );
    expect(result.code).toBe(0);
    expect(summaryValue(result.stdout, 'papers merged')).toBe(0);
    expect(summaryValue(result.stdout, 'entity parts copied')).toBe(2);
    const bucket = path.join(raw, 'scholarly-snapshot');
    for (const rel of ['updated_date=2025-01-01/part_000.gz', 'updated_date=2025-01-01/part_001.gz', 'manifest']) {
      const copied = await readFile(path.join(bucket, 'data/authors', rel));
      expect(copied.equals(await readFile(path.join(snapshot.root, 'data/authors', rel)))).toBe(true);
    }
    expect((await stat(path.join(bucket, 'works/manifest'))).size).toBeGreaterThan(0);
  });

  it('one bootstrap at a time per data directory: a live holder → exit 1, a dead one is taken over', async () => {
    const { env } = settings({ GRAPHDB_URI: '' });
    const lock = path.join(env['SVC_DATA_DIR']!, 'scholarly-bootstrap.lock');
    await mkdir(env['SVC_DATA_DIR']!, { recursive: true });
    // A live process other than this one (pksd runs in this process here).
    const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    onTestFinished(() => void holder.kill());
    await writeFile(lock, `${holder.pid}\n`);
    const held = await pksd(['scholarly', 'bootstrap', '--source', snapshot.root, '--no-graph'], env);
    expect(held).toMatchObject({
      code: 1,
      stderr: 'pksd: scholarly bootstrap: another scholarly bootstrap is running\n',
    });
    expect(await readFile(lock, 'utf8')).toBe(`${holder.pid}\n`);
    await writeFile(lock, '999999999\n'); // no such process
    const taken = await pksd(['scholarly', 'bootstrap', '--source', snapshot.root, '--no-graph'], env);
    expect(taken.code).toBe(0);
    await expect(stat(lock)).rejects.toThrow('ENOENT'); // released at the end
  });

  it('usage and configuration errors exit 2; a decode error exits 1 naming the part', async () => {
    const noGraph = settings({ GRAPHDB_URI: '' });
    const r1 = await pksd(['scholarly', 'bootstrap', '--source', snapshot.root], noGraph.env);
    expect(r1).toMatchObject({ code: 2 });
    expect(r1.stderr).toContain('GRAPHDB_URI is empty');
    expect((await pksd(['scholarly', 'bootstrap', '--seed-pattern', '(', '--no-graph'], noGraph.env)).code).toBe(2);
    expect((await pksd(['scholarly', 'bootstrap', '--limit-parts', '0', '--no-graph'], noGraph.env)).code).toBe(2);
    expect(
      (await pksd(['scholarly', 'bootstrap', '--entities', 'works', '--source', 'x', '--no-graph'], noGraph.env)).code,
    ).toBe(2);

    const broken = path.join(dir, 'broken-cli');
    const copy = await generateSnapshot(broken, { works: 40, perPart: 20 });
    const partFile = path.join(broken, copy.parts[1]!.url.slice('s3://openalex/'.length));
    const gz = await readFile(partFile);
    await writeFile(partFile, gz.subarray(0, gz.length - 20)); // truncated
    const r2 = await pksd(['scholarly', 'bootstrap', '--source', broken, '--no-graph'], noGraph.env);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(
      /decode error in part s3:\/\/openalex\/data\/works\/updated_date=2025-02-15\/part_000\.gz, line \d+: gzip: /,
    );

    const r3 = await pksd(['scholarly', 'bootstrap'], settings().env);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toContain('no works/manifest in the snapshot bucket');
  });

  it('reads an http(s) source', async () => {
    const server = http.createServer((req, res) => {
      const file = path.join(snapshot.root, decodeURIComponent(req.url ?? '/'));
      createReadStream(file)
        .on('error', () => res.writeHead(404).end())
        .pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const { env } = settings({ GRAPHDB_URI: '' });
      const result = await pksd(['scholarly', 'bootstrap', '--source', `http://127.0.0.1:${port}/`, '--no-graph'], env);
      expect(result.code).toBe(0);
      expect(summaryValue(result.stdout, 'works read')).toBe(600);
    } finally {
      server.close();
    }
  });
});

describe('S3 snapshot bucket', () => {
  let moto: MotoServer;
  beforeAll(async () => {
    moto = await startMoto();
  });
  afterAll(async () => {
    await moto?.stop();
  });

  it('writes parts with record_count and source_url metadata and the manifest; needs the bucket setting', async () => {
    const config = await motoBuckets(moto);
    const clients = createS3Clients(config, null);
    try {
      await clients.internal.send(new CreateBucketCommand({ Bucket: 'snapshot' }));
      const base = { ...settings({ GRAPHDB_URI: '' }).env, ...objectStoreEnv(config) };
      const missing = await pksd(['scholarly', 'bootstrap', '--source', snapshot.root, '--no-graph'], base);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('SVC_OBJ_BUCKET_SCHOLARLY_SNAPSHOT');
      const env = { ...base, SVC_OBJ_BUCKET_SCHOLARLY_SNAPSHOT: 'snapshot' };
      const result = await pksd(['scholarly', 'bootstrap', '--source', snapshot.root, '--no-graph'], env);
      expect(result.code).toBe(0);
      const head = await clients.internal.send(
        new HeadObjectCommand({ Bucket: 'snapshot', Key: 'works/updated_date=2025-01-01/part_0000.jsonl.gz' }),
      );
      expect(head.Metadata).toMatchObject({
        source_url: snapshot.parts[0]!.url,
        record_count: expect.stringMatching(/^\d+$/),
      });
      const manifest = await clients.internal.send(new GetObjectCommand({ Bucket: 'snapshot', Key: 'works/manifest' }));
      const body = JSON.parse(await manifest.Body!.transformToString()) as { entries: unknown[] };
      expect(body.entries).toHaveLength(3);
    } finally {
      clients.destroy();
    }
  });
});
