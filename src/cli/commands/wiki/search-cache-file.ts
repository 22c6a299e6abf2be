/**
 * The byte layout of the `pks wiki search` cache: typed sections that load without per-field parsing, and a
 * SHA-256 of everything before it, so a corrupt, truncated or other-version file decodes to `null`, never to wrong
 * data or an exception.
 *
 * Layout: `PKSWSRCH`, then sections (u32 byte length, u32 zero, the bytes zero-padded to 8), then the digest:
 * header (u32 version, file count, term count, 0), string lengths in UTF-16 units (root, terms, then path, id,
 * title, type, category of each file), mtimes (ns, i64), sizes (f64), field-weighted lengths (f64), pair counts
 * (u32), flags (u8: 1 has an id, 2 valid page), (term id, frequency) pairs (u32), the strings (UTF-16LE, lossless).
 * Numbers are in native byte order: a cache never leaves its machine.
 */
import { createHash } from 'node:crypto';
import type { TermVector } from '../../../wiki/term-vectors.js';

/** Bump when the layout or the meaning of a vector changes (tokenizer, field weights, page parsing). */
export const CACHE_FORMAT_VERSION = 1;
const MAGIC = Buffer.from('PKSWSRCH', 'latin1');
const DIGEST_BYTES = 32;
const HAS_ID = 1;
const VALID = 2;

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
}

/** Encode `contents`; the term ids of the vectors index `contents.terms`. */
export function encodeCache({ root, terms, files }: CacheContents): Buffer {
  const n = files.length;
  const strings = [root, ...terms];
  const mtimes = new BigInt64Array(n);
  const sizes = new Float64Array(n);
  const lengths = new Float64Array(n);
  const pairCounts = new Uint32Array(n);
  const flags = new Uint8Array(n);
  let pairTotal = 0;
  files.forEach((file, i) => {
    strings.push(file.path, file.id ?? '', file.title, file.type, file.category);
    mtimes[i] = file.mtimeNs;
    sizes[i] = file.size;
    lengths[i] = file.vector.length;
    pairCounts[i] = file.vector.pairs.length / 2;
    flags[i] = (file.id === null ? 0 : HAS_ID) | (file.valid ? VALID : 0);
    pairTotal += file.vector.pairs.length;
  });
  const pairs = new Uint32Array(pairTotal);
  let at = 0;
  for (const file of files) {
    pairs.set(file.vector.pairs, at);
    at += file.vector.pairs.length;
  }
  const sections: ArrayBufferView[] = [
    Uint32Array.of(CACHE_FORMAT_VERSION, n, terms.length, 0),
    Uint32Array.from(strings, (s) => s.length),
    mtimes,
    sizes,
    lengths,
    pairCounts,
    flags,
    pairs,
    Buffer.from(strings.join(''), 'utf16le'),
  ];
  const parts: Buffer[] = [MAGIC];
  for (const section of sections) {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(section.byteLength, 0);
    parts.push(head, Buffer.from(section.buffer, section.byteOffset, section.byteLength));
    if (section.byteLength % 8 !== 0) parts.push(Buffer.alloc(8 - (section.byteLength % 8)));
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
}

/** The contents of a cache file, or `null` when it is not an intact cache of this version. */
export function decodeCache(bytes: Buffer): CacheContents | null {
  if (bytes.length < MAGIC.length + DIGEST_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const end = bytes.length - DIGEST_BYTES;
  if (!createHash('sha256').update(bytes.subarray(0, end)).digest().equals(bytes.subarray(end))) return null;
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
  if (header === null || header[2] !== 16) return null;
  const [version, n, termCount] = new Uint32Array(header[0], header[1], 4) as unknown as [number, number, number];
  if (version !== CACHE_FORMAT_VERSION) return null;
  const raw = [section(), section(), section(), section(), section(), section(), section(), section()];
  if (raw.some((s) => s === null) || offset !== end) return null;
  const [stringLengthsRaw, mtimesRaw, sizesRaw, lengthsRaw, pairCountsRaw, flagsRaw, pairsRaw, blob] = raw as [
    ArrayBuffer,
    number,
    number,
  ][];
  const stringCount = 1 + termCount + 5 * n;
  if (
    stringLengthsRaw![2] !== 4 * stringCount ||
    mtimesRaw![2] !== 8 * n ||
    sizesRaw![2] !== 8 * n ||
    lengthsRaw![2] !== 8 * n ||
    pairCountsRaw![2] !== 4 * n ||
    flagsRaw![2] !== n ||
    pairsRaw![2] % 8 !== 0 ||
    blob![2] % 2 !== 0
  ) {
    return null;
  }
  const stringLengths = new Uint32Array(stringLengthsRaw![0], stringLengthsRaw![1], stringCount);
  const text = Buffer.from(blob![0], blob![1], blob![2]).toString('utf16le');
  const strings: string[] = new Array<string>(stringCount);
  let cursor = 0;
  for (let i = 0; i < stringCount; i++) {
    strings[i] = text.slice(cursor, (cursor += stringLengths[i]!));
  }
  if (cursor !== text.length) return null;
  const pairs = new Uint32Array(pairsRaw![0], pairsRaw![1], pairsRaw![2] / 4);
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i]! >= termCount) return null;
  const mtimes = new BigInt64Array(mtimesRaw![0], mtimesRaw![1], n);
  const sizes = new Float64Array(sizesRaw![0], sizesRaw![1], n);
  const lengths = new Float64Array(lengthsRaw![0], lengthsRaw![1], n);
  const pairCounts = new Uint32Array(pairCountsRaw![0], pairCountsRaw![1], n);
  const flags = new Uint8Array(flagsRaw![0], flagsRaw![1], n);
  const files: FileEntry[] = new Array<FileEntry>(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const next = at + 2 * pairCounts[i]!;
    if (next > pairs.length) return null;
    const s = 1 + termCount + 5 * i;
    files[i] = {
      path: strings[s]!,
      size: sizes[i]!,
      mtimeNs: mtimes[i]!,
      id: (flags[i]! & HAS_ID) !== 0 ? strings[s + 1]! : null,
      valid: (flags[i]! & VALID) !== 0,
      title: strings[s + 2]!,
      type: strings[s + 3]!,
      category: strings[s + 4]!,
      vector: { pairs: pairs.subarray(at, next), length: lengths[i]! },
    };
    at = next;
  }
  if (at !== pairs.length) return null;
  return { root: strings[0]!, terms: strings.slice(1, 1 + termCount), files };
}
