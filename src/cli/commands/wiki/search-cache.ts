/**
 * `pks wiki search` over a checkout with a persistent cache of the term vectors (the search index kept per page)
 * in the user's cache directory: one file per wiki root, each page keyed by its path, size and mtime (ns). A page
 * whose key changed is read and indexed again, the others come from the cache; a missing, corrupt, truncated or
 * other-version cache is ignored and rewritten, never an error. Results are those of `searchWiki` on a snapshot.
 *
 * The cache also records the directories of a plain tree (no symlinks); while each is the same directory with the
 * same mtime and ctime, no entry was added, removed or renamed in it, so the wiki is not walked again (its files are
 * still stat'ed: an edit in place changes no directory). A run reads only the postings of its query terms.
 */
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
import { crc32 } from 'node:zlib';
import type { SearchQuery, SearchResponse } from '../../../wiki/api.js';
import {
  dirStamp,
  readCandidate,
  resolveWikiRoot,
  walkWiki,
  type Candidate,
  type WalkedDir,
} from '../../../wiki/scan.js';
import { makeSnippet } from '../../../wiki/search.js';
import { compareStrings } from '../../../wiki/links.js';
import {
  TermDictionary,
  TermVectorizer,
  parseQuery,
  rankPages,
  type ParsedQuery,
  type QueryCounts,
  type RankedPages,
} from '../../../wiki/term-vectors.js';
import { decodeCache, encodeCache, type CacheContents, type CacheTable, type FileEntry } from './search-cache-file.js';

/** At most this many caches (one per wiki) are kept, the most recently written first. */
export const MAX_CACHE_FILES = 8;
/** The caches together stay under this; a single larger cache is not written (the search still works, uncached). */
export const MAX_CACHE_DIR_BYTES = 256 * 1024 * 1024;
/**
 * A file modified this recently is not cached: a same-size edit within the file system's timestamp granularity
 * would keep its mtime (git's "racily clean" problem). It is read again on the next run. A directory changed this
 * recently is not recorded either: the first run after it settles rewrites the cache once to record it.
 */
export const RACY_NS = 2_000_000_000n;

/** A file of this run: its entry, and whether the entry may be written to the cache. */
interface Indexed {
  entry: FileEntry;
  cacheable: boolean;
}

/** The cache file of a wiki root (real path) inside `dir`. */
export function cacheFileFor(dir: string, rootReal: string): string {
  // Two roots with one name only evict each other's cache: the root is stored in the file and compared.
  const name = crc32(rootReal).toString(16).padStart(8, '0');
  return path.join(dir, 'wiki-search', `${name}.bin`);
}

/** A walked file: the row of the cache that still describes it, or its entry read in this run. */
type Source = { row: number } | Indexed;

/**
 * `GET /api/search` of the checkout at `root`, using and refreshing the cache under `cacheDir`. `clock` (ms) decides
 * which files and directories are settled enough to be cached (tests move it ahead).
 */
export async function searchCheckout(
  root: string,
  cacheDir: string,
  query: SearchQuery,
  clock: () => number = Date.now,
): Promise<SearchResponse> {
  const parsed = parseQuery(query.q ?? '');
  const now = BigInt(clock()) * 1_000_000n;
  let rootReal = await resolveWikiRoot(root);
  let table = rootReal === null ? null : readCacheTable(cacheFileFor(cacheDir, rootReal), rootReal);
  let candidates: Candidate[];
  let dirs: readonly WalkedDir[] | null;
  if (table !== null && table.dirCount > 0 && dirsUnchanged(table)) {
    // No directory changed since the cache was written: the candidates are its files, not walked again.
    candidates = cachedCandidates(table, rootReal!);
    dirs = Array.from({ length: table.dirCount }, (_, d) => table!.dir(d));
  } else {
    const walk = await walkWiki(root, { dirs: true });
    if (walk.rootReal !== rootReal) table = null; // the root moved in between
    rootReal = walk.rootReal;
    candidates = walk.candidates;
    // In path order: the walk lists them as its parallel stats finish, and the same wiki should give the same cache.
    dirs = walk.dirs?.every((dir) => isSettled(dir, now))
      ? walk.dirs.toSorted((a, b) => compareStrings(a.real, b.real))
      : null;
  }
  const file = rootReal === null ? null : cacheFileFor(cacheDir, rootReal);
  // The query terms' ids in the cache, and their postings (a cache whose postings are not well-formed is unused).
  const cachedTermIds = parsed.terms.map((term) => table?.termId(term) ?? -1);
  const postings = cachedTermIds.map((t) => (t === -1 ? null : table!.postings(t)));
  if (postings.some((list, slot) => list === null && cachedTermIds[slot] !== -1)) table = null;
  // Pages read in this run get term ids of their own.
  const dictionary = new TermDictionary();
  const vectorizer = new TermVectorizer(dictionary);
  // The cache is rewritten when it is missing or when what it should hold changed (a page indexed again, removed).
  let dirty = table === null;
  let reused = 0;
  const sources: Source[] = [];
  // Cache rows are in walk order: matched by a cursor, without a map of every path.
  let row = 0;
  const rows = table?.count ?? 0;
  for (const candidate of candidates) {
    const info = statSync(candidate.real, { bigint: true, throwIfNoEntry: false });
    while (row < rows && !table!.pathIs(row, candidate.rel) && compareStrings(table!.path(row), candidate.rel) < 0) {
      row++; // a file no longer walked
    }
    if (
      info &&
      row < rows &&
      table!.pathIs(row, candidate.rel) &&
      table!.size(row) === Number(info.size) &&
      table!.mtimeNs(row) === info.mtimeNs
    ) {
      sources.push({ row: row++ });
      reused++;
      continue;
    }
    const indexed = indexFile(candidate, vectorizer, info);
    indexed.cacheable &&= info !== undefined && now - info.mtimeNs >= RACY_NS;
    if (indexed.cacheable) dirty = true;
    sources.push(indexed);
  }
  if (table !== null && reused !== table.count) dirty = true;
  // …and once to record the directories when it holds none but this run can record them (every file kept).
  if (table?.dirCount === 0 && dirs !== null && sources.every((s) => 'row' in s || s.cacheable)) dirty = true;

  // Served pages (CONTRACT §13.1): valid pages whose id no earlier file (by path) used. When every walked file is a
  // cache row and every row was walked, the cache's own served flags say it.
  const served: number[] = [];
  if (table !== null && reused === table.count && reused === sources.length) {
    sources.forEach((source, i) => {
      if (table!.served((source as { row: number }).row)) served.push(i);
    });
  } else {
    const seenIds = new Set<string>();
    sources.forEach((source, i) => {
      const id = 'row' in source ? table!.id(source.row) : source.entry.id;
      if (id === null) return;
      const duplicate = seenIds.has(id);
      seenIds.add(id);
      if (!duplicate && ('row' in source ? table!.valid(source.row) : source.entry.valid)) served.push(i);
    });
  }
  const outcome = rankPages(
    servedPages(sources, served, table),
    parsed,
    queryCounts(sources, served, table, parsed, postings, dictionary),
    {
      limit: query.limit,
      includeSources: query.include_sources === true,
    },
  );
  const response: SearchResponse = {
    query: outcome.query,
    total: outcome.total,
    results: outcome.hits.map(({ doc, score }) => {
      const i = served[doc]!;
      const source = sources[i]!;
      // Bodies are not cached: the few shown are read again for their snippets.
      const body = readCandidate(candidates[i]!).page?.body ?? '';
      return {
        ...('row' in source
          ? {
              id: table!.id(source.row)!,
              title: table!.title(source.row),
              type: table!.type(source.row),
              category: table!.category(source.row),
            }
          : {
              id: source.entry.id!,
              title: source.entry.title,
              type: source.entry.type,
              category: source.entry.category,
            }),
        snippet: makeSnippet(body, outcome.terms),
        score,
      };
    }),
  };
  if (file !== null && dirty) writeCache(file, keptContents(rootReal!, sources, table, dictionary, dirs));
  return response;
}

/** The served files as the ranking reads them (ids are made only for the ties it breaks). */
function servedPages(sources: readonly Source[], served: readonly number[], table: CacheTable | null): RankedPages {
  const ids: (string | undefined)[] = new Array<string | undefined>(served.length);
  const at = (doc: number) => sources[served[doc]!]!;
  return {
    lengths: Float64Array.from(served, (i) => {
      const source = sources[i]!;
      return 'row' in source ? table!.length(source.row) : source.entry.vector.length;
    }),
    id(doc) {
      const source = at(doc);
      return (ids[doc] ??= 'row' in source ? table!.id(source.row)! : source.entry.id!);
    },
    isSource(doc) {
      const source = at(doc);
      return 'row' in source ? table!.isSource(source.row) : source.entry.type === 'source';
    },
  };
}

/** Each query term's frequency in each served file, from the cache's postings and the vectors of this run. */
function queryCounts(
  sources: readonly Source[],
  served: readonly number[],
  table: CacheTable | null,
  query: ParsedQuery,
  postings: readonly ({ files: Uint32Array; tfs: Uint32Array } | null)[],
  dictionary: TermDictionary,
): QueryCounts {
  const k = query.terms.length;
  const tfs = new Float64Array(served.length * k);
  const df = new Float64Array(k);
  const titleMatch = new Uint8Array(served.length);
  // The served page of each cache row (-1: not served in this run).
  const docOfRow = new Int32Array(table?.count ?? 0).fill(-1);
  const freshSlot = new Int32Array(dictionary.terms.length);
  query.terms.forEach((term, slot) => {
    const id = dictionary.idOf(term);
    if (id !== -1) freshSlot[id] = slot + 1;
  });
  served.forEach((i, doc) => {
    const source = sources[i]!;
    if ('row' in source) {
      docOfRow[source.row] = doc;
      return;
    }
    if (source.entry.title.toLowerCase().includes(query.lower)) titleMatch[doc] = 1;
    const { pairs } = source.entry.vector;
    for (let p = 0; p < pairs.length; p += 2) {
      const slot = freshSlot[pairs[p]!]!;
      if (slot === 0) continue;
      tfs[doc * k + slot - 1] = pairs[p + 1]!;
      df[slot - 1]!++;
    }
  });
  postings.forEach((list, slot) => {
    if (list === null) return;
    for (let p = 0; p < list.files.length; p++) {
      const doc = docOfRow[list.files[p]!]!;
      if (doc === -1) continue;
      tfs[doc * k + slot] = list.tfs[p]!;
      df[slot]!++;
    }
  });
  if (table !== null && query.lower !== '') {
    table.forEachTitleMatch(query.lower, (row) => {
      const doc = docOfRow[row]!;
      if (doc !== -1) titleMatch[doc] = 1;
    });
  }
  return { tfs, df, titleMatch };
}

/**
 * What the cache should hold after this run: the files walked that are cacheable, the rows still valid turned back
 * into vectors (a cache whose postings are not well-formed keeps only this run's files).
 */
function keptContents(
  root: string,
  sources: readonly Source[],
  table: CacheTable | null,
  fresh: TermDictionary,
  dirs: readonly WalkedDir[] | null,
): CacheContents {
  const vectors = table?.vectors() ?? null;
  const merged = new TermDictionary(vectors === null ? [] : table!.terms());
  // Each term of this run interned once; its pairs renumbered through the table.
  const remap = Int32Array.from(fresh.terms, (term) => merged.intern(term));
  const kept: FileEntry[] = [];
  for (const source of sources) {
    if ('row' in source) {
      if (vectors !== null) kept.push(table!.entry(source.row, vectors[source.row]!));
      continue;
    }
    if (!source.cacheable) continue;
    const pairs = source.entry.vector.pairs.slice();
    for (let p = 0; p < pairs.length; p += 2) pairs[p] = remap[pairs[p]!]!;
    kept.push({ ...source.entry, vector: { pairs, length: source.entry.vector.length } });
  }
  // The directories stand for the candidates only when every candidate is kept.
  return compact(root, merged, kept, dirs !== null && kept.length === sources.length ? [...dirs] : []);
}

/** Whether every directory recorded in the cache is still the same directory, unchanged. */
function dirsUnchanged(table: CacheTable): boolean {
  for (let d = 0; d < table.dirCount; d++) {
    const dir = table.dir(d);
    const info = statSync(dir.real, { bigint: true, throwIfNoEntry: false });
    if (!info?.isDirectory()) return false;
    const now = dirStamp(info);
    if (now.dev !== dir.dev || now.ino !== dir.ino || now.mtimeNs !== dir.mtimeNs || now.ctimeNs !== dir.ctimeNs) {
      return false;
    }
  }
  return true;
}

/**
 * A directory changed in the last seconds may change again within the file system's timestamp granularity without
 * its mtime moving (git's "racily clean" problem): it is not recorded, and the next run walks.
 */
function isSettled(dir: WalkedDir, now: bigint): boolean {
  return now - dir.mtimeNs >= RACY_NS && now - dir.ctimeNs >= RACY_NS;
}

/** The cache's files as candidates: a plain tree (no symlinks), so each real path is the root joined with it. */
function cachedCandidates(table: CacheTable, rootReal: string): Candidate[] {
  const prefix = rootReal.endsWith(path.sep) ? rootReal : rootReal + path.sep;
  return Array.from({ length: table.count }, (_, row) => {
    const rel = table.path(row);
    return { rel, real: prefix + (path.sep === '/' ? rel : rel.split('/').join(path.sep)) };
  });
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
function compact(
  root: string,
  dictionary: TermDictionary,
  entries: readonly FileEntry[],
  dirs: WalkedDir[],
): CacheContents {
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
  return { root, terms, files, dirs };
}

/** Write atomically (temp file + rename); a cache that cannot be written only costs the next run its speed. */
function writeCache(file: string, contents: CacheContents): void {
  const bytes = encodeCache(contents);
  if (bytes.length > MAX_CACHE_DIR_BYTES) return;
  const dir = path.dirname(file);
  const temp = `${file}.${process.pid}.${Math.floor(Math.random() * 2 ** 32).toString(16)}.tmp`;
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
export function readCacheTable(file: string, rootReal: string): CacheTable | null {
  try {
    const table = decodeCache(readFileSync(file));
    return table?.root === rootReal ? table : null;
  } catch {
    return null;
  }
}

/** The whole cache of `rootReal` as entries (tests), or `null` as for `readCacheTable`. */
export function readCache(file: string, rootReal: string): CacheContents | null {
  return readCacheTable(file, rootReal)?.contents() ?? null;
}
