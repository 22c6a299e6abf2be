/**
 * `pksd papers sync --full --from-objects` (CONTRACT §15.6, §4.4) against both backends, run in-process.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreIndexPersistence } from '../../../src/server/papers/index-parquet.js';
import { PaperIndex } from '../../../src/server/papers/paper-index.js';
import { writeObject } from '../../../src/server/storage/write.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { pksd } from '../../support/cli.js';
import { useMoto } from '../../support/moto.js';
import { localFixture, objectStoreEnv, s3Fixture, type StoreFixture } from '../storage/backends.js';

const sha = (b: string) => createHash('sha256').update(b).digest('hex');
const quiet = pino({ level: 'silent' });

const moto = useMoto();

describe.each([
  ['local', () => localFixture()],
  ['s3', () => s3Fixture(moto())],
] as const)('pksd papers sync (%s)', (_name, make) => {
  let fx: StoreFixture;
  let dir: string;
  let env: Record<string, string>;
  const put = (key: string, body: string, withSha = true) =>
    withSha
      ? writeObject(fx.store, key, Buffer.from(body), { sha256: sha(body), contentType: 'application/octet-stream' })
      : fx.store.put(key, Buffer.from(body), { contentType: 'application/octet-stream', metadata: {} });

  beforeEach(async () => {
    fx = await make();
    dir = await mkdtemp(path.join(os.tmpdir(), 'pks-sync-'));
    env = {
      SVC_DATA_DIR: path.join(dir, 'data'),
      SVC_DB_DATA_DIR: path.join(dir, 'pb'),
      SVC_RAW_DIR: fx.root ?? path.join(dir, 'raw'),
      ...(fx.objectStore ? objectStoreEnv(fx.objectStore) : {}),
    };
    await put('pdf/2501/2501.00010v1.pdf', '%PDF-a');
    await put('markdown/2501/2501.00010v1.md', '# a');
    await put('images/2501/2501.00010v1/a.png', 'AA');
    await put('images/2501/2501.00010v1/sub/b.png', 'BBB');
    await put('pdf/9508/9508027v1.pdf', '%PDF-legacy', false); // legacy → quant-ph/9508027v1
    await put('pdf/9601/9601001v1.pdf', 'short', false); // legacy, shadowed by the app key below
    await put('pdf/9601/quant-ph_9601001v1.pdf', '%PDF-app-key');
    await put('markdown/2502/2502.00001v1.md', '# orphan'); // markdown without PDF
    await put('pdf/2503/2503.00001v1.pdf', '%PDF-c');
    await put('images/2503/2503.00001v1/x.png', 'X'); // images without markdown
    await put('pdf/junk.txt', 'junk');
    await put('pdf/2501/not-an-id.pdf', 'junk');

    // A previous index row carrying scholarly metadata, which the rebuild must keep.
    const index = new PaperIndex(quiet, new StoreIndexPersistence(fx.store, quiet), { flushDelayMs: 3_600_000 });
    await index.load();
    index.update(requireUploadId('2501.00010v1'), { title: 'Kept title', has_pdf: true });
    index.update(requireUploadId('2512.09999v1'), { has_pdf: true }); // no longer backed: dropped
    await index.close();
  });
  afterEach(async () => {
    await fx.close();
    await rm(dir, { recursive: true, force: true });
  });

  const loadRows = async () => {
    const index = new PaperIndex(quiet, new StoreIndexPersistence(fx.store, quiet));
    await index.load();
    return new Map(index.all().map((r) => [r.preprint_id, r]));
  };

  it('requires --from-objects', async () => {
    const run = await pksd(['papers', 'sync', '--full'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--from-objects');
  });

  it('--dry-run reports and writes nothing', async () => {
    const before = await fx.store.readIndex();
    const run = await pksd(['papers', 'sync', '--full', '--from-objects', '--dry-run'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('papers: 5\n');
    expect((await fx.store.readIndex())!.etag).toBe(before!.etag);
  });

  it('rebuilds the index from the listings; reports skipped keys and invariant violations', async () => {
    const run = await pksd(['papers', 'sync', '--full', '--from-objects', '--no-graph'], env);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.slice(0, 6)).toEqual([
      'pdf objects: 7',
      'markdown objects: 2',
      'image objects: 3',
      'papers: 5',
      'skipped keys: 2',
      'invariant violations: 2',
    ]);
    expect(lines).toContain('  markdown without PDF: 2502.00001v1 (markdown/2502/2502.00001v1.md)');
    expect(lines).toContain('  images without markdown: 2503.00001v1 (1 objects)');
    expect(lines).toContain('graph papers touched: 0');
    expect(lines.at(-1)).toMatch(/^duration: \d+(\.\d+)?s$/);
    expect(run.stderr).toContain('skipped: pdf/junk.txt');

    const rows = await loadRows();
    expect([...rows.keys()].sort()).toEqual([
      '2501.00010v1',
      '2502.00001v1',
      '2503.00001v1',
      'quant-ph/9508027v1',
      'quant-ph/9601001v1',
    ]);
    expect(rows.get('2501.00010v1')).toMatchObject({
      title: 'Kept title',
      has_pdf: true,
      has_md: true,
      has_json: false,
      image_count: 2,
      pdf_size_bytes: 6,
      md_size_bytes: 3,
      images_size_bytes: 5,
      pdf_sha256: sha('%PDF-a'),
      md_sha256: sha('# a'),
    });
    expect(rows.get('2501.00010v1')!.pdf_etag).toBeTruthy();
    expect(rows.get('2501.00010v1')!.pdf_uploaded_at).toBeInstanceOf(Date);
    expect(rows.get('quant-ph/9508027v1')).toMatchObject({
      key: 'quant-ph_9508027v1',
      has_pdf: true,
      pdf_sha256: null,
      categories: 'quant-ph',
    });
    expect(rows.get('quant-ph/9601001v1')).toMatchObject({ pdf_size_bytes: 12, pdf_sha256: sha('%PDF-app-key') });
    expect(rows.get('2502.00001v1')).toMatchObject({ has_pdf: false, has_md: true });
    expect(rows.has('2512.09999v1')).toBe(false);

    // A second run reuses the sha256 of unchanged objects (no HEADs).
    const again = await pksd(['papers', 'sync', '--full', '--from-objects', '--no-graph'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('reading sha256 metadata of 1 objects'); // only the legacy PDF without sha256
  });
});
