/**
 * Parser zip validation (CONTRACT §9.4 step 7 and extraction rules): a malicious corpus, each refused with its
 * reason before anything could be written; plus extraction of well-formed bundles.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../../src/shared/errors.js';
import { validateBundle, ZIP_LIMITS, type ZipLimits } from '../../../src/server/papers/zip-bundle.js';
import { makeZip, type ZipEntrySpec } from './zip.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-zip-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function zipFile(bytes: Buffer): Promise<{ file: string; size: number }> {
  const file = path.join(dir, `z${++n}.zip`);
  await writeFile(file, bytes);
  return { file, size: bytes.length };
}

async function validate(entries: readonly ZipEntrySpec[] | Buffer, limits: ZipLimits = ZIP_LIMITS) {
  const { file, size } = await zipFile(Buffer.isBuffer(entries) ? entries : makeZip(entries));
  return validateBundle(file, size, limits);
}

async function rejection(
  entries: readonly ZipEntrySpec[] | Buffer,
  limits: ZipLimits = ZIP_LIMITS,
): Promise<HttpError> {
  const err = await validate(entries, limits).then(
    (b) => {
      b.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpError);
  return err as HttpError;
}

const md = { name: 'full.md', content: '# Paper\n' };

describe('malicious zip corpus', () => {
  const cases: [string, readonly ZipEntrySpec[] | Buffer, number, string | RegExp][] = [
    ['not a zip at all', Buffer.from('PK this is not a zip'), 400, /^unreadable zip: /],
    [
      'truncated zip',
      makeZip([md, { name: 'images/a.png', content: 'x'.repeat(100) }]).subarray(0, 60),
      400,
      /^unreadable zip: /,
    ],
    [
      'zip-slip ../',
      [md, { name: 'images/../../etc/passwd', content: 'x' }],
      400,
      'unsafe entry name in zip: "images/../../etc/passwd" (contains a .. segment)',
    ],
    [
      'zip-slip leading ..',
      [md, { name: '../full.md', content: 'x' }],
      400,
      'unsafe entry name in zip: "../full.md" (contains a .. segment)',
    ],
    [
      'absolute path',
      [md, { name: '/etc/passwd', content: 'x' }],
      400,
      'unsafe entry name in zip: "/etc/passwd" (absolute path)',
    ],
    [
      'drive letter',
      [md, { name: 'C:/windows/x', content: 'x' }],
      400,
      'unsafe entry name in zip: "C:/windows/x" (absolute path)',
    ],
    [
      'drive letter relative',
      [md, { name: 'C:x', content: 'x' }],
      400,
      'unsafe entry name in zip: "C:x" (absolute path)',
    ],
    [
      'backslash',
      [md, { name: 'images\\..\\x.png', content: 'x' }],
      400,
      'unsafe entry name in zip: "images\\\\..\\\\x.png" (contains \\)',
    ],
    [
      'NUL in name',
      [md, { name: 'images/a\0.png', content: 'x' }],
      400,
      'unsafe entry name in zip: "images/a\\u0000.png" (contains NUL)',
    ],
    [
      'symlink entry',
      [md, { name: 'images/link.png', content: '/etc/passwd', mode: 0o120777 }],
      400,
      'zip contains a symlink entry: "images/link.png"',
    ],
    [
      'symlink outside images',
      [md, { name: 'evil', content: '/', mode: 0o120755 }],
      400,
      'zip contains a symlink entry: "evil"',
    ],
    [
      'no full.md',
      [
        { name: 'result.md', content: '# x' },
        { name: 'images/a.png', content: 'x' },
      ],
      400,
      'zip has no full.md',
    ],
    ['full.md only as a directory', [{ name: 'full.md/', content: '' }], 400, 'zip has no full.md'],
    ['FULL.md is not full.md', [{ name: 'FULL.md', content: '# x' }], 400, 'zip has no full.md'],
    [
      'too many entries',
      [md, ...Array.from({ length: 10_000 }, (_, i) => ({ name: `junk/${i}`, content: '', store: true }))],
      400,
      'zip has more than 10000 entries',
    ],
    [
      'compression bomb (ratio > 100)',
      [md, { name: 'bomb.bin', content: Buffer.alloc(8 << 20) }],
      400,
      'zip compression ratio exceeds 100',
    ],
    [
      'declared total > 1 GiB',
      [md, { name: 'a.bin', content: 'x'.repeat(100), declaredSize: 0xffff_fff0 }],
      400,
      'zip uncompressed size exceeds 1073741824 bytes',
    ],
    [
      'lying declared size (actual bigger than declared)',
      [md, { name: 'images/a.png', content: Buffer.alloc(4096, 1), declaredSize: 10 }],
      400,
      /^unreadable zip: /,
    ],
    [
      'empty image segment',
      [md, { name: 'images//a.png', content: 'x' }],
      400,
      'invalid image name in zip: "images//a.png"',
    ],
    [
      'image segment > 255',
      [md, { name: `images/${'a'.repeat(256)}.png`, content: 'x' }],
      400,
      /^invalid image name in zip: /,
    ],
  ];
  it.each(cases)('%s', async (_label, entries, status, detail) => {
    const err = await rejection(entries);
    expect(err.status).toBe(status);
    if (typeof detail === 'string') expect(err.body).toEqual({ detail });
    else expect(String(err.body['detail'])).toMatch(detail);
  });

  it('full.md over the cap → 413 (declared)', async () => {
    const err = await rejection([{ name: 'full.md', content: 'x'.repeat(2000), store: true }], {
      ...ZIP_LIMITS,
      maxMarkdownBytes: 1000,
    });
    expect(err.status).toBe(413);
    expect(err.body).toEqual({ detail: 'full.md exceeds limit of 1000 bytes' });
  });

  it('image over the cap → 413 (declared)', async () => {
    const err = await rejection([md, { name: 'images/big.png', content: 'x'.repeat(2000), store: true }], {
      ...ZIP_LIMITS,
      maxImageBytes: 1000,
    });
    expect(err.status).toBe(413);
    expect(err.body).toEqual({ detail: 'image "images/big.png" exceeds limit of 1000 bytes' });
  });

  it('caps are enforced while inflating even when the declared size is under the cap', async () => {
    // Declared 100 bytes, actual 5000: the stream is cut at the first byte over a limit.
    const err = await rejection([{ name: 'full.md', content: 'y'.repeat(5000), store: true, declaredSize: 100 }], {
      ...ZIP_LIMITS,
      maxMarkdownBytes: 1000,
    });
    expect(err.status).toBeGreaterThanOrEqual(400);
    expect(err.status).toBeLessThan(500);
  });

  it('actual total over the limit is caught while inflating', async () => {
    const err = await rejection(
      [
        md,
        { name: 'a.bin', content: Buffer.alloc(3000, 7), store: true },
        { name: 'b.bin', content: Buffer.alloc(3000, 7), store: true },
      ],
      { ...ZIP_LIMITS, maxTotalUncompressed: 4000 },
    );
    expect(err.body).toEqual({ detail: 'zip uncompressed size exceeds 4000 bytes' });
  });
});

describe('extraction rules', () => {
  it('shallowest full.md wins; images relative to its images/ dir; everything else ignored', async () => {
    const bundle = await validate([
      { name: 'out/deep/full.md', content: 'deep' },
      { name: 'out/full.md', content: 'shallow' },
      { name: 'other/full.md', content: 'tie, later' },
      { name: 'out/images/', content: '' },
      { name: 'out/images/b.png', content: 'B' },
      { name: 'out/images/sub/a.jpg', content: 'A' },
      { name: 'images/ignored.png', content: 'no' },
      { name: 'out/layout.json', content: '{}' },
      { name: 'out/deep/images/x.png', content: 'no' },
    ]);
    try {
      expect(bundle.markdown).toEqual({ entryName: 'out/full.md', size: 7, sha256: sha('shallow') });
      expect(bundle.images.map((i) => [i.file, i.sha256])).toEqual([
        ['b.png', sha('B')],
        ['sub/a.jpg', sha('A')],
      ]);
      expect((await bundle.read(bundle.markdown)).toString()).toBe('shallow');
      expect((await bundle.read(bundle.images[1]!)).toString()).toBe('A');
    } finally {
      bundle.close();
    }
  });

  it('ties at the same depth → first in the central directory', async () => {
    const bundle = await validate([
      { name: 'b/full.md', content: 'first' },
      { name: 'a/full.md', content: 'second' },
    ]);
    expect(bundle.markdown.entryName).toBe('b/full.md');
    bundle.close();
  });

  it('a bundle without images is fine', async () => {
    const bundle = await validate([md]);
    expect(bundle.images).toEqual([]);
    bundle.close();
  });
});
