/**
 * Issue 9, item 9: pksd SIGKILLed during a flush of the metadata index (CONTRACT §4.2; local backend: temp file +
 * rename, §3.5). The index file is never torn: whatever the moment of the kill, the next start loads it with every row
 * it held before, and the half-written temp file of the dead process is cleared. The index is large (200,000 rows), so
 * a flush takes long enough to be caught in the act: the kill follows the temp file's appearance by 0–20 ms. Runs the
 * built `bin/pksd` (`npm run build` first).
 */
import { createHash } from 'node:crypto';
import { watch } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVersionedId } from '../../src/shared/ids.js';
import { emptyRow, type IndexRow } from '../../src/server/papers/index/row.js';
import { encodeIndex } from '../../src/server/papers/index-parquet.js';
import { AUTH, pdfBytes, pksdDir, startPksd, uploadPdf, type Pksd } from './support/pksd.js';
import { isRunning } from './support/processes.js';

const ROWS = 200_000;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let dir: string;
let pksd: Pksd | null = null;

/** 200,000 rows of PDFs (the ids 2401.00000v1 … 2402.99999v1). */
function bigIndex(): Buffer {
  const now = new Date('2026-01-01T00:00:00Z');
  const rows: IndexRow[] = [];
  for (let i = 0; i < ROWS; i++) {
    const id = parseVersionedId(`${2401 + Math.floor(i / 100_000)}.${String(i % 100_000).padStart(5, '0')}v1`)!;
    rows.push({ ...emptyRow(id, now), has_pdf: true, pdf_size_bytes: 1000 + i, pdf_uploaded_at: now });
  }
  return encodeIndex(rows);
}

beforeAll(async () => {
  dir = await pksdDir();
  await mkdir(path.join(dir, 'raw/index'), { recursive: true });
  await writeFile(path.join(dir, 'raw/index/papers.parquet'), bigIndex());
});
afterAll(async () => {
  await pksd?.remove();
  await rm(dir, { recursive: true, force: true });
});

const stats = async (p: Pksd) =>
  (await (await p.fetch('/api/papers/stats', { headers: AUTH })).json()) as Record<string, unknown>;

/** Resolves once a new file appears in `tmp`, after SIGKILLing `p` `delayMs` later (synchronously at 0). */
function killOnTempFile(p: Pksd, tmp: string, delayMs: number): Promise<string> {
  return new Promise((resolve) => {
    const watcher = watch(tmp, (_event, name) => {
      if (name === null) return;
      watcher.close();
      const kill = () => p.proc.child.kill('SIGKILL');
      if (delayMs === 0) kill();
      else setTimeout(kill, delayMs);
      resolve(name);
    });
  });
}

describe('SIGKILL during an index flush', () => {
  it.each([0, 1, 3, 8, 20])(
    'killed %i ms into the flush: the next start loads an intact index',
    async (delayMs) => {
      const rawTmp = path.join(dir, 'raw/.tmp');
      pksd = await startPksd({}, { dir, listenTimeoutMs: 60_000 });
      const before = await stats(pksd);
      expect(before['available']).toBe(true);
      const rowsBefore = before['total'] as number;
      expect(rowsBefore).toBeGreaterThanOrEqual(ROWS);

      const id = `2501.${String(delayMs).padStart(5, '0')}v1`;
      const bytes = pdfBytes(`paper ${id}`);
      expect((await uploadPdf(pksd, id, bytes)).status).toBe(201);
      // The upload's own temp file has come and gone; the next one is the index flush (5 s later).
      await mkdir(rawTmp, { recursive: true });
      const flushing = killOnTempFile(pksd, rawTmp, delayMs);
      await flushing;
      await pksd.proc.done;
      expect(isRunning(pksd.proc.child)).toBe(false);
      expect(pksd.proc.child.signalCode).toBe('SIGKILL');

      pksd = await startPksd({}, { dir, listenTimeoutMs: 60_000 });
      const after = await stats(pksd);
      expect(after['available']).toBe(true);
      // Either the old file or the new one, never something in between: every earlier row is there.
      expect([rowsBefore, rowsBefore + 1]).toContain(after['total']);
      expect(sha(await readFile(path.join(dir, 'raw/pdf/2501', `${id}.pdf`)))).toBe(sha(bytes));
      // The dead process's half-written temp file is gone.
      expect(await readdir(rawTmp)).toEqual([]);
      await pksd.stop();
    },
    120_000,
  );
});
