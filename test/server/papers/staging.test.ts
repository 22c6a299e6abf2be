import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TooLargeError } from '../../../src/shared/domain-errors.js';
import { SourceStreamError, Stager } from '../../../src/server/papers/staging.js';

let dir: string;
let stager: Stager;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-stage-'));
  stager = new Stager(path.join(dir, 'tmp'));
  await stager.start();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('Stager', () => {
  it('streams to disk while hashing; remove() deletes the file', async () => {
    const chunks = [Buffer.from('%PDF-'), Buffer.from('1.7 hello'), Buffer.from(' world')];
    const staged = await stager.stage(Readable.from(chunks), 1000, 'pdf');
    const all = Buffer.concat(chunks);
    expect(staged.size).toBe(all.length);
    expect(staged.sha256).toBe(createHash('sha256').update(all).digest('hex'));
    expect(staged.head).toEqual(all.subarray(0, 8));
    expect(await readFile(staged.path)).toEqual(all);
    await staged.remove();
    await staged.remove();
    expect(await readdir(stager.dir)).toEqual([]);
  });

  it('exactly the limit is accepted; one byte more → 413, the whole source is still consumed, nothing left', async () => {
    expect((await stager.stage(Readable.from([Buffer.alloc(10)]), 10, 'pdf')).size).toBe(10);
    let consumed = 0;
    const source = Readable.from(
      (function* () {
        for (let i = 0; i < 5; i++) {
          consumed++;
          yield Buffer.alloc(4);
        }
      })(),
    );
    const err = await stager.stage(source, 10, 'parser_zip').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooLargeError);
    expect((err as TooLargeError).message).toBe('parser_zip upload exceeds limit of 10 bytes');
    expect(consumed).toBe(5);
    expect((await readdir(stager.dir)).filter((n) => n !== path.basename(stager.dir))).toHaveLength(1); // the accepted one
  });

  it('a source error → SourceStreamError and no file left', async () => {
    const source = new Readable({
      read() {
        this.push(Buffer.from('abc'));
        this.destroy(new Error('Unexpected end of form'));
      },
    });
    await expect(stager.stage(source, 100, 'pdf')).rejects.toBeInstanceOf(SourceStreamError);
    expect(await readdir(stager.dir)).toEqual([]);
  });

  it('start removes stale uploads (> 1 h) and keeps fresh ones', async () => {
    await writeFile(path.join(stager.dir, 'upload-old'), 'x');
    await writeFile(path.join(stager.dir, 'upload-new'), 'y');
    const old = new Date(Date.now() - 2 * 3600_000);
    await utimes(path.join(stager.dir, 'upload-old'), old, old);
    await stager.start();
    expect(await readdir(stager.dir)).toEqual(['upload-new']);
  });
});
