/**
 * Issue 9, item 9: the data directory fills up while an upload is being staged (`<SVC_DATA_DIR>/tmp/`, CONTRACT §9.3
 * step 5). The upload fails with a clear server error, the partial staging file is removed, nothing stored before is
 * touched, and the server keeps serving — an upload that fits succeeds right after. SVC_DATA_DIR is a tmpfs of 3 MiB
 * mounted by the test (root). Runs the built `bin/pksd` (`npm run build` first).
 */
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH, pdfBytes, pksdDir, stagingLeftovers, startPksd, uploadPdf } from './support/pksd.js';
import { mountSmallFs, whyCannotMount, type SmallFs } from './support/small-fs.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const cannotMount = whyCannotMount();
if (cannotMount !== null) console.warn(`skipping the disk-full fault test: ${cannotMount}`);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
});

describe.skipIf(cannotMount !== null)('the data directory fills up during staging', () => {
  it('the upload fails cleanly, the partial file is removed, and the server keeps serving', async () => {
    const dir = await pksdDir();
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const fs: SmallFs = mountSmallFs(path.join(dir, 'data'), 3 * 1024 * 1024);
    cleanups.push(() => fs.unmount());
    const p = await startPksd({}, { dir });
    cleanups.push(() => p.remove());

    const a = pdfBytes('paper A', 1024 * 1024);
    expect((await uploadPdf(p, '2501.00001v1', a)).status).toBe(201);

    const big = pdfBytes('paper B', 8 * 1024 * 1024); // more than the whole data file system
    const full = await uploadPdf(p, '2501.00002v1', big);
    // A full disk is the server's condition, not a malformed request: 503, saying why.
    expect(full.status).toBe(503);
    expect(((await full.json()) as { detail: string }).detail).toMatch(/no space left on device/i);
    expect(await stagingLeftovers(p)).toEqual([]);

    // Nothing stored before was touched, nothing half-stored appeared, and the server serves.
    expect(sha(await readFile(path.join(dir, 'raw/pdf/2501/2501.00001v1.pdf')))).toBe(sha(a));
    await expect(readFile(path.join(dir, 'raw/pdf/2501/2501.00002v1.pdf'))).rejects.toThrow(/ENOENT/);
    expect((await p.fetch('/api/health', { headers: AUTH })).status).toBe(200);
    const c = pdfBytes('paper C', 2 * 1024 * 1024);
    const fits = await uploadPdf(p, '2501.00003v1', c);
    expect(fits.status).toBe(201);
    expect(sha(await readFile(path.join(dir, 'raw/pdf/2501/2501.00003v1.pdf')))).toBe(sha(c));
    expect(await stagingLeftovers(p)).toEqual([]);
    expect(await (await p.fetch('/api/papers/stats', { headers: AUTH })).json()).toMatchObject({ total: 2 });
  });
});
