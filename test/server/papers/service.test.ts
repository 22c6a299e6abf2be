/**
 * The paper service's legacy read fallback (CONTRACT §3.2), built by `openPaperAssets` on a temp directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/server/config/load.js';
import { openPaperAssets, type PaperAssets } from '../../../src/server/papers/assets.js';
import { requireUploadId } from '../../../src/shared/ids.js';

let dir: string;
let papers: PaperAssets;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-service-'));
  const config = buildConfig({
    flags: new Map(),
    env: {
      SVC_RAW_DIR: path.join(dir, 'raw'),
      SVC_DATA_DIR: path.join(dir, 'data'),
      SVC_DB_DATA_DIR: path.join(dir, 'pb'),
    },
    cwd: dir,
    home: dir,
  });
  papers = await openPaperAssets(config, pino({ level: 'silent' }), { s3: null, graph: null });
});
afterEach(async () => {
  await papers.close();
  await rm(dir, { recursive: true, force: true });
});

const put = (key: string, body = 'x') =>
  papers.store.put(key, Buffer.from(body), { contentType: 'application/octet-stream', metadata: {} });

describe('legacy read fallback (§3.2)', () => {
  it('old-style ids fall back to the category-less keys; the app key wins when present', async () => {
    const id = requireUploadId('quant-ph/9508027v1');
    expect(await papers.findPdf(id)).toBeNull();
    await put('pdf/9508/9508027v1.pdf', 'legacy');
    expect((await papers.findPdf(id))!.key).toBe('pdf/9508/9508027v1.pdf');
    await put('pdf/9508/quant-ph_9508027v1.pdf', 'app');
    expect((await papers.findPdf(id))!.key).toBe('pdf/9508/quant-ph_9508027v1.pdf');

    await put('markdown/9508/9508027v1.md');
    expect((await papers.findMarkdown(id))!.key).toBe('markdown/9508/9508027v1.md');

    await put('images/9508/9508027v1/a.png');
    expect((await papers.listImages(id)).map((o) => o.key)).toEqual(['images/9508/9508027v1/a.png']);
    await put('images/9508/quant-ph_9508027v1/b.png');
    expect((await papers.listImages(id)).map((o) => o.key)).toEqual(['images/9508/quant-ph_9508027v1/b.png']);
  });

  it('new-style ids never probe a legacy key', async () => {
    const id = requireUploadId('2501.00010v1');
    await put('pdf/2501/00010v1.pdf');
    expect(await papers.findPdf(id)).toBeNull();
    expect(await papers.listImages(id)).toEqual([]);
  });

  it('stats start empty and available', () => {
    expect(papers.stats()).toMatchObject({ available: true, total: 0, needs_parser: 0 });
  });
});
