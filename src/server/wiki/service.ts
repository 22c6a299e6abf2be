/**
 * The server's wiki (CONTRACT §13.3–13.4, §1.4): the in-memory snapshot of the checkout, its periodic refresh, the
 * local git status and the fast-forward pull. Domain code: no HTTP framework; pull failures are the domain errors
 * of `shared/domain-errors` (a checkout that cannot be pulled: `ConflictError`; git failing: `UpstreamError('git')`),
 * except that git itself not being runnable stays a `GitUnavailableError` (a server fault, CONTRACT §13.4: 500).
 */
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import type { Logger } from 'pino';
import type { PullResult, SyncStatus, WikiLocation } from '../../shared/api/wiki-sync.js';
import { ConflictError, UpstreamError } from '../../shared/domain-errors.js';
import { emptySnapshot, type WikiSnapshot } from '../../wiki/index.js';
import type { Config } from '../config/types.js';
import type { ClusterNotifications } from '../db/notifications.js';
import type { AnnouncedWikiHead } from '../db/wiki-announced.js';
import {
  directoryExists,
  GitUnavailableError,
  headCommit,
  isWorkTree,
  PULL_GIT_TIMEOUT_MS,
  runGit,
  STATUS_GIT_TIMEOUT_MS,
  utcSeconds,
  type GitResult,
} from './checkout.js';
import { loadWikiIsolated, loaderWorkerFile } from './loader.js';

/** CONTRACT §1.4 "Wiki cache refresh". */
export const WIKI_REFRESH_INTERVAL_MS = 60_000;

/** The server's wiki: the in-memory snapshot of the checkout, its refresh, and git sync (CONTRACT §13.3–13.4). */
export interface WikiService {
  /** The checkout directory (`SVC_WIKI_DIR`). */
  readonly dir: string;
  /** The current snapshot (swapped atomically by refreshes; never mutated). */
  snapshot(): WikiSnapshot;
  /** Reloads the checkout now (serialised with other refreshes); a failed load keeps the last snapshot. */
  refreshNow(): Promise<boolean>;
  /**
   * One tick of the periodic refresh: reloads when `git rev-parse HEAD` changed since the last successful load, or
   * always when the directory is not a git checkout. Resolves `true` when a new snapshot was installed.
   */
  refreshIfChanged(): Promise<boolean>;
  /** Local git status, no network (`GET /api/wiki/sync/status`). */
  syncStatus(): Promise<SyncStatus>;
  /** `git fetch --prune` + `git pull --ff-only` + refresh (`POST /api/wiki/sync/pull`); serialised. */
  pull(): Promise<PullResult>;
  close(): Promise<void>;
}

/** Runs `fn` every `ms`; returns the cancel function. */
export type Scheduler = (fn: () => void, ms: number) => () => void;

export interface WikiServiceOptions {
  /** Period of the refresh check (default 60 s); 0 disables the timer (ticks are then driven by the caller). */
  readonly refreshIntervalMs?: number;
  /** Timer source, injectable so tests drive ticks without sleeping. */
  readonly scheduler?: Scheduler;
  /** Directory `external` is computed against (default: the process working directory). */
  readonly cwd?: string;
  /** Snapshot loader (default `loadWikiIsolated`: parsing in a resource-limited worker thread). */
  readonly load?: (dir: string) => Promise<WikiSnapshot>;
  /**
   * Cross-instance notifications (CONTRACT §21): a pull here announces its commit on the `wiki` channel, and a
   * commit announced by another instance is pulled here too when HEAD differs.
   */
  readonly notifications?: ClusterNotifications;
  /**
   * Where a pull records the commit it announces (PostgreSQL, §21), so an instance whose listener was down while a
   * pull was announced catches up when it reconnects. Absent: a missed announcement waits for the next pull.
   */
  readonly announced?: AnnouncedWikiHead | null;
}

const defaultScheduler: Scheduler = (fn, ms) => {
  const timer = setInterval(fn, ms);
  timer.unref();
  return () => clearInterval(timer);
};

const short = (hash: string | null): string | null => (hash === null ? null : hash.slice(0, 7));
const message = (result: GitResult): string =>
  result.stderr.trim() || result.stdout.trim() || `exit code ${String(result.code)}`;

/** `external`: the directory is not the working directory nor below it. */
export function isExternal(dir: string, cwd: string): boolean {
  const rel = path.relative(path.resolve(cwd), path.resolve(cwd, dir));
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}

/** Builds the wiki service and loads the checkout once before returning (CONTRACT §1.4 step 5). */
export async function openWiki(config: Config, logger: Logger, options: WikiServiceOptions = {}): Promise<WikiService> {
  const service = new WikiServiceImpl(config.wikiDir, logger, options);
  await service.start(options.refreshIntervalMs ?? WIKI_REFRESH_INTERVAL_MS, options.scheduler ?? defaultScheduler);
  if (options.notifications) service.follow(options.notifications);
  return service;
}

class WikiServiceImpl implements WikiService {
  readonly dir: string;
  private readonly log: Logger;
  private readonly load: (dir: string) => Promise<WikiSnapshot>;
  private readonly defaultLoader: boolean;
  private readonly external: boolean;
  private current: WikiSnapshot;
  /** HEAD at the last successful load (`null`: not a git checkout); `undefined` before any successful load. */
  private loadedHead: string | null | undefined = undefined;
  private refreshChain: Promise<unknown> = Promise.resolve();
  private pullChain: Promise<unknown> = Promise.resolve();
  private ticking = false;
  private cancelTimer: (() => void) | null = null;
  private closed = false;
  private notifications: ClusterNotifications | null = null;
  private unfollow: (() => void) | null = null;
  private readonly announced: AnnouncedWikiHead | null;

  constructor(dir: string, logger: Logger, options: WikiServiceOptions) {
    this.dir = dir;
    this.log = logger.child({ component: 'wiki' });
    this.load = options.load ?? loadWikiIsolated;
    this.defaultLoader = options.load === undefined;
    this.external = isExternal(dir, options.cwd ?? process.cwd());
    this.current = emptySnapshot(dir);
    this.announced = options.announced ?? null;
  }

  async start(intervalMs: number, scheduler: Scheduler): Promise<void> {
    if (this.defaultLoader && loaderWorkerFile() === null) {
      this.log.warn('wiki loader worker not built (npm run build): parsing the wiki on the main thread');
    }
    await this.refreshNow();
    const snap = this.current;
    this.log.info(
      { dir: this.dir, pages: snap.pages.length, invalid: snap.excluded.length, exists: snap.exists },
      snap.exists
        ? `wiki loaded: ${snap.pages.length} pages from ${this.dir}`
        : `wiki directory ${this.dir} does not exist; serving an empty wiki`,
    );
    if (intervalMs > 0) {
      this.cancelTimer = scheduler(() => {
        void this.refreshIfChanged().catch((err: unknown) => this.log.warn({ err }, 'wiki refresh check failed'));
      }, intervalMs);
    }
  }

  snapshot(): WikiSnapshot {
    return this.current;
  }

  refreshNow(): Promise<boolean> {
    const run = this.refreshChain.then(() => this.reload());
    this.refreshChain = run.catch(() => undefined);
    return run;
  }

  async refreshIfChanged(): Promise<boolean> {
    if (this.closed || this.ticking) return false;
    this.ticking = true;
    try {
      const head = await this.head();
      if (head !== null && this.loadedHead === head) return false;
      return await this.refreshNow();
    } finally {
      this.ticking = false;
    }
  }

  private async head(): Promise<string | null> {
    try {
      return await headCommit(this.dir);
    } catch {
      return null; // git not runnable: treat as a plain directory
    }
  }

  private async reload(): Promise<boolean> {
    if (this.closed) return false;
    const head = await this.head();
    const started = performance.now();
    let snap: WikiSnapshot;
    try {
      snap = await this.load(this.dir);
    } catch (err) {
      this.log.error({ err, dir: this.dir }, 'wiki load failed; keeping the last snapshot');
      return false;
    }
    if (this.closed) return false;
    const changed = this.loadedHead !== head;
    this.current = snap;
    this.loadedHead = head;
    this.log.debug(
      { pages: snap.pages.length, ms: Math.round(performance.now() - started), head: short(head) },
      changed ? 'wiki snapshot loaded (new HEAD)' : 'wiki snapshot reloaded',
    );
    return true;
  }

  private async location(): Promise<WikiLocation> {
    return { exists: await directoryExists(this.dir), external: this.external };
  }

  async syncStatus(): Promise<SyncStatus> {
    const wiki = await this.location();
    const t = STATUS_GIT_TIMEOUT_MS;
    let enabled = false;
    try {
      enabled = wiki.exists && (await isWorkTree(this.dir, t));
    } catch (err) {
      if (!(err instanceof GitUnavailableError)) throw err;
    }
    if (!enabled) return { wiki, git: { enabled: false } };
    const run = (args: string[]) => runGit(this.dir, args, t).catch((): GitResult | null => null);
    const ok = (r: GitResult | null): string | null => (r !== null && r.code === 0 ? r.stdout.trim() : null);
    const [head, branchRef, upstreamRef, counts, status] = await Promise.all([
      run(['log', '-1', '--format=%H %cI']),
      run(['symbolic-ref', '--quiet', '--short', 'HEAD']),
      run(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}']),
      run(['rev-list', '--left-right', '--count', 'HEAD...@{upstream}']),
      run(['status', '--porcelain']),
    ]);
    const [hash, time] = (ok(head) ?? '').split(' ');
    const branch = ok(branchRef) || null;
    const upstream = ok(upstreamRef) || null;
    const countParts = (ok(counts) ?? '').split(/\s+/);
    const ahead = upstream !== null && countParts.length === 2 ? Number(countParts[0]) : null;
    const behind = upstream !== null && countParts.length === 2 ? Number(countParts[1]) : null;
    // Besides its code and message, the warning names the branch (`null` when HEAD is detached).
    const onMainBranch = branch === 'main' || branch === 'master';
    const warnings = onMainBranch
      ? []
      : [
          {
            code: 'wiki_branch_not_main',
            message:
              branch === null
                ? 'wiki checkout is not on a branch (detached HEAD), expected main or master'
                : `wiki checkout is on branch '${branch}', expected main or master`,
            branch,
          },
        ];
    return {
      wiki,
      git: {
        enabled: true,
        branch,
        commit: hash ? hash.slice(0, 7) : null,
        commit_time: time ? utcSeconds(time) : null,
        upstream,
        ahead: Number.isFinite(ahead) ? ahead : null,
        behind: Number.isFinite(behind) ? behind : null,
        // A status that fails or times out reports the tree as dirty (a pull would refuse it too).
        dirty: ok(status) !== '',
        warnings,
      },
    };
  }

  pull(): Promise<PullResult> {
    const run = this.pullChain.then(() => this.pullOnce());
    this.pullChain = run.catch(() => undefined);
    return run.then((body) => {
      this.announce();
      return body;
    });
  }

  /** Pulls the commits other instances announce (CONTRACT §21: every instance on the same commit within 10 s). */
  follow(notifications: ClusterNotifications): void {
    this.notifications = notifications;
    this.unfollow = notifications.subscribe('wiki', (commit) => {
      if (commit !== null) void this.catchUp(commit);
      else void this.catchUpMissed();
    });
  }

  /** Tells the other instances the commit a pull brought the checkout to (they pull when theirs differs). */
  private announce(): void {
    const notifications = this.notifications;
    if (notifications === null) return;
    void this.head()
      .then(async (commit) => {
        if (commit === null) return;
        // Recorded first: an instance that misses the notification (listener down) reads it when it reconnects.
        await this.announced
          ?.record(commit, Date.now())
          .catch((err: unknown) => this.log.warn({ err }, 'wiki pull: could not record the announced commit'));
        await notifications.publish('wiki', commit);
      })
      .catch((err: unknown) => this.log.warn({ err }, 'wiki pull: could not notify the other instances'));
  }

  /**
   * The listener reconnected, so a pull announced meanwhile may have been missed: follow the last recorded one
   * (nothing to do when HEAD is that commit already).
   */
  private async catchUpMissed(): Promise<void> {
    if (this.announced === null || this.closed) return;
    let commit: string | null;
    try {
      commit = await this.announced.latest();
    } catch (err) {
      this.log.warn({ err }, 'wiki: could not read the last announced commit after the listener reconnected');
      return;
    }
    if (commit !== null) await this.catchUp(commit);
  }

  /**
   * Another instance pulled to `commit`: pull here too (serialised with this instance's pulls) unless HEAD is that
   * commit already, in which case only the snapshot may be behind (a checkout shared with that instance).
   */
  private catchUp(commit: string): Promise<void> {
    const run = this.pullChain.then(async () => {
      if (this.closed) return;
      if ((await this.head()) === commit) {
        await this.refreshIfChanged();
        return;
      }
      const body = await this.pullOnce();
      if (body.new_commit === null || !commit.startsWith(body.new_commit)) {
        this.log.warn(
          { announced: commit, new_commit: body.new_commit },
          "wiki pull after another instance's pull reached another commit",
        );
      }
    });
    this.pullChain = run.catch(() => undefined);
    return run.catch((err: unknown) =>
      this.log.warn({ err, announced: commit }, "wiki pull after another instance's pull failed"),
    );
  }

  private async pullOnce(): Promise<PullResult> {
    const dir = this.dir;
    const t = PULL_GIT_TIMEOUT_MS;
    // git not runnable rejects with GitUnavailableError, which is passed on as it is.
    const gitOrFail = (args: string[]): Promise<GitResult> => runGit(dir, args, t);
    const requireClean = async (): Promise<void> => {
      const status = await gitOrFail(['status', '--porcelain']);
      if (status.code !== 0) throw new UpstreamError('git', `git status failed: ${message(status)}`);
      if (status.stdout.trim() !== '') throw new ConflictError('wiki worktree has local changes');
    };

    if (!(await directoryExists(dir))) throw new ConflictError('wiki directory does not exist');
    const inside = await gitOrFail(['rev-parse', '--is-inside-work-tree']);
    if (inside.code !== 0 || inside.stdout.trim() !== 'true') {
      // e.g. "detected dubious ownership" when the checkout belongs to another user: worth a log line.
      if (inside.stderr.trim() !== '')
        this.log.warn({ dir, git: inside.stderr.trim() }, 'wiki pull: not a git checkout');
      throw new ConflictError('wiki directory is not a git checkout');
    }
    await requireClean();
    const oldHead = await headCommit(dir, t);

    const fetch = await gitOrFail(['fetch', '--prune']);
    if (fetch.code !== 0) throw new UpstreamError('git', `git fetch failed: ${message(fetch)}`);
    await requireClean();

    const pull = await gitOrFail(['pull', '--ff-only']);
    if (pull.code !== 0) {
      const detail = message(pull);
      if (await this.cannotFastForward(detail)) throw new ConflictError(`cannot fast-forward: ${detail}`);
      throw new UpstreamError('git', `git pull failed: ${detail}`);
    }

    await this.refreshNow();
    const newHead = await headCommit(dir, t);
    const [branchRef, status] = await Promise.all([
      gitOrFail(['symbolic-ref', '--quiet', '--short', 'HEAD']),
      gitOrFail(['status', '--porcelain']),
    ]);
    const changed = oldHead !== newHead;
    this.log.info({ old_commit: short(oldHead), new_commit: short(newHead), changed }, 'wiki pull done');
    return {
      status: 'ok',
      changed,
      old_commit: short(oldHead),
      new_commit: short(newHead),
      wiki: await this.location(),
      git: {
        commit: short(newHead),
        branch: branchRef.code === 0 ? branchRef.stdout.trim() || null : null,
        dirty: status.code !== 0 || status.stdout.trim() !== '',
      },
    };
  }

  /** Whether a failed `pull --ff-only` failed because the histories diverged. */
  private async cannotFastForward(stderr: string): Promise<boolean> {
    if (/not possible to fast-forward|cannot fast-forward|diverg|non-fast-forward/i.test(stderr)) return true;
    // Other wordings: HEAD is not an ancestor of the upstream (exit 1 = "no"; other codes = could not tell).
    const check = await runGit(this.dir, ['merge-base', '--is-ancestor', 'HEAD', '@{upstream}'], STATUS_GIT_TIMEOUT_MS);
    return check.code === 1;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unfollow?.();
    this.unfollow = null;
    this.cancelTimer?.();
    this.cancelTimer = null;
    await this.refreshChain;
  }
}
