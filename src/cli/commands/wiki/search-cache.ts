/**
 * `pks wiki search` over a checkout with a persistent cache of the term vectors (the search index kept per page)
 * in the user's cache directory: one file per wiki root, each page keyed by its path, size and mtime (ns). A page
 * whose key changed is read and indexed again, the others come from the cache; a missing, corrupt, truncated or
 * other-version cache is ignored and rewritten, never an error. Results are those of `searchWiki` on a snapshot.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  type BigIntStats,
} from 'node:fs';
import path from 'node:path';
import { makeSnippet, type SearchQuery, type SearchResponse } from '../../../wiki/index.js';
import { readCandidate, walkWiki, type Candidate } from '../../../wiki/scan.js';
import { TermDictionary, TermVectorizer, searchTermVectors, type VectorDoc } from '../../../wiki/term-vectors.js';
import { decodeCache, encodeCache, type CacheContents, type FileEntry } from './search-cache-file.js';

/** At most this many caches (one per wiki) are kept, the most recently written first. */
export const MAX_CACHE_FILES = 8;
/** The caches together stay under this; a single larger cache is not written (the search still works, uncached). */
export const MAX_CACHE_DIR_BYTES = 256 * 1024 * 1024;
/**
 * A file modified this recently is not cached: a same-size edit within the file system's timestamp granularity
 * would keep its mtime (git's "racily clean" problem). It is read again on the next run.
 */
const RACY_NS = 2_000_000_000n;

/** A file of this run: its entry, and whether the entry may be written to the cache. */
interface Indexed {
  entry: FileEntry;
  cacheable: boolean;
}

/** The cache file of a wiki root (real path) inside `dir`. */
export function cacheFileFor(dir: string, rootReal: string): string {
  const digest = createHash('sha256').update(rootReal).digest('hex').slice(0, 32);
  return path.join(dir, 'wiki-search', `${digest}.bin`);
}

/** `GET /api/search` of the checkout at `root`, using and refreshing the cache under `cacheDir`. */
export async function searchCheckout(root: string, cacheDir: string, query: SearchQuery): Promise<SearchResponse> {
  const walk = await walkWiki(root);
  const file = walk.rootReal === null ? null : cacheFileFor(cacheDir, walk.rootReal);
  const cached = file === null ? null : readCache(file, walk.rootReal!);
  const cachedByPath = new Map(cached?.files.map((entry) => [entry.path, entry]));
  const dictionary = new TermDictionary(cached?.terms ?? []);
  const vectorizer = new TermVectorizer(dictionary);
  // The cache is rewritten when it is missing or when what it should hold changed (a page indexed again, removed).
  let dirty = cached === null;
  let reused = 0;
  const files: Indexed[] = [];
  const now = BigInt(Date.now()) * 1_000_000n;
  for (const candidate of walk.candidates) {
    const info = statSync(candidate.real, { bigint: true, throwIfNoEntry: false });
    const hit = cachedByPath.get(candidate.rel);
    if (info && hit && hit.size === Number(info.size) && hit.mtimeNs === info.mtimeNs) {
      files.push({ entry: hit, cacheable: true });
      reused++;
      continue;
    }
    const indexed = indexFile(candidate, vectorizer, info);
    indexed.cacheable &&= info !== undefined && now - info.mtimeNs >= RACY_NS;
    if (indexed.cacheable) dirty = true;
    files.push(indexed);
  }
  if (cached !== null && reused !== cached.files.length) dirty = true;

  // Served pages (CONTRACT §13.1): valid pages whose id no earlier file (by path) used.
  const docs: (VectorDoc & { entry: FileEntry; candidate: Candidate })[] = [];
  const seenIds = new Set<string>();
  walk.candidates.forEach((candidate, i) => {
    const { entry } = files[i]!;
    if (entry.id === null) return;
    const duplicate = seenIds.has(entry.id);
    seenIds.add(entry.id);
    if (entry.valid && !duplicate) {
      docs.push({ id: entry.id, title: entry.title, type: entry.type, vector: entry.vector, entry, candidate });
    }
  });
  const outcome = searchTermVectors(docs, dictionary, query.q ?? '', {
    limit: query.limit,
    includeSources: query.include_sources === true,
  });
  const response: SearchResponse = {
    query: outcome.query,
    total: outcome.total,
    results: outcome.hits.map(({ doc, score }) => {
      const { entry, candidate } = docs[doc]!;
      // Bodies are not cached: the few shown are read again for their snippets.
      const body = readCandidate(candidate).page?.body ?? '';
      return {
        id: entry.id!,
        title: entry.title,
        type: entry.type,
        category: entry.category,
        snippet: makeSnippet(body, outcome.terms),
        score,
      };
    }),
  };
  if (file !== null && dirty) {
    const kept = files.filter((f) => f.cacheable).map((f) => f.entry);
    writeCache(file, compact(walk.rootReal!, dictionary, kept));
  }
  return response;
}

/** Read, parse and vectorize one candidate, keyed by the stat taken before reading. */
function indexFile(candidate: Candidate, vectorizer: TermVectorizer, info: BigIntStats | undefined): Indexed {
  const file = readCandidate(candidate);
  const page = file.page;
  return {
    entry: {
      path: candidate.rel,
      size: info ? Number(info.size) : -1,
      mtimeNs: info ? info.mtimeNs : -1n,
      id: file.id,
      valid: page !== null,
      title: page?.title ?? '',
      type: page?.type ?? '',
      category: page?.category ?? '',
      vector: page === null ? { pairs: new Uint32Array(0), length: 0 } : vectorizer.vectorize(page),
    },
    // Permissions can change without the mtime: an unreadable file is tried again next time.
    cacheable: file.problem?.kind !== 'unreadable',
  };
}

/** The cache contents of `entries`, with only the terms they use, renumbered densely. */
function compact(root: string, dictionary: TermDictionary, entries: readonly FileEntry[]): CacheContents {
  const renumber = new Int32Array(dictionary.terms.length).fill(-1);
  const terms: string[] = [];
  const files = entries.map((entry) => {
    const pairs = entry.vector.pairs.slice();
    for (let i = 0; i < pairs.length; i += 2) {
      const old = pairs[i]!;
      if (renumber[old] === -1) {
        renumber[old] = terms.length;
        terms.push(dictionary.terms[old]!);
      }
      pairs[i] = renumber[old]!;
    }
    return { ...entry, vector: { pairs, length: entry.vector.length } };
  });
  return { root, terms, files };
}

/** Write atomically (temp file + rename); a cache that cannot be written only costs the next run its speed. */
function writeCache(file: string, contents: CacheContents): void {
  const bytes = encodeCache(contents);
  if (bytes.length > MAX_CACHE_DIR_BYTES) return;
  const dir = path.dirname(file);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(temp, bytes, { mode: 0o600 });
    renameSync(temp, file);
    pruneCacheDir(dir, file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
  }
}

/**
 * Keep the `current` cache and the most recently written others while there are at most `MAX_CACHE_FILES` of them
 * within `MAX_CACHE_DIR_BYTES`; remove temp files older than a minute (left by a killed run).
 */
function pruneCacheDir(dir: string, current: string): void {
  const now = Date.now();
  const others: { file: string; mtime: number; size: number }[] = [];
  let total = statSync(current).size;
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    const info = statSync(file, { throwIfNoEntry: false });
    if (!info?.isFile()) continue;
    if (name.endsWith('.tmp')) {
      if (now - info.mtimeMs > 60_000) unlinkSync(file);
    } else if (name.endsWith('.bin') && file !== current) {
      others.push({ file, mtime: info.mtimeMs, size: info.size });
    }
  }
  others.sort((a, b) => b.mtime - a.mtime);
  others.forEach(({ file, size }, i) => {
    total += size;
    if (i + 1 >= MAX_CACHE_FILES || total > MAX_CACHE_DIR_BYTES) unlinkSync(file);
  });
}

/** The cache of `rootReal`, or `null` when it is missing, unreadable, corrupt, truncated or of another version. */
export function readCache(file: string, rootReal: string): CacheContents | null {
  try {
    const contents = decodeCache(readFileSync(file));
    return contents?.root === rootReal ? contents : null;
  } catch {
    return null;
  }
}
