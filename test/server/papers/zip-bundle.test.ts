/**
 * Parser zip validation (CONTRACT §9.4 step 7 and extraction rules): a malicious corpus, each refused with its
 * reason before anything could be written; plus extraction of well-formed bundles.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError, InvalidInputError, TooLargeError } from '../../../src/shared/domain-errors.js';
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
): Promise<DomainError> {
  const err = await validate(entries, limits).then(
    (b) => {
      b.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

const md = { name: 'full.md', content: '# Paper\n' };

type ErrorClass = typeof InvalidInputError | typeof TooLargeError;

describe('malicious zip corpus', () => {
  const cases: [string, readonly ZipEntrySpec[] | Buffer, ErrorClass, string | RegExp][] = [
    ['not a zip at all', Buffer.from('PK this is not a zip'), InvalidInputError, /^unreadable zip: /],
    [
      'truncated zip',
      makeZip([md, { name: 'images/a.png', content: 'x'.repeat(100) }]).subarray(0, 60),
      InvalidInputError,
      /^unreadable zip: /,
    ],
    [
      'zip-slip ../',
      [md, { name: 'images/../../etc/passwd', content: 'x' }],
      InvalidInputError,
      'unsafe entry name in zip: "images/../../etc/passwd" (contains a .. segment)',
    ],
    [
      'zip-slip leading ..',
      [md, { name: '../full.md', content: 'x' }],
      InvalidInputError,
      'unsafe entry name in zip: "../full.md" (contains a .. segment)',
    ],
    [
      'absolute path',
      [md, { name: '/etc/passwd', content: 'x' }],
      InvalidInputError,
      'unsafe entry name in zip: "/etc/passwd" (absolute path)',
    ],
    [
      'drive letter',
      [md, { name: 'C:/windows/x', content: 'x' }],
      InvalidInputError,
      'unsafe entry name in zip: "C:/windows/x" (absolute path)',
    ],
    [
      'drive letter relative',
      [md, { name: 'C:x', content: 'x' }],
      InvalidInputError,
      'unsafe entry name in zip: "C:x" (absolute path)',
    ],
    [
      'backslash',
      [md, { name: 'images\\..\\x.png', content: 'x' }],
      InvalidInputError,
      'unsafe entry name in zip: "images\\\\..\\\\x.png" (contains \\)',
    ],
    [
      'NUL in name',
      [md, { name: 'images/a\0.png', content: 'x' }],
      InvalidInputError,
      'unsafe entry name in zip: "images/a\\u0000.png" (contains NUL)',
    ],
    [
      'symlink entry',
      [md, { name: 'images/link.png', content: '/etc/passwd', mode: 0o120777 }],
      InvalidInputError,
      'zip contains a symlink entry: "images/link.png"',
    ],
    [
      'symlink outside images',
      [md, { name: 'evil', content: '/', mode: 0o120755 }],
      InvalidInputError,
      'zip contains a symlink entry: "evil"',
    ],
    [
      'no full.md',
      [
        { name: 'result.md', content: '# x' },
        { name: 'images/a.png', content: 'x' },
      ],
      InvalidInputError,
      'zip has no full.md',
    ],
    ['full.md only as a directory', [{ name: 'full.md/', content: '' }], InvalidInputError, 'zip has no full.md'],
    ['FULL.md is not full.md', [{ name: 'FULL.md', content: '# x' }], InvalidInputError, 'zip has no full.md'],
    [
      'too many entries',
      [md, ...Array.from({ length: 10_000 }, (_, i) => ({ name: `junk/${i}`, content: '', store: true }))],
      InvalidInputError,
      'zip has more than 10000 entries',
    ],
    [
      'compression bomb (ratio > 100)',
      [md, { name: 'bomb.bin', content: Buffer.alloc(8 << 20) }],
      InvalidInputError,
      'zip compression ratio exceeds 100',
    ],
    [
      'declared total > 1 GiB',
      [md, { name: 'a.bin', content: 'x'.repeat(100), declaredSize: 0xffff_fff0 }],
      InvalidInputError,
      'zip uncompressed size exceeds 1073741824 bytes',
    ],
    [
      'lying declared size (actual bigger than declared)',
      [md, { name: 'images/a.png', content: Buffer.alloc(4096, 1), declaredSize: 10 }],
      InvalidInputError,
      /^unreadable zip: /,
    ],
    [
      'empty image segment',
      [md, { name: 'images//a.png', content: 'x' }],
      InvalidInputError,
      'invalid image name in zip: "images//a.png" (empty path segment)',
    ],
    [
      'image segment > 255 characters',
      [md, { name: `images/${'a'.repeat(256)}.png`, content: 'x' }],
      InvalidInputError,
      `invalid image name in zip: "images/${'a'.repeat(256)}.png" (a path segment longer than 255 characters)`,
    ],
    [
      'image segment too long for a file system with its metadata sidecar (> 245 bytes)',
      [md, { name: `images/${'a'.repeat(242)}.png`, content: 'x' }],
      InvalidInputError,
      `invalid image name in zip: "images/${'a'.repeat(242)}.png" (a path segment longer than 245 bytes)`,
    ],
    [
      'image segment of multi-byte characters over 245 bytes',
      [md, { name: `images/${'é'.repeat(123)}.png`, content: 'x' }],
      InvalidInputError,
      `invalid image name in zip: "images/${'é'.repeat(123)}.png" (a path segment longer than 245 bytes)`,
    ],
    [
      'image name of 20 segments of 255 characters',
      [md, { name: `images/${Array.from({ length: 20 }, () => 'b'.repeat(255)).join('/')}`, content: 'x' }],
      InvalidInputError,
      `invalid image name in zip: "images/${Array.from({ length: 20 }, () => 'b'.repeat(255)).join('/')}" (longer than 900 bytes)`,
    ],
    [
      'image name over 900 bytes of short segments',
      [md, { name: `images/${Array.from({ length: 100 }, () => 'abcdefghi').join('/')}.png`, content: 'x' }],
      InvalidInputError,
      /^invalid image name in zip: ".*" \(longer than 900 bytes\)$/,
    ],
    [
      "image named like the local store's metadata sidecar",
      [md, { name: 'images/a.png', content: 'x' }, { name: 'images/a.png.meta.json', content: '{"sha256":"0"}' }],
      InvalidInputError,
      'invalid image name in zip: "images/a.png.meta.json" (ends in the reserved .meta.json)',
    ],
    [
      'sidecar suffix in another case',
      [md, { name: 'images/b.META.JSON', content: '{}' }],
      InvalidInputError,
      'invalid image name in zip: "images/b.META.JSON" (ends in the reserved .meta.json)',
    ],
    [
      'sidecar suffix on a directory',
      [md, { name: 'images/q.png.meta.json/x.png', content: 'x' }],
      InvalidInputError,
      'invalid image name in zip: "images/q.png.meta.json/x.png" (ends in the reserved .meta.json)',
    ],
    [
      'an image that is also a directory',
      [md, { name: 'images/q.png', content: 'x' }, { name: 'images/q.png/b.png', content: 'y' }],
      InvalidInputError,
      'image name is both a file and a directory in zip: "images/q.png"',
    ],
    [
      'an image that is also a deeper directory',
      [md, { name: 'images/d/e/f.png', content: 'x' }, { name: 'images/d', content: 'y' }],
      InvalidInputError,
      'image name is both a file and a directory in zip: "images/d"',
    ],
  ];
  it.each(cases)('%s', async (_label, entries, errorClass, detail) => {
    const err = await rejection(entries);
    expect(err).toBeInstanceOf(errorClass);
    if (typeof detail === 'string') expect(err.message).toBe(detail);
    else expect(err.message).toMatch(detail);
  });

  it('full.md over the cap → 413 (declared)', async () => {
    const err = await rejection([{ name: 'full.md', content: 'x'.repeat(2000), store: true }], {
      ...ZIP_LIMITS,
      maxMarkdownBytes: 1000,
    });
    expect(err).toBeInstanceOf(TooLargeError);
    expect(err.message).toBe('full.md exceeds limit of 1000 bytes');
  });

  it('image over the cap → 413 (declared)', async () => {
    const err = await rejection([md, { name: 'images/big.png', content: 'x'.repeat(2000), store: true }], {
      ...ZIP_LIMITS,
      maxImageBytes: 1000,
    });
    expect(err).toBeInstanceOf(TooLargeError);
    expect(err.message).toBe('image "images/big.png" exceeds limit of 1000 bytes');
  });

  it('caps are enforced while inflating even when the declared size is under the cap', async () => {
    // Declared 100 bytes, actual 5000: the stream is cut at the first byte over a limit.
    const err = await rejection([{ name: 'full.md', content: 'y'.repeat(5000), store: true, declaredSize: 100 }], {
      ...ZIP_LIMITS,
      maxMarkdownBytes: 1000,
    });
    // Cut by the cap (413) or by yauzl's own size check (400): either way refused as the client's fault.
    expect(err.kind).toMatch(/^(too_large|invalid_input)$/);
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
    expect(err).toBeInstanceOf(InvalidInputError);
    expect(err.message).toBe('zip uncompressed size exceeds 4000 bytes');
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

  it('a bundle at the entry limit: full.md and 9,999 images, each hashed', async () => {
    const images = Array.from({ length: 9_999 }, (_, i) => ({ name: `images/${i}.png`, content: `img ${i}` }));
    const bundle = await validate([md, ...images]);
    try {
      expect(bundle.images).toHaveLength(9_999);
      const byFile = new Map(bundle.images.map((i) => [i.file, i.sha256]));
      expect(byFile.get('0.png')).toBe(sha('img 0'));
      expect(byFile.get('9998.png')).toBe(sha('img 9998'));
    } finally {
      bundle.close();
    }
  });

  it('a bundle without images is fine', async () => {
    const bundle = await validate([md]);
    expect(bundle.images).toEqual([]);
    bundle.close();
  });

  it('names at the limits are accepted: 245-byte segments, 900 bytes in all, sidecar-like but not the suffix', async () => {
    const longest = 'c'.repeat(241) + '.png';
    const deep = `${Array.from({ length: 3 }, () => 'd'.repeat(245)).join('/')}/${'e'.repeat(900 - 3 * 246 - 4)}.png`;
    expect(Buffer.byteLength(deep)).toBe(900);
    const names = [longest, deep, 'a.meta.json.png', 'meta.json', 'x/y.png'];
    const bundle = await validate([md, ...names.map((n) => ({ name: `images/${n}`, content: n }))]);
    expect(bundle.images.map((i) => i.file)).toEqual([...names].sort());
    bundle.close();
  });
});
