/**
 * The byte layout of the `pks wiki search` cache: typed sections read in place (a run makes no object per page and
 * reads only the postings of its query terms), and a CRC-32 of everything before it, so a corrupt, truncated or
 * other-version file decodes to `null`, never to wrong data or an exception. (CRC-32, not a cryptographic hash: the
 * file is the user's own, the checksum guards against damage, not an adversary, and `node:crypto` alone would cost a
 * warm run ~3 ms to load and ~6 ms to hash the file.)
 *
 * Layout: `PKSWSRCH`, then sections (u32 byte length, u32 zero, the bytes zero-padded to 8), then the checksum (u32):
 * header (u32 version, file count, term count, posting count, directory count, 0, 0, 0), string lengths in UTF-16
 * units (root, the terms, then path, id, title, type and category of each file, then the lower-cased title of each
 * file, then the real path of each directory), directory stamps (i64 device, inode, mtime ns, ctime ns), mtimes (ns, i64), sizes
 * (f64), field-weighted lengths (f64), flags (u8: 1 has an id, 2 valid page, 4 served), the start of each term's
 * postings (u32, term count + 1), the postings: file numbers (u32, ascending per term) and field-weighted
 * frequencies (u32), the strings (UTF-16LE, lossless). Numbers are in native byte order: a cache never leaves its
 * machine.
 */
import { crc32 } from 'node:zlib';
import type { WalkedDir } from '../../../wiki/scan.js';
import type { TermVector } from '../../../wiki/term-vectors.js';

/** Bump when the layout or the meaning of a vector changes (tokenizer, field weights, page parsing). */
export const CACHE_FORMAT_VERSION = 2;
const MAGIC = Buffer.from('PKSWSRCH', 'latin1');
const CHECKSUM_BYTES = 4;
const HAS_ID = 1;
const VALID = 2;
/** Served among the cached files: valid, and no earlier cached file has its id (CONTRACT §13.1). */
const SERVED = 4;
/** Strings per file before the lower-cased titles: path, id, title, type, category. */
const FIELDS = 5;
const [PATH, ID, TITLE, TYPE, CATEGORY] = [0, 1, 2, 3, 4];

/** One candidate file as the search needs it. */
export interface FileEntry {
  /** Relative path, `/`-separated. */
  path: string;
  size: number;
  mtimeNs: bigint;
  /** The page id when the file has one (duplicates are decided by it, valid or not). */
  id: string | null;
  /** Whether the file is a valid page (served unless an earlier file has its id). */
  valid: boolean;
  title: string;
  type: string;
  category: string;
  vector: TermVector;
}

export interface CacheContents {
  root: string;
  terms: string[];
  files: FileEntry[];
  /**
   * Every directory of the walk when the tree was plain and every candidate is among `files`: while none of them
   * changed, the candidates are `files` (empty: the wiki must be walked).
   */
  dirs: WalkedDir[];
}

/** Encode `contents` (files in walk order); the term ids of the vectors index `contents.terms`. */
export function encodeCache({ root, terms, files, dirs }: CacheContents): Buffer {
  const n = files.length;
  const strings = [root, ...terms];
  const mtimes = new BigInt64Array(n);
  const sizes = new Float64Array(n);
  const lengths = new Float64Array(n);
  const flags = new Uint8Array(n);
  const postingStarts = new Uint32Array(terms.length + 1);
  const seenIds = new Set<string>();
  files.forEach((file, i) => {
    strings.push(file.path, file.id ?? '', file.title, file.type, file.category);
    mtimes[i] = file.mtimeNs;
    sizes[i] = file.size;
    lengths[i] = file.vector.length;
    const served = file.valid && file.id !== null && !seenIds.has(file.id);
    if (file.id !== null) seenIds.add(file.id);
    flags[i] = (file.id === null ? 0 : HAS_ID) | (file.valid ? VALID : 0) | (served ? SERVED : 0);
    const pairs = file.vector.pairs;
    for (let p = 0; p < pairs.length; p += 2) postingStarts[pairs[p]! + 1]!++;
  });
  for (const file of files) strings.push(file.title.toLowerCase());
  const dirStamps = new BigInt64Array(4 * dirs.length);
  dirs.forEach((dir, d) => {
    strings.push(dir.real);
    dirStamps.set([dir.dev, dir.ino, dir.mtimeNs, dir.ctimeNs], 4 * d);
  });
  for (let t = 0; t < terms.length; t++) postingStarts[t + 1]! += postingStarts[t]!;
  // Files in order, so each term's file numbers ascend.
  const fill = postingStarts.slice(0, terms.length);
  const postingFiles = new Uint32Array(postingStarts[terms.length]!);
  const postingTfs = new Uint32Array(postingFiles.length);
  files.forEach((file, i) => {
    const pairs = file.vector.pairs;
    for (let p = 0; p < pairs.length; p += 2) {
      const at = fill[pairs[p]!]!++;
      postingFiles[at] = i;
      postingTfs[at] = pairs[p + 1]!;
    }
  });
  const sections: ArrayBufferView[] = [
    Uint32Array.of(CACHE_FORMAT_VERSION, n, terms.length, postingFiles.length, dirs.length, 0, 0, 0),
    Uint32Array.from(strings, (s) => s.length),
    dirStamps,
    mtimes,
    sizes,
    lengths,
    flags,
    postingStarts,
    postingFiles,
    postingTfs,
    Buffer.from(strings.join(''), 'utf16le'),
  ];
  const parts: Buffer[] = [MAGIC];
  for (const section of sections) {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(section.byteLength, 0);
    parts.push(head, Buffer.from(section.buffer, section.byteOffset, section.byteLength));
    if (section.byteLength % 8 !== 0) parts.push(Buffer.alloc(8 - (section.byteLength % 8)));
  }
  parts.push(Buffer.alloc(CHECKSUM_BYTES));
  const bytes = Buffer.concat(parts);
  const end = bytes.length - CHECKSUM_BYTES;
  bytes.writeUInt32LE(crc32(bytes.subarray(0, end)), end);
  return bytes;
}

/** A decoded cache: typed arrays over the file's bytes and one string of all strings, read field by field. */
export class CacheTable {
  /** Index of the first file string, of the first lower-cased title and of the first directory in `starts`. */
  private readonly fileBase: number;
  private readonly lowerBase: number;
  private readonly dirBase: number;

  constructor(
    /** The number of files. */
    readonly count: number,
    readonly termCount: number,
    readonly dirCount: number,
    private readonly text: string,
    /** Start of each string in `text`, and its end. */
    private readonly starts: Uint32Array,
    private readonly dirStamps: BigInt64Array,
    private readonly mtimes: BigInt64Array,
    private readonly sizes: Float64Array,
    private readonly lengths: Float64Array,
    private readonly flags: Uint8Array,
    private readonly postingStarts: Uint32Array,
    private readonly postingFiles: Uint32Array,
    private readonly postingTfs: Uint32Array,
  ) {
    this.fileBase = 1 + termCount;
    this.lowerBase = this.fileBase + FIELDS * count;
    this.dirBase = this.lowerBase + count;
  }

  private string(index: number): string {
    return this.text.slice(this.starts[index]!, this.starts[index + 1]!);
  }

  /** Directory `d` of the walk the cache was written after. */
  dir(d: number): WalkedDir {
    const [dev, ino, mtimeNs, ctimeNs] = this.dirStamps.subarray(4 * d, 4 * d + 4) as unknown as bigint[];
    return { real: this.string(this.dirBase + d), dev: dev!, ino: ino!, mtimeNs: mtimeNs!, ctimeNs: ctimeNs! };
  }

  /** Whether string `index` equals `value`, without making it. */
  private stringIs(index: number, value: string): boolean {
    const start = this.starts[index]!;
    return this.starts[index + 1]! - start === value.length && this.text.startsWith(value, start);
  }

  get root(): string {
    return this.string(0);
  }

  terms(): string[] {
    return Array.from({ length: this.termCount }, (_, t) => this.string(1 + t));
  }

  /** The id of a term, or `-1`. */
  termId(term: string): number {
    for (let t = 0; t < this.termCount; t++) if (this.stringIs(1 + t, term)) return t;
    return -1;
  }

  pathIs(file: number, rel: string): boolean {
    return this.stringIs(this.fileBase + FIELDS * file + PATH, rel);
  }

  path(file: number): string {
    return this.string(this.fileBase + FIELDS * file + PATH);
  }

  id(file: number): string | null {
    return (this.flags[file]! & HAS_ID) === 0 ? null : this.string(this.fileBase + FIELDS * file + ID);
  }

  title(file: number): string {
    return this.string(this.fileBase + FIELDS * file + TITLE);
  }

  type(file: number): string {
    return this.string(this.fileBase + FIELDS * file + TYPE);
  }

  isSource(file: number): boolean {
    return this.stringIs(this.fileBase + FIELDS * file + TYPE, 'source');
  }

  category(file: number): string {
    return this.string(this.fileBase + FIELDS * file + CATEGORY);
  }

  size(file: number): number {
    return this.sizes[file]!;
  }

  mtimeNs(file: number): bigint {
    return this.mtimes[file]!;
  }

  length(file: number): number {
    return this.lengths[file]!;
  }

  valid(file: number): boolean {
    return (this.flags[file]! & VALID) !== 0;
  }

  served(file: number): boolean {
    return (this.flags[file]! & SERVED) !== 0;
  }

  /** The files holding term `t` (ascending) and its frequencies; `null` when the list is not well-formed. */
  postings(t: number): { files: Uint32Array; tfs: Uint32Array } | null {
    const start = this.postingStarts[t]!;
    const end = this.postingStarts[t + 1]!;
    const files = this.postingFiles.subarray(start, end);
    let last = -1;
    for (let i = 0; i < files.length; i++) {
      if (files[i]! <= last || files[i]! >= this.count) return null;
      last = files[i]!;
    }
    return { files, tfs: this.postingTfs.subarray(start, end) };
  }

  /** Calls `match` for each file whose lower-cased title contains `lower` (non-empty), in file order. */
  forEachTitleMatch(lower: string, match: (file: number) => void): void {
    const { starts, text, lowerBase, count } = this;
    const end = starts[lowerBase + count]!;
    let previous = -1;
    for (let at = text.indexOf(lower, starts[lowerBase]!); at !== -1; at = text.indexOf(lower, at + 1)) {
      if (at + lower.length > end) break;
      // The last file whose lower-cased title starts at or before `at`.
      let lo = 0;
      let hi = count - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[lowerBase + mid]! <= at) lo = mid;
        else hi = mid - 1;
      }
      if (lo !== previous && at + lower.length <= starts[lowerBase + lo + 1]!) {
        match(lo);
        previous = lo;
      }
    }
  }

  /** Every file's term vector (the postings turned around); `null` when a posting list is not well-formed. */
  vectors(): TermVector[] | null {
    const counts = new Uint32Array(this.count + 1);
    for (let t = 0; t < this.termCount; t++) {
      const list = this.postings(t);
      if (list === null) return null;
      for (const file of list.files) counts[file + 1]! += 2;
    }
    for (let f = 0; f < this.count; f++) counts[f + 1]! += counts[f]!;
    const pairs = new Uint32Array(counts[this.count]!);
    const fill = counts.slice(0, this.count);
    for (let t = 0; t < this.termCount; t++) {
      for (let i = this.postingStarts[t]!; i < this.postingStarts[t + 1]!; i++) {
        const at = fill[this.postingFiles[i]!]!;
        pairs[at] = t;
        pairs[at + 1] = this.postingTfs[i]!;
        fill[this.postingFiles[i]!]! += 2;
      }
    }
    return Array.from({ length: this.count }, (_, f) => ({
      pairs: pairs.subarray(counts[f]!, counts[f + 1]!),
      length: this.lengths[f]!,
    }));
  }

  /** File `file` as an entry carrying `vector`. */
  entry(file: number, vector: TermVector): FileEntry {
    return {
      path: this.path(file),
      size: this.size(file),
      mtimeNs: this.mtimeNs(file),
      id: this.id(file),
      valid: this.valid(file),
      title: this.title(file),
      type: this.type(file),
      category: this.category(file),
      vector,
    };
  }

  /** Everything, as encoded; `null` when a posting list is not well-formed. */
  contents(): CacheContents | null {
    const vectors = this.vectors();
    if (vectors === null) return null;
    return {
      root: this.root,
      terms: this.terms(),
      files: vectors.map((vector, f) => this.entry(f, vector)),
      dirs: Array.from({ length: this.dirCount }, (_, d) => this.dir(d)),
    };
  }
}

/** The cache in `bytes`, or `null` when it is not an intact cache of this version. */
export function decodeCache(bytes: Buffer): CacheTable | null {
  if (bytes.length < MAGIC.length + CHECKSUM_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const end = bytes.length - CHECKSUM_BYTES;
  if (crc32(bytes.subarray(0, end)) !== bytes.readUInt32LE(end)) return null;
  let offset = MAGIC.length;
  // Sections start 8-aligned in the file: a file read into its own buffer is viewed in place, otherwise copied.
  const aligned = bytes.byteOffset % 8 === 0;
  /** The next section as an 8-aligned `[buffer, offset, length]`, or `null` past the end. */
  const section = (): [ArrayBuffer, number, number] | null => {
    if (offset + 8 > end) return null;
    const length = bytes.readUInt32LE(offset);
    const start = offset + 8;
    offset = start + Math.ceil(length / 8) * 8;
    if (offset > end) return null;
    if (aligned) return [bytes.buffer as ArrayBuffer, bytes.byteOffset + start, length];
    const copy = new Uint8Array(length);
    copy.set(bytes.subarray(start, start + length));
    return [copy.buffer, 0, length];
  };
  const header = section();
  if (header === null || header[2] !== 32) return null;
  const [version, n, termCount, postingCount, dirCount] = new Uint32Array(
    header[0],
    header[1],
    8,
  ) as unknown as number[];
  if (version !== CACHE_FORMAT_VERSION) return null;
  const raw = Array.from({ length: 10 }, section);
  if (raw.some((s) => s === null) || offset !== end) return null;
  const [stringLengths, dirStamps, mtimes, sizes, lengths, flags, postingStarts, postingFiles, postingTfs, blob] =
    raw as [ArrayBuffer, number, number][];
  const stringCount = 1 + termCount! + (FIELDS + 1) * n! + dirCount!;
  if (
    stringLengths![2] !== 4 * stringCount ||
    dirStamps![2] !== 32 * dirCount! ||
    mtimes![2] !== 8 * n! ||
    sizes![2] !== 8 * n! ||
    lengths![2] !== 8 * n! ||
    flags![2] !== n ||
    postingStarts![2] !== 4 * (termCount! + 1) ||
    postingFiles![2] !== 4 * postingCount! ||
    postingTfs![2] !== 4 * postingCount! ||
    blob![2] % 2 !== 0
  ) {
    return null;
  }
  const text = Buffer.from(blob![0], blob![1], blob![2]).toString('utf16le');
  const stringLength = new Uint32Array(stringLengths![0], stringLengths![1], stringCount);
  const starts = new Uint32Array(stringCount + 1);
  for (let i = 0; i < stringCount; i++) starts[i + 1] = starts[i]! + stringLength[i]!;
  if (starts[stringCount] !== text.length) return null;
  const postingStart = new Uint32Array(postingStarts![0], postingStarts![1], termCount! + 1);
  if (postingStart[0] !== 0 || postingStart[termCount!] !== postingCount) return null;
  for (let t = 0; t < termCount!; t++) if (postingStart[t]! > postingStart[t + 1]!) return null;
  return new CacheTable(
    n!,
    termCount!,
    dirCount!,
    text,
    starts,
    new BigInt64Array(dirStamps![0], dirStamps![1], 4 * dirCount!),
    new BigInt64Array(mtimes![0], mtimes![1], n),
    new Float64Array(sizes![0], sizes![1], n),
    new Float64Array(lengths![0], lengths![1], n),
    new Uint8Array(flags![0], flags![1], n),
    postingStart,
    new Uint32Array(postingFiles![0], postingFiles![1], postingCount),
    new Uint32Array(postingTfs![0], postingTfs![1], postingCount),
  );
}
