/**
 * Validation and extraction of a parser result zip (CONTRACT §9.4 step 7 and the extraction rules).
 *
 * Everything is validated before any write: names (zip-slip), symlinks, entry count, declared and actual
 * uncompressed totals, compression ratio, per-file caps. Sizes are enforced while inflating: a stream is cut as
 * soon as a limit is crossed, whatever the central directory declares.
 */
import { createHash } from 'node:crypto';
import * as yauzl from 'yauzl';
import { HttpError } from '../../shared/errors.js';

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

const bad = (detail: string) => new HttpError(400, detail);

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

/**
 * Validates the zip at `path` (`zipSize` bytes on disk). Throws `HttpError` 400/413 with the reason; on success
 * the caller must `close()` the bundle.
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

    // Names, symlinks, declared sizes.
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

    // full.md: base name exactly full.md, the shallowest; ties → first in the central directory.
    let markdown: NamedEntry | null = null;
    for (const e of entries) {
      if (e.isDir) continue;
      const segments = e.name.split('/');
      if (segments.at(-1) !== 'full.md') continue;
      if (markdown === null || segments.length < markdown.name.split('/').length) markdown = e;
    }
    if (markdown === null) throw bad('zip has no full.md');
    const mdDir = markdown.name.slice(0, markdown.name.length - 'full.md'.length);
    const imagesPrefix = `${mdDir}images/`;

    const imageEntries: { e: NamedEntry; file: string }[] = [];
    for (const e of entries) {
      if (e.isDir || !e.name.startsWith(imagesPrefix)) continue;
      const file = e.name.slice(imagesPrefix.length);
      const segments = file.split('/');
      if (segments.some((s) => s.length < 1 || s.length > limits.maxSegmentLength || s === '.')) {
        throw bad(`invalid image name in zip: ${JSON.stringify(e.name)}`);
      }
      imageEntries.push({ e, file });
    }
    imageEntries.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    const seen = new Set<string>();
    for (const { e, file } of imageEntries) {
      if (seen.has(file)) throw bad(`duplicate image in zip: ${JSON.stringify(e.name)}`);
      seen.add(file);
    }

    const capOf = (e: NamedEntry): { cap: number; tooLarge: () => HttpError } | null => {
      if (e === markdown) {
        return {
          cap: limits.maxMarkdownBytes,
          tooLarge: () => new HttpError(413, `full.md exceeds limit of ${limits.maxMarkdownBytes} bytes`),
        };
      }
      if (imageEntries.some((i) => i.e === e)) {
        return {
          cap: limits.maxImageBytes,
          tooLarge: () =>
            new HttpError(413, `image ${JSON.stringify(e.name)} exceeds limit of ${limits.maxImageBytes} bytes`),
        };
      }
      return null;
    };
    // Declared sizes over a cap fail early (actual sizes are enforced below regardless).
    for (const e of [markdown, ...imageEntries.map((i) => i.e)]) {
      const cap = capOf(e)!;
      if (e.entry.uncompressedSize > cap.cap) throw cap.tooLarge();
    }

    // Inflate everything once, counting: per-file caps, actual total, actual ratio.
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
          if (actualTotal > limits.maxTotalUncompressed)
            throw bad(`zip uncompressed size exceeds ${limits.maxTotalUncompressed} bytes`);
          if (actualTotal > limits.maxRatio * zipSize) throw bad(`zip compression ratio exceeds ${limits.maxRatio}`);
          hash?.update(chunk);
        }
      } catch (err) {
        (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
        if (err instanceof HttpError) throw err;
        throw bad(`unreadable zip: ${(err as Error).message}`);
      }
      if (hash) hashes.set(e, { size, sha256: hash.digest('hex') });
    }

    const fileOf = (e: NamedEntry): BundleFile => ({ entryName: e.name, ...hashes.get(e)! });
    const byName = new Map<string, NamedEntry>(entries.map((e) => [e.name, e]));
    const bundle: ValidatedBundle = {
      markdown: fileOf(markdown),
      images: imageEntries.map(({ e, file }) => ({ ...fileOf(e), file })),
      async read(file: BundleFile): Promise<Buffer> {
        const e = byName.get(file.entryName);
        if (!e) throw new Error(`no entry ${file.entryName}`);
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
      },
      close: () => zip.close(),
    };
    keep = true;
    return bundle;
  } finally {
    if (!keep) zip.close();
  }
}
