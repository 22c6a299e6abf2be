/**
 * The metadata index across instances (CONTRACT §21: an upload on one instance is in `stats` and `needs-parser` of
 * every other within 15 s). Two indexes on one moto bucket, each with its own PostgreSQL listener, stand for two
 * instances: rows written on each survive both flushes (the second flush loses the ETag compare-and-swap and
 * merges), and each flush is announced, so the other instance reloads at once — the 60 s reload timer is off here,
 * so nothing else could bring the rows over.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { followIndexFlushes } from '../../../src/server/db/notifications-open.js';
import { PostgresNotifications } from '../../../src/server/db/notifications-postgres.js';
import { StoreIndexPersistence } from '../../../src/server/papers/index-parquet.js';
import { PaperIndex } from '../../../src/server/papers/paper-index.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { useMoto } from '../../support/moto.js';
import { usePostgres } from '../../support/postgres.js';
import { s3Fixture, type StoreFixture } from '../storage/backends.js';

const moto = useMoto();
const postgres = usePostgres();
const quiet = pino({ level: 'silent' });
const rowA = requireUploadId('2501.00010v1');
const rowB = requireUploadId('quant-ph/9508027v2');
/** The guarantee (an upload is everywhere within 15 s) less the 5 s flush debounce, which this test skips. */
const RELOADED_WITHIN_MS = 10_000;

describe('index flushes announced to the other instances', () => {
  let fx: StoreFixture;
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
    await fx?.close();
  });

  /** One instance's index: loaded, following the notifications, no reload timer, flushed by hand. */
  const instance = async (id: string): Promise<PaperIndex> => {
    const notifications = PostgresNotifications.start(postgres.url, quiet);
    closing.push(() => notifications.close());
    await notifications.ready;
    const index = new PaperIndex(quiet, new StoreIndexPersistence(fx.store, quiet), { flushDelayMs: 3_600_000 });
    await index.load();
    followIndexFlushes(index, notifications, id, quiet);
    closing.push(() => index.close());
    return index;
  };

  it('each instance’s row survives both flushes, and each instance sees the other’s without a reload timer', async () => {
    fx = await s3Fixture(moto());
    const a = await instance('a');
    const b = await instance('b');
    a.update(rowA, { has_pdf: true, pdf_sha256: 'a'.repeat(64), pdf_uploaded_at: new Date() });
    b.update(rowB, { has_pdf: true, pdf_sha256: 'b'.repeat(64), pdf_uploaded_at: new Date() });
    await a.flush();
    await b.flush(); // loses the compare-and-swap to a's object: merges a's row and writes both

    // Stored: a third reader loads both rows.
    const check = new PaperIndex(quiet, new StoreIndexPersistence(fx.store, quiet));
    await check.load();
    expect(check.get(rowA.id)).toMatchObject({ has_pdf: true, pdf_sha256: 'a'.repeat(64) });
    expect(check.get(rowB.id)).toMatchObject({ has_pdf: true, pdf_sha256: 'b'.repeat(64) });

    // b merged a's row while flushing; a hears b's flush and reloads.
    expect(b.get(rowA.id)).toMatchObject({ has_pdf: true });
    await expect.poll(() => a.get(rowB.id)?.pdf_sha256, { timeout: RELOADED_WITHIN_MS }).toBe('b'.repeat(64));
    for (const index of [a, b]) {
      expect(index.stats()).toMatchObject({ available: true, total: 2, has_pdf: 2, needs_parser: 2 });
      expect([...index.needsParser()].map((r) => r.preprint_id).sort()).toEqual([rowA.id, rowB.id].sort());
    }

    // A later write on b alone reaches a the same way.
    b.update(rowA, { has_md: true });
    await b.flush();
    await expect.poll(() => a.stats().needs_parser, { timeout: RELOADED_WITHIN_MS }).toBe(1);
  });
});
