/**
 * Walking a wiki checkout (CONTRACT §13.1): which files are candidate pages, reading them without ever leaving the
 * wiki root. This is the only module of the wiki library that reads the file system.
 */
import { constants as fsConstants } from 'node:fs';
import { closeSync, fstatSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { compareStrings } from './links.js';
import { MAX_DIRECTORY_DEPTH, MAX_PAGE_FILE_BYTES, READ_SLICE_MS } from './limits.js';
import { parsePageBytes, parsePageText, problemFile, tooLarge } from './page.js';
import type { PageFile, WikiScan } from './types.js';

/** File names that are never pages, at any depth. */
export const NON_PAGE_FILE_NAMES: ReadonlySet<string> = new Set(['index.md', 'log.md', 'README.md']);

/**
 * Whether a directory entry name can be a page file: `*.md` in glob terms (so not a dot-file) and not one of
 * `index.md`, `log.md`, `README.md`.
 */
export function isPageFileName(name: string): boolean {
  return name.endsWith('.md') && !name.startsWith('.') && !NON_PAGE_FILE_NAMES.has(name);
}

export interface Candidate {
  /** Relative path as walked, `/`-separated. */
  rel: string;
  /** Real absolute path (inside the root) to read. */
  real: string;
}

interface Walk {
  rootReal: string;
  candidates: Candidate[];
  ignored: WikiScan['ignored'];
  /** Real paths of directories already walked. */
  walkedDirs: Set<string>;
  /** Real paths of candidate files already collected. */
  seenFiles: Set<string>;
  /** Symlinks (to directories or files) resolved after the plain tree, so real paths win over aliases. */
  deferred: { rel: string; real: string; depth: number }[];
  /** The directories read, each stat'ed before its listing; `null` when not asked for or not available. */
  dirs: WalkedDir[] | null;
}

/**
 * A directory as it was when it was listed. Its entries change only with its mtime and ctime (created, removed,
 * renamed; ctime also for permissions), and a mount over it changes its device and inode.
 */
export interface WalkedDir {
  real: string;
  dev: bigint;
  ino: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/** The candidate page files of a wiki directory, found without reading them. */
export interface WikiWalk {
  /** The real path of the root, `null` when it is missing or not a directory. */
  rootReal: string | null;
  /** Sorted by relative path. */
  candidates: Candidate[];
  ignored: WikiScan['ignored'];
  /**
   * With `dirs: true`: every directory listed, when the tree is plain — no symlink met and nothing ignored — so that
   * these directories unchanged mean the same candidates; otherwise `null`.
   */
  dirs: WalkedDir[] | null;
}

/** The real path of a wiki root, `null` when it is missing or not a directory. */
export async function resolveWikiRoot(root: string): Promise<string | null> {
  try {
    const rootReal = await realpath(root);
    return (await stat(rootReal)).isDirectory() ? rootReal : null;
  } catch (err) {
    if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return null;
    throw err;
  }
}

/**
 * Walk `root` for candidate page files (CONTRACT §13.1 file selection) without reading them. A missing root (or one
 * that is not a directory) gives `rootReal: null`. Never leaves the root's real path.
 */
export async function walkWiki(root: string, options: { dirs?: boolean } = {}): Promise<WikiWalk> {
  const rootReal = await resolveWikiRoot(root);
  if (rootReal === null) return { rootReal: null, candidates: [], ignored: [], dirs: null };
  const walk: Walk = {
    rootReal,
    candidates: [],
    ignored: [],
    walkedDirs: new Set(),
    seenFiles: new Set(),
    deferred: [],
    dirs: options.dirs === true ? [] : null,
  };
  await walkDir(walk, rootReal, '', 0);
  const plain = walk.deferred.length === 0 && walk.ignored.length === 0;
  // Symlinks: one at a time, in path order, after the plain tree (and after each other) so aliases never duplicate.
  walk.deferred.sort((a, b) => compareStrings(a.rel, b.rel));
  while (walk.deferred.length > 0) {
    const link = walk.deferred.shift()!;
    await followSymlink(walk, link.rel, link.real, link.depth);
    walk.deferred.sort((a, b) => compareStrings(a.rel, b.rel));
  }
  walk.candidates.sort((a, b) => compareStrings(a.rel, b.rel));
  walk.ignored.sort((a, b) => compareStrings(a.path, b.path));
  return { rootReal, candidates: walk.candidates, ignored: walk.ignored, dirs: plain ? walk.dirs : null };
}

/**
 * Read every candidate page of `root`. A missing root (or one that is not a directory) gives an empty scan with
 * `exists: false`. Never reads outside the root's real path.
 */
export async function scanWiki(root: string): Promise<WikiScan> {
  const walk = await walkWiki(root);
  if (walk.rootReal === null) return { root, exists: false, files: [], ignored: [] };
  const files: PageFile[] = [];
  let sliceStart = performance.now();
  for (const candidate of walk.candidates) {
    files.push(readCandidate(candidate));
    if (performance.now() - sliceStart > READ_SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
  }
  return { root, exists: true, files, ignored: walk.ignored };
}

async function walkDir(walk: Walk, dirReal: string, relDir: string, depth: number): Promise<void> {
  if (walk.walkedDirs.has(dirReal)) return;
  walk.walkedDirs.add(dirReal);
  if (depth > MAX_DIRECTORY_DEPTH) {
    walk.ignored.push({ path: relDir, reason: `directory nested deeper than ${MAX_DIRECTORY_DEPTH} levels` });
    return;
  }
  let entries;
  try {
    // Stat'ed before the listing: a change in between leaves a recorded mtime older than the directory's.
    if (walk.dirs !== null) walk.dirs.push({ real: dirReal, ...dirStamp(await stat(dirReal, { bigint: true })) });
    entries = await readdir(dirReal, { withFileTypes: true });
  } catch (err) {
    walk.ignored.push({ path: relDir || '.', reason: `cannot read directory: ${errorCode(err)}` });
    return;
  }
  const subdirs: Promise<void>[] = [];
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith('.')) continue; // hidden directories (CONTRACT §13.1) and dot-files (not `*.md`)
    const rel = relDir === '' ? name : `${relDir}/${name}`;
    // `dirReal` is a normalized real path and `name` one segment: joined without `path.join`'s normalizing pass.
    const full = dirReal.endsWith(path.sep) ? dirReal + name : dirReal + path.sep + name;
    if (entry.isDirectory()) {
      subdirs.push(walkDir(walk, full, rel, depth + 1));
    } else if (entry.isSymbolicLink()) {
      walk.deferred.push({ rel, real: full, depth: depth + 1 });
    } else if (entry.isFile()) {
      if (isPageFileName(name)) {
        walk.candidates.push({ rel, real: full });
        walk.seenFiles.add(full);
      }
    }
    // FIFOs, sockets and devices are never pages.
  }
  await Promise.all(subdirs);
}

async function followSymlink(walk: Walk, rel: string, linkPath: string, depth: number): Promise<void> {
  let target: string;
  try {
    target = await realpath(linkPath);
  } catch {
    if (isPageFileName(path.basename(rel))) walk.ignored.push({ path: rel, reason: 'broken symlink' });
    return;
  }
  if (!isInside(walk.rootReal, target)) {
    walk.ignored.push({ path: rel, reason: 'symlink leaves the wiki directory' });
    return;
  }
  if (pathHasHiddenSegment(walk.rootReal, target)) {
    // A link into `.git` or another hidden directory would bypass the hidden-directory rule.
    walk.ignored.push({ path: rel, reason: 'symlink into a hidden directory' });
    return;
  }
  let info;
  try {
    info = await stat(target);
  } catch (err) {
    walk.ignored.push({ path: rel, reason: `cannot stat symlink target: ${errorCode(err)}` });
    return;
  }
  if (info.isDirectory()) {
    if (walk.walkedDirs.has(target)) return; // already walked under its real path: not a second copy
    await walkDir(walk, target, rel, depth);
  } else if (info.isFile() && isPageFileName(path.basename(rel))) {
    if (walk.seenFiles.has(target)) return;
    walk.seenFiles.add(target);
    walk.candidates.push({ rel, real: target });
  }
}

/**
 * Read and parse one candidate. Synchronous on purpose: small files read faster this way than through the thread
 * pool, and the caller yields to the event loop every few milliseconds.
 */
export function readCandidate(c: Candidate): PageFile {
  let fd: number;
  try {
    // O_NOFOLLOW: `real` is a resolved path, so a symlink here means it was swapped after the walk.
    // O_NONBLOCK: a FIFO swapped in after the walk must not block the process.
    fd = openSync(c.real, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (err) {
    return problemFile(c.rel, 0, { kind: 'unreadable', message: `cannot open file: ${errorCode(err)}` });
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return problemFile(c.rel, 0, { kind: 'unreadable', message: 'not a regular file' });
    if (info.size > MAX_PAGE_FILE_BYTES) return problemFile(c.rel, info.size, tooLarge(info.size));
    // Read at most one byte past the limit, in case the file grew since fstat.
    const buffer = Buffer.allocUnsafe(Math.min(info.size, MAX_PAGE_FILE_BYTES) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const wanted = buffer.length - filled;
      const bytesRead = readSync(fd, buffer, filled, wanted, filled);
      filled += bytesRead;
      // A regular file reads short only at its end: no second call just to be told so.
      if (bytesRead < wanted) break;
    }
    if (filled > MAX_PAGE_FILE_BYTES) return problemFile(c.rel, filled, tooLarge(filled));
    return parsePageBytes(c.rel, buffer.subarray(0, filled));
  } catch (err) {
    return problemFile(c.rel, 0, { kind: 'unreadable', message: `cannot read file: ${errorCode(err)}` });
  } finally {
    closeSync(fd);
  }
}

/** What `WalkedDir` keeps of a directory's stat. */
export function dirStamp(info: BigIntStats): Omit<WalkedDir, 'real'> {
  return { dev: info.dev, ino: info.ino, mtimeNs: info.mtimeNs, ctimeNs: info.ctimeNs };
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Build a scan from in-memory sources (tests, tools); paths are used as given, sorted. */
export function scanFromSources(sources: readonly { path: string; text: string }[], root = '<memory>'): WikiScan {
  const files = [...sources].sort((a, b) => compareStrings(a.path, b.path)).map((s) => parsePageText(s.path, s.text));
  return { root, exists: true, files, ignored: [] };
}

/** `true` when `target` is `root` or below it (both real, absolute paths). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * Absolute path of `relPath` inside `root`, or `null` when it is empty, absolute, contains a NUL or control
 * character, a backslash, or a `.`/`..` segment. Purely lexical: callers that follow symlinks must still check the
 * real path with `isInside`.
 */
export function resolveInsideRoot(root: string, relPath: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (relPath === '' || /[\u0000-\u001f\\]/.test(relPath) || path.posix.isAbsolute(relPath)) return null;
  const segments = relPath.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  const resolved = path.resolve(root, ...segments);
  return isInside(path.resolve(root), resolved) ? resolved : null;
}

function pathHasHiddenSegment(root: string, target: string): boolean {
  return path
    .relative(root, target)
    .split(path.sep)
    .some((segment) => segment.startsWith('.') && segment !== '');
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}

function errorCode(err: unknown): string {
  if (typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string') {
    return (err as { code: string }).code;
  }
  return err instanceof Error ? err.message : String(err);
}
