/**
 * Noncurrent-version pruning (CONTRACT §15.5): per key, keep the newest N eligible noncurrent versions.
 */
import type { AssetKind } from '../../shared/ids.js';
import type { ObjectStore, ObjectVersion } from './object-store.js';

/** `30s`, `15m`, `2h`, `1d`, `2w`, `1y` (fractions allowed) → milliseconds; `null` when malformed. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([smhdwy])\s*$/.exec(text);
  if (!m) return null;
  const unit = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_536_000 }[m[2] as 's'];
  return Number(m[1]) * unit * 1000;
}

/** `md` is accepted for `markdown`. */
export function parseKind(text: string): AssetKind | null {
  if (text === 'md') return 'markdown';
  return text === 'pdf' || text === 'markdown' || text === 'images' ? text : null;
}

export interface PruneOptions {
  readonly kind: AssetKind;
  /** Bucket-relative prefix. */
  readonly prefix: string;
  readonly keepLast: number;
  /** Only versions older than this are eligible. */
  readonly olderThanMs: number | null;
  readonly dryRun: boolean;
  readonly now: Date;
}

export interface PruneItem {
  /** Bucket-relative key. */
  readonly key: string;
  readonly versionId: string;
  readonly size: number;
  readonly ageSeconds: number;
  readonly deleteMarker: boolean;
  /** `DELETED`, `DELETE_PLANNED`, or `FAILED` (the delete was attempted and failed). */
  readonly action: 'DELETED' | 'DELETE_PLANNED' | 'FAILED';
  readonly error?: string;
}

/** Plans (and unless dry-run, performs) the deletions; items sorted by key, then newest first. */
export async function prune(store: ObjectStore, options: PruneOptions): Promise<PruneItem[]> {
  const appPrefix = `${options.kind}/${options.prefix}`;
  const byKey = new Map<string, ObjectVersion[]>();
  for await (const v of store.listVersions(appPrefix)) {
    if (v.isLatest) continue; // never the current version (a current delete marker included)
    const age = options.now.getTime() - v.lastModified.getTime();
    if (options.olderThanMs !== null && !(age > options.olderThanMs)) continue;
    (byKey.get(v.key) ?? byKey.set(v.key, []).get(v.key)!).push(v);
  }
  const doomed: ObjectVersion[] = [];
  for (const key of [...byKey.keys()].sort()) {
    const versions = byKey.get(key)!.sort((a, b) => b.lastModified.getTime() - a.lastModified.getTime());
    doomed.push(...versions.slice(options.keepLast));
  }
  const items: PruneItem[] = [];
  for (const v of doomed) {
    const base = {
      key: v.key.slice(options.kind.length + 1),
      versionId: v.versionId,
      size: v.size,
      ageSeconds: Math.max(0, Math.floor((options.now.getTime() - v.lastModified.getTime()) / 1000)),
      deleteMarker: v.deleteMarker,
    };
    if (options.dryRun) {
      items.push({ ...base, action: 'DELETE_PLANNED' });
      continue;
    }
    try {
      await store.deleteVersion(v.key, v.versionId);
      items.push({ ...base, action: 'DELETED' });
    } catch (err) {
      items.push({ ...base, action: 'FAILED', error: (err as Error).message });
    }
  }
  return items;
}

/** `3d`, `5h`, `12m`, `40s`: the largest whole unit. */
export function formatAge(seconds: number): string {
  if (seconds >= 86_400) return `${Math.floor(seconds / 86_400)}d`;
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)}h`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)}m`;
  return `${seconds}s`;
}
