/**
 * Review 2 of the lazily opened index (docs/decisions.md, "the 2.6M-row index opened lazily"): each test is a
 * defect the review reproduced — an ETag recorded for a table the index did not take, a read error taken for a bad
 * file for good, a request answered from the pending-only table after the index was lost under it, a page header
 * that looped for ever or wrote past its row group, a reload that did not make the index available again, a
 * descriptor kept after `close`, and a chmod that forced a 503.
 */
import type * as fs from 'node:fs';
import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Catalog } from '../../../src/server/papers/catalog.js';
import { decodeTable } from '../../../src/server/papers/index/parquet-read.js';
import { paperDetail } from '../../../src/server/papers/paper-detail.js';
import { PaperService } from '../../../src/server/papers/service.js';
import { batchStatus } from '../../../src/server/papers/status-batch.js';
import { UnavailableError } from '../../../src/shared/domain-errors.js';
import { parsePreprintId, type VersionedPreprintId } from '../../../src/shared/ids.js';
import {
  chunkAt,
  corrupt,
  encodeRows as encode,
  indexOver as indexOverIn,
  indexRow as row,
  indexRows as rowsN,
  quiet,
  storedRows,
} from './lazy-index-fixtures.js';
import { openDescriptorCount } from '../../support/descriptors.js';

/** `armed`: the next `readSync` of the process fails once with EIO (a transient disk error). */
const fault = vi.hoisted(() => ({ armed: false }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const readSync = ((...args: Parameters<typeof real.readSync>) => {
    if (fault.armed) {
      fault.armed = false;
      throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5 });
    }
    return (real.readSync as (...a: unknown[]) => number)(...args);
  }) as typeof real.readSync;
  return { ...real, default: { ...real, readSync }, readSync };
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-lazy-review-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const indexOver = (bytes: Buffer) => indexOverIn(dir, bytes);
const id = (s: string) => parsePreprintId(s) as VersionedPreprintId;
const turns = async (n: number) => {
  for (let k = 0; k < n; k++) await new Promise((resolve) => setImmediate(resolve));
};

/** Replaces the index file by a rename, as a writer (another instance) does. */
async function replaceFile(file: string, bytes: Buffer): Promise<void> {
  await writeFile(`${file}.tmp`, bytes);
  await rename(`${file}.tmp`, file);
}

const unavailableError = (err: unknown) => err instanceof UnavailableError && err.retryAfterSeconds === 60;

describe('a reload the index could not take keeps the previous ETag', () => {
  it("a bad chunk hit by the pending writes: the next flush does not overwrite the peer's rows", async () => {
    const { index, file } = await indexOver(encode(rowsN(6), 2));
    await turns(100); // the background check of the first object is done
    index.update(id('2501.00005v1'), { has_md: true }); // pending, a row of group 2
    // Another instance stores its row 7; group 2's `updated_at` chunk of that object (the write sets it) does not decode.
    await replaceFile(file, corrupt(encode([...rowsN(6), row(7, 'peer row')], 2), 2, 'updated_at'));
    await index.reload(); // the pending write hits the bad chunk: the reload fails, the old table stays
    expect(index.available).toBe(true);
    expect(index.get('2501.00007v1')).toBeUndefined();
    await index.reload(); // the object is still not loaded: not "unchanged"
    await expect(index.flush()).rejects.toThrow(); // the CAS loses; the remote object does not decode
    expect(await readFile(file)).toEqual(corrupt(encode([...rowsN(6), row(7, 'peer row')], 2), 2, 'updated_at'));
    await index.close().catch(() => undefined);
  });

  it("one read error while the pending writes are applied: the next tick loads the peer's object", async () => {
    const { index, file, persistence } = await indexOver(encode(rowsN(6), 2));
    await turns(100);
    index.update(id('2501.00005v1'), { has_md: true });
    await replaceFile(file, encode([...rowsN(6), row(7, 'peer row')], 2));
    const reload = persistence.reload.bind(persistence);
    persistence.reload = async () => {
      const result = await reload();
      fault.armed = true; // the first cold read of the new object (row 5's group) fails once
      return result;
    };
    await index.reload();
    persistence.reload = reload;
    expect(fault.armed).toBe(false);
    expect(index.get('2501.00007v1')).toBeUndefined();
    await index.reload(); // the disk reads again
    expect(index.get('2501.00007v1')?.title).toBe('peer row');
    await index.flush();
    const stored = await storedRows(file);
    expect(stored.get('2501.00007v1')?.title).toBe('peer row');
    expect(stored.get('2501.00005v1')?.has_md).toBe(true);
    await index.close();
  });
});

describe('a read error of a cold chunk', () => {
  it('makes the index unavailable until the next reload tick, not for as long as the object is unchanged', async () => {
    const { index } = await indexOver(encode(rowsN(6), 2));
    expect(index.available).toBe(true);
    fault.armed = true; // the background check's next read fails once
    await expect.poll(() => index.available, { timeout: 10_000 }).toBe(false);
    expect(fault.armed).toBe(false);
    await index.reload(); // the 60 s retry: the same object, read fine now
    expect(index.available).toBe(true);
    expect(index.get('2501.00005v1')?.title).toBe('title 5');
    await index.close();
  });
});

describe('a request that awaited while the index was lost answers as the unavailable index', () => {
  /** 40 rows, 2 a group; group 15's titles do not decode (the background check gets there after a while). */
  const lateBadFile = () => corrupt(encode(rowsN(40), 2), 15, 'title');

  it('GET needs-parser: {available: false}, not the pending-only queue', async () => {
    const { index } = await indexOver(lateBadFile());
    expect(index.available).toBe(true);
    index.update(id('2501.00099v1'), { has_pdf: true });
    const claims = {
      active: async () => {
        await turns(2000); // the claims query; the background check reaches group 15 meanwhile
        return new Map();
      },
    };
    const service = new PaperService({
      catalog: new Catalog(index, null, quiet),
      claims,
      config: {},
      logger: quiet,
      store: {},
      stager: {},
    } as unknown as ConstructorParameters<typeof PaperService>[0]);
    const page = await service.needsParser(100, false);
    expect(index.available).toBe(false);
    expect(page).toEqual({ available: false, papers: [], returned: 0, total_unclaimed: 0, total_claimed: 0 });
    await index.close();
  });

  it('GET status/batch: the 503 of an unavailable index, not "nothing stored"', async () => {
    const { index } = await indexOver(lateBadFile());
    const probe = {
      conversionEnabled: true,
      jobsOf: async () => {
        await turns(2000); // the job store's query
        return new Map();
      },
    };
    const error = await batchStatus(index, ['2501.00001v1'], probe).then(
      () => null,
      (err: unknown) => err,
    );
    expect(index.available).toBe(false);
    expect(unavailableError(error)).toBe(true);
    await index.close();
  });

  it('GET /api/papers/{id}: the detail read after an await is the 503 too', async () => {
    const { index } = await indexOver(lateBadFile());
    await expect.poll(() => index.available, { timeout: 10_000 }).toBe(false); // lost after the route's requireIndex
    const error = await paperDetail(
      { index, claims: { activeClaims: async () => new Map() }, metadata: null, engine: null } as never,
      { versionless: '2501.00001', jobId: null, requested: '2501.00001' },
    ).then(
      () => null,
      (err: unknown) => err,
    );
    expect(unavailableError(error)).toBe(true);
    await index.close();
  });
});

describe('page headers that do not fit their chunk or row group are a corrupt file', () => {
  /** Group `g`'s `name` chunk starting with a DATA_PAGE_V2 header of 0 values whose compressed size is negative. */
  function loopingPage(bytes: Buffer, g: number, name: string): Buffer {
    const header = Buffer.from([
      0x15, 0x06, 0x15, 0x00, 0x15, 0x2b, 0x5c, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00,
      0x12, 0x00, 0x00,
    ]);
    const out = Buffer.from(bytes);
    header.copy(out, chunkAt(bytes, g, name).start);
    return out;
  }

  /**
   * The footer says group 0 has 1 row and group 1 has 3 (the pages hold 2 each): group 0's pages would write group
   * 1's first row.
   */
  function shiftedGroups(bytes: Buffer): Buffer {
    const meta = parquetMetadata(new Uint8Array(bytes).buffer);
    const out = Buffer.from(bytes);
    const footerStart = bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8);
    const numRowsAt = (g: number, from: number) => {
      // RowGroup field 2 (`total_byte_size`, i64) then field 3 (`num_rows` = 2, zigzag 0x04), compact protocol.
      let zigzag = BigInt(meta.row_groups[g]!.total_byte_size) * 2n;
      const varint: number[] = [];
      for (; zigzag >= 0x80n; zigzag >>= 7n) varint.push(Number(zigzag & 0x7fn) | 0x80);
      varint.push(Number(zigzag));
      const pattern = Buffer.from([0x16, ...varint, 0x16, 0x04]);
      const at = out.indexOf(pattern, from);
      expect(at).toBeGreaterThan(0);
      return at + pattern.length - 1;
    };
    const first = numRowsAt(0, footerStart);
    const second = numRowsAt(1, first);
    out[first] = 0x02;
    out[second] = 0x06;
    const patched = parquetMetadata(new Uint8Array(out).buffer);
    expect(patched.row_groups.map((g) => Number(g.num_rows))).toEqual([1, 3, 2]);
    return out;
  }

  it('a negative compressed page size: the eager decode throws instead of looping', async () => {
    await expect(decodeTable(loopingPage(encode(rowsN(6), 2), 2, 'title'))).rejects.toThrow(
      /page runs past its column chunk/,
    );
  });

  it('a negative compressed page size in a cold chunk: the index becomes unavailable, the server runs on', async () => {
    const { index } = await indexOver(loopingPage(encode(rowsN(6), 2), 2, 'title'));
    expect(index.available).toBe(true);
    await expect.poll(() => index.available, { timeout: 10_000 }).toBe(false);
    await index.close();
  });

  it('a page with more values than its row group has rows: the decode throws', async () => {
    const bytes = shiftedGroups(encode(rowsN(6), 2));
    await expect(decodeTable(bytes)).rejects.toThrow(/page runs past its row group/);
    const { index } = await indexOver(bytes);
    expect(index.available).toBe(false);
    await index.close();
  });
});

describe('a reload of a good object after the loaded table failed under it', () => {
  it('installs the table and makes the index available again', async () => {
    const { index, file, persistence } = await indexOver(corrupt(encode(rowsN(6), 2), 2, 'title'));
    // Replaced in this turn: the background check has not reached group 2 yet, the index is available.
    writeFileSync(`${file}.tmp`, encode(rowsN(7, 'peer'), 2));
    renameSync(`${file}.tmp`, file);
    expect(index.available).toBe(true);
    const reload = persistence.reload.bind(persistence);
    persistence.reload = async () => {
      // A request reads a row of the bad group while the reload awaits the store.
      expect(() => index.get('2501.00005v1')).toThrow(UnavailableError);
      return reload();
    };
    await index.reload();
    expect(index.get('2501.00007v1')?.title).toBe('peer 7');
    expect(index.stats()).toMatchObject({ available: true, total: 7 });
    await index.close();
  });
});

describe('close', () => {
  it('gives the descriptor of a partly decoded table back', async () => {
    const start = openDescriptorCount();
    for (let k = 0; k < 5; k++) {
      const { index } = await indexOver(encode(rowsN(6), 2));
      await turns(100);
      expect(index.get('2501.00001v1')?.title).toBe('title 1'); // group 0 decoded, groups 1 and 2 not
      await index.close();
    }
    expect(openDescriptorCount() - start).toBe(0);
  });
});

describe('a metadata-only change of the index file (chmod, chown, a hard link: the ctime moves, not the bytes)', () => {
  it('a read of a group not decoded yet still answers the row', async () => {
    const { index, file } = await indexOver(encode(rowsN(6), 2));
    chmodSync(file, 0o640);
    expect(index.get('2501.00005v1')?.title).toBe('title 5');
    expect(index.available).toBe(true);
    chmodSync(file, 0o600); // a second change, after the new baseline
    expect(index.get('2501.00003v1')?.title).toBe('title 3');
    await index.close();
  });
});
