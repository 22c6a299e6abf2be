/**
 * CONTRACT §11.5 sharing: one job per canonical id, joined by every trigger. 5 concurrent markdown triggers and
 * 3 PDF triggers for one paper → exactly one arXiv PDF download and one parser submission, and every caller ends
 * with the same bytes. Runs on moto with SVC_OBJ_PUBLIC_ENDPOINT set, so the parser gets a presigned URL.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useMoto } from '../../support/moto.js';
import type { Doubles } from './support/harness.js';
import { addPaper, pollJson } from './support/papers.js';
import { startAccessStack, stopAccessStack, type AccessServer } from './support/server.js';

const moto = useMoto();
let d: Doubles;
let s: AccessServer;

beforeAll(async () => {
  ({ d, s } = await startAccessStack({ SVC_OBJ_PUBLIC_ENDPOINT: moto().endpoint }, { moto: moto() }));
});
afterAll(() => stopAccessStack({ d, s }));

async function bytesOnceReady(path: string): Promise<Buffer> {
  await pollJson(s.get, `${path}/status`, (b) => b.state === 'cached');
  const res = await s.get(path);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

it('5 markdown + 3 PDF triggers → 1 download, 1 submission, the same bytes for everyone', async () => {
  const pdfs = addPaper(d.arxiv, '2503.00001', 2, 512 * 1024);
  d.arxiv.pdfGate.close();
  d.mineru.frozen = true;
  const triggers = [
    ...Array.from({ length: 5 }, () => s.get('/api/papers/2503.00001v2/markdown')),
    ...Array.from({ length: 3 }, () => s.get('/api/papers/2503.00001v2/pdf')),
  ];
  const answers = await Promise.all(triggers);
  expect(answers.map((r) => r.status)).toEqual(Array(8).fill(202));
  const snapshots = await Promise.all(answers.map((r) => r.json() as Promise<Record<string, unknown>>));
  expect(new Set(snapshots.map((b) => b['submitted_at'])).size).toBe(1);
  d.arxiv.pdfGate.open();
  await pollJson(s.get, '/api/papers/2503.00001v2/markdown/status', (b) => b.phase === 'converting_md');
  d.mineru.frozen = false;

  const results = await Promise.all([
    ...Array.from({ length: 5 }, () => bytesOnceReady('/api/papers/2503.00001v2/markdown')),
    ...Array.from({ length: 3 }, () => bytesOnceReady('/api/papers/2503.00001v2/pdf')),
  ]);
  expect(d.arxiv.requestsTo('pdf').filter((r) => r.url === '/pdf/2503.00001v2').length).toBe(1);
  expect(d.mineru.creations.filter((c) => c.dataId === '2503.00001v2')).toEqual([
    { token: 'tok-a', dataId: '2503.00001v2', accepted: true },
  ]);
  for (const md of results.slice(0, 5)) expect(md.toString()).toBe(results[0]!.toString());
  for (const pdf of results.slice(5)) expect(pdf).toEqual(pdfs.get(2));

  // The parser was handed a presigned GET of the stored PDF, signed for the public endpoint (§11.6).
  const task = [...d.mineru.tasks.values()].find((t) => t.request['data_id'] === '2503.00001v2')!;
  const url = new URL(String(task.request['url']));
  expect(url.origin).toBe(moto().endpoint);
  expect(url.pathname).toMatch(/^\/pdf-[0-9a-f]+\/2503\/2503\.00001v2\.pdf$/);
  expect(url.searchParams.get('X-Amz-Expires')).toBe('1800');
  expect(Buffer.from(await (await fetch(url)).arrayBuffer())).toEqual(pdfs.get(2));
  expect(task.request).toMatchObject({
    model_version: 'vlm',
    language: 'ch',
    enable_formula: true,
    enable_table: true,
    is_ocr: false,
    no_cache: false,
    data_id: '2503.00001v2',
  });
});
