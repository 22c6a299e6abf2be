/**
 * Validation and extraction of a parser result zip (CONTRACT §9.4 step 7 and the extraction rules).
 *
 * Everything is validated before any write: names (zip-slip), symlinks, entry count, declared and actual
 * uncompressed totals, compression ratio, per-file caps. Sizes are enforced while inflating: a stream is cut as
 * soon as a limit is crossed, whatever the central directory declares.
 */
import { createHash } from 'node:crypto';
import * as yauzl from 'yauzl';
import { DomainError, InvalidInputError, TooLargeError } from '../../shared/domain-errors.js';
import { fileAndDirectory, imageNameProblem } from './zip-bundle-names.js';

export const ZIP_LIMITS = {
  maxEntries: 10_000,
  maxTotalUncompressed: 1024 * 1024 * 1024,
  maxRatio: 100,
  maxMarkdownBytes: 26_214_400,
  maxImageBytes: 26_214_400,
  maxSegmentLength: 255,
} as const;

export type ZipLimits = { readonly [K in keyof typeof ZIP_LIMITS]: number };

export interface BundleFile {
  /** Name in the zip. */
  readonly entryName: string;
  readonly size: number;
  readonly sha256: string;
}

export interface BundleImage extends BundleFile {
  /** Path relative to the bundle's `images/` directory (the object key suffix). */
  readonly file: string;
}

export interface ValidatedBundle {
  readonly markdown: BundleFile;
  /** Sorted by `file`. */
  readonly images: readonly BundleImage[];
  /** Reads one validated entry fully (≤ the per-file cap), verifying its hash. */
  read(file: BundleFile): Promise<Buffer>;
  close(): void;
}

const bad = (detail: string) => new InvalidInputError(detail);

const getFileNameLowLevel = (
  yauzl as unknown as {
    getFileNameLowLevel(flag: number, raw: Buffer, extraFields: unknown[], strict: boolean): string;
  }
).getFileNameLowLevel;

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true, strictFileNames: true },
      (err, zip) => (err ? reject(err) : resolve(zip)),
    );
  });
}

function readAllEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', reject);
    zip.readEntry();
  });
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream)));
  });
}

/** Why a name is unsafe, or `null`. */
export function unsafeNameReason(name: string): string | null {
  if (name.includes('\0')) return 'contains NUL';
  if (name.includes('\\')) return 'contains \\';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'absolute path';
  if (name.split('/').some((s) => s === '..')) return 'contains a .. segment';
  return null;
}

/** Unix hosts store `st_mode` in the high word of the external attributes; `S_IFLNK` marks a symlink. */
function isSymlink(entry: yauzl.Entry): boolean {
  return ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
}

interface NamedEntry {
  readonly entry: yauzl.Entry;
  readonly name: string;
  readonly isDir: boolean;
}

/** The entries the bundle is made of: the markdown and the images under its `images/` directory. */
interface BundleLayout {
  readonly markdown: NamedEntry;
  /** Sorted by `file`. */
  readonly images: readonly { readonly e: NamedEntry; readonly file: string }[];
}

/** The per-file cap of an entry and the error for crossing it; `null` for entries that are not stored. */
type CapOf = (e: NamedEntry) => { readonly cap: number; readonly tooLarge: () => TooLargeError } | null;

/** Names (zip-slip), symlinks and declared sizes, before anything is inflated. */
function checkEntries(rawEntries: readonly yauzl.Entry[], zipSize: number, limits: ZipLimits): NamedEntry[] {
  const entries: NamedEntry[] = [];
  let declaredTotal = 0;
  for (const entry of rawEntries) {
    const raw = entry.fileName as unknown as Buffer;
    const name = getFileNameLowLevel(entry.generalPurposeBitFlag, raw, entry.extraFields, true);
    const reason = unsafeNameReason(name);
    if (reason !== null) throw bad(`unsafe entry name in zip: ${JSON.stringify(name)} (${reason})`);
    if (isSymlink(entry)) throw bad(`zip contains a symlink entry: ${JSON.stringify(name)}`);
    declaredTotal += entry.uncompressedSize;
    entries.push({ entry, name, isDir: name.endsWith('/') });
  }
  if (declaredTotal > limits.maxTotalUncompressed) {
    throw bad(`zip uncompressed size exceeds ${limits.maxTotalUncompressed} bytes`);
  }
  if (declaredTotal > limits.maxRatio * zipSize) throw bad(`zip compression ratio exceeds ${limits.maxRatio}`);
  return entries;
}

/**
 * `full.md` is the entry with base name exactly `full.md` at the shallowest depth (ties: first in the central
 * directory); images are the files under the `images/` directory next to it.
 */
function findLayout(entries: readonly NamedEntry[], limits: ZipLimits): BundleLayout {
  let markdown: NamedEntry | null = null;
  let markdownDepth = Infinity;
  for (const e of entries) {
    if (e.isDir) continue;
    const segments = e.name.split('/');
    if (segments.at(-1) !== 'full.md') continue;
    if (segments.length < markdownDepth) {
      markdown = e;
      markdownDepth = segments.length;
    }
  }
  if (markdown === null) throw bad('zip has no full.md');
  const imagesPrefix = `${markdown.name.slice(0, markdown.name.length - 'full.md'.length)}images/`;

  const images: { e: NamedEntry; file: string }[] = [];
  for (const e of entries) {
    if (e.isDir || !e.name.startsWith(imagesPrefix)) continue;
    const file = e.name.slice(imagesPrefix.length);
    const problem = imageNameProblem(file, limits.maxSegmentLength);
    if (problem !== null) throw bad(`invalid image name in zip: ${JSON.stringify(e.name)} (${problem})`);
    images.push({ e, file });
  }
  images.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  for (let i = 1; i < images.length; i++) {
    if (images[i]!.file === images[i - 1]!.file)
      throw bad(`duplicate image in zip: ${JSON.stringify(images[i]!.e.name)}`);
  }
  const both = fileAndDirectory(images.map((i) => i.file));
  if (both !== null)
    throw bad(`image name is both a file and a directory in zip: ${JSON.stringify(imagesPrefix + both)}`);
  return { markdown, images };
}

function capsOf(layout: BundleLayout, limits: ZipLimits): CapOf {
  const markdownCap = {
    cap: limits.maxMarkdownBytes,
    tooLarge: () => new TooLargeError(`full.md exceeds limit of ${limits.maxMarkdownBytes} bytes`),
  };
  // A set, not a search of the image list per entry: that was quadratic at the 10,000-entry limit.
  const images = new Set(layout.images.map((i) => i.e));
  return (e) => {
    if (e === layout.markdown) return markdownCap;
    if (!images.has(e)) return null;
    return {
      cap: limits.maxImageBytes,
      tooLarge: () =>
        new TooLargeError(`image ${JSON.stringify(e.name)} exceeds limit of ${limits.maxImageBytes} bytes`),
    };
  };
}

/**
 * Inflates every entry once, counting: per-file caps, actual total, actual ratio. Resolves to the size and
 * sha256 of every stored entry (the markdown and the images).
 */
async function inflateAll(
  zip: yauzl.ZipFile,
  entries: readonly NamedEntry[],
  capOf: CapOf,
  zipSize: number,
  limits: ZipLimits,
): Promise<Map<NamedEntry, { size: number; sha256: string }>> {
  const hashes = new Map<NamedEntry, { size: number; sha256: string }>();
  let actualTotal = 0;
  for (const e of entries) {
    if (e.isDir) continue;
    const cap = capOf(e);
    const hash = cap ? createHash('sha256') : null;
    let size = 0;
    let stream: NodeJS.ReadableStream;
    try {
      stream = await openEntry(zip, e.entry);
    } catch (err) {
      throw bad(`unreadable zip: ${(err as Error).message}`);
    }
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        size += chunk.length;
        actualTotal += chunk.length;
        if (cap && size > cap.cap) throw cap.tooLarge();
        if (actualTotal > limits.maxTotalUncompressed) {
          throw bad(`zip uncompressed size exceeds ${limits.maxTotalUncompressed} bytes`);
        }
        if (actualTotal > limits.maxRatio * zipSize) throw bad(`zip compression ratio exceeds ${limits.maxRatio}`);
        hash?.update(chunk);
      }
    } catch (err) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      if (err instanceof DomainError) throw err;
      throw bad(`unreadable zip: ${(err as Error).message}`);
    }
    if (hash) hashes.set(e, { size, sha256: hash.digest('hex') });
  }
  return hashes;
}

/** Reads one validated entry fully, failing if its bytes differ from what validation saw. */
async function readEntry(zip: yauzl.ZipFile, e: NamedEntry, file: BundleFile): Promise<Buffer> {
  const stream = await openEntry(zip, e.entry);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > file.size) throw new Error(`entry ${file.entryName} changed while reading`);
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks);
  if (createHash('sha256').update(bytes).digest('hex') !== file.sha256) {
    throw new Error(`entry ${file.entryName} changed while reading`);
  }
  return bytes;
}

/**
 * Validates the zip at `path` (`zipSize` bytes on disk). Throws `InvalidInputError` (a bad or unsafe zip) or
 * `TooLargeError` (a file over its cap) with the reason; on success the caller must `close()` the bundle.
 */
export async function validateBundle(
  path: string,
  zipSize: number,
  limits: ZipLimits = ZIP_LIMITS,
): Promise<ValidatedBundle> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch (err) {
    throw bad(`unreadable zip: ${(err as Error).message}`);
  }
  let keep = false;
  try {
    if (zip.entryCount > limits.maxEntries) throw bad(`zip has more than ${limits.maxEntries} entries`);
    let rawEntries: yauzl.Entry[];
    try {
      rawEntries = await readAllEntries(zip);
    } catch (err) {
      throw bad(`unreadable zip: ${(err as Error).message}`);
    }
    if (rawEntries.length > limits.maxEntries) throw bad(`zip has more than ${limits.maxEntries} entries`);

    const entries = checkEntries(rawEntries, zipSize, limits);
    const layout = findLayout(entries, limits);
    const capOf = capsOf(layout, limits);
    // Declared sizes over a cap fail early (actual sizes are enforced while inflating regardless).
    for (const e of [layout.markdown, ...layout.images.map((i) => i.e)]) {
      const cap = capOf(e)!;
      if (e.entry.uncompressedSize > cap.cap) throw cap.tooLarge();
    }
    const hashes = await inflateAll(zip, entries, capOf, zipSize, limits);

    const fileOf = (e: NamedEntry): BundleFile => ({ entryName: e.name, ...hashes.get(e)! });
    const byName = new Map<string, NamedEntry>(entries.map((e) => [e.name, e]));
    const bundle: ValidatedBundle = {
      markdown: fileOf(layout.markdown),
      images: layout.images.map(({ e, file }) => ({ ...fileOf(e), file })),
      read(file: BundleFile): Promise<Buffer> {
        const e = byName.get(file.entryName);
        if (!e) return Promise.reject(new Error(`no entry ${file.entryName}`));
        return readEntry(zip, e, file);
      },
      close: () => zip.close(),
    };
    keep = true;
    return bundle;
  } finally {
    if (!keep) zip.close();
  }
}
