/**
 * The served view of a wiki (CONTRACT §13.1 served pages, §13.2 link index, §13.3 cache): built once from a scan,
 * immutable afterwards, so a server can swap snapshots atomically.
 */
import { compareStrings, outgoingTargets } from './links.js';
import { scanWiki } from './scan.js';
import { WikiSearchIndex } from './search.js';
import type { ExcludedFile, PageFile, WikiPage, WikiScan } from './types.js';

export interface WikiSnapshot {
  /** The directory as given. */
  readonly root: string;
  /** `false` when the directory does not exist (empty wiki). */
  readonly exists: boolean;
  /** When the snapshot was built. */
  readonly loadedAt: Date;
  /** Every candidate file, sorted by path (lint input). */
  readonly files: readonly PageFile[];
  /** Served pages, sorted by id. */
  readonly pages: readonly WikiPage[];
  readonly byId: ReadonlyMap<string, WikiPage>;
  /** Candidate files that are not served, with the reason (`invalid_pages`). */
  readonly excluded: readonly ExcludedFile[];
  /** Page id → distinct outgoing link targets (sorted, own id removed; targets may be missing pages). */
  readonly outgoing: ReadonlyMap<string, readonly string[]>;
  /** Page id → ids of other served pages linking to it (sorted). */
  readonly backlinks: ReadonlyMap<string, readonly string[]>;
  readonly search: WikiSearchIndex;
  /** Diagnostics from the walk (e.g. symlinks leaving the root); not pages. */
  readonly ignored: WikiScan['ignored'];
}

/** Served pages of a scan: valid pages whose id no earlier file (by path) used; the rest with reasons. */
export function selectServedPages(files: readonly PageFile[]): { pages: WikiPage[]; excluded: ExcludedFile[] } {
  const firstPathById = new Map<string, string>();
  const pages: WikiPage[] = [];
  const excluded: ExcludedFile[] = [];
  for (const file of files) {
    const earlier = file.id === null ? undefined : firstPathById.get(file.id);
    if (file.id !== null && earlier === undefined) firstPathById.set(file.id, file.path);
    if (file.page === null) {
      excluded.push({ path: file.path, page_id: file.id, reason: file.invalidReason ?? 'invalid page' });
    } else if (earlier !== undefined) {
      excluded.push({ path: file.path, page_id: file.id, reason: `duplicate page id (first occurrence: ${earlier})` });
    } else {
      pages.push(file.page);
    }
  }
  pages.sort((a, b) => compareStrings(a.id, b.id));
  return { pages, excluded };
}

/** Build the served snapshot (pages, link index, search index) of a scan, synchronously. */
export function buildSnapshot(scan: WikiScan, now: Date = new Date()): WikiSnapshot {
  const base = assemble(scan, now);
  return { ...base, search: new WikiSearchIndex(base.pages) };
}

/** `buildSnapshot`, building the search index in slices that yield to the event loop. */
export async function buildSnapshotAsync(scan: WikiScan, now: Date = new Date()): Promise<WikiSnapshot> {
  const base = assemble(scan, now);
  // assemble() holds the thread for tens of ms on a large wiki: let waiting work run before the index slices.
  await new Promise<void>((resolve) => setImmediate(resolve));
  return { ...base, search: await WikiSearchIndex.build(base.pages) };
}

/** Everything but the search index. */
function assemble(scan: WikiScan, now: Date): Omit<WikiSnapshot, 'search'> {
  const { pages, excluded } = selectServedPages(scan.files);
  const byId = new Map<string, WikiPage>();
  /** Page id → its position in `pages`: one lookup per link target finds where its backlinks go. */
  const positions = new Map<string, number>();
  for (let at = 0; at < pages.length; at++) {
    byId.set(pages[at]!.id, pages[at]!);
    positions.set(pages[at]!.id, at);
  }
  const outgoing = new Map<string, string[]>();
  const linkedFrom: (string[] | undefined)[] = new Array<string[] | undefined>(pages.length);
  for (const page of pages) {
    const targets = outgoingTargets(page.links, page.id);
    outgoing.set(page.id, targets);
    for (const target of targets) {
      const at = positions.get(target);
      if (at === undefined) continue;
      // Pages are visited in id order, so the lists come out sorted.
      (linkedFrom[at] ??= []).push(page.id);
    }
  }
  const incoming = new Map<string, string[]>();
  for (let at = 0; at < pages.length; at++) {
    if (linkedFrom[at] !== undefined) incoming.set(pages[at]!.id, linkedFrom[at]!);
  }
  return {
    root: scan.root,
    exists: scan.exists,
    loadedAt: now,
    files: scan.files,
    pages,
    byId,
    excluded,
    outgoing,
    backlinks: incoming,
    ignored: scan.ignored,
  };
}

/** Walk, read and index a wiki directory. A missing directory gives an empty snapshot. */
export async function loadWiki(root: string): Promise<WikiSnapshot> {
  return buildSnapshotAsync(await scanWiki(root));
}

/** A snapshot with no pages (e.g. before the first load). */
export function emptySnapshot(root = ''): WikiSnapshot {
  return buildSnapshot({ root, exists: false, files: [], ignored: [] });
}

/** Outgoing link targets of a served page (`[]` for an unknown id). */
export function linksOf(snapshot: WikiSnapshot, id: string): readonly string[] {
  return snapshot.outgoing.get(id) ?? [];
}

/** Backlinks of a served page (`[]` for an unknown id or no backlinks). */
export function backlinksOf(snapshot: WikiSnapshot, id: string): readonly string[] {
  return snapshot.backlinks.get(id) ?? [];
}
