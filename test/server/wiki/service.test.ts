import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/server/config/types.js';
import { isExternal, openWiki, type Scheduler, type WikiService } from '../../../src/server/wiki/service.js';
import { loadWiki, type WikiSnapshot } from '../../../src/wiki/index.js';
import { LogCapture } from '../../support/server.js';
import { createGitWiki, git, page } from './git-fixture.js';

let base: string;
const silent = pino({ level: 'silent' });
const configFor = (wikiDir: string) => ({ wikiDir }) as Config;

/** A scheduler that never fires on its own: `tick()` runs the registered callback like a timer would. */
function manualScheduler(): Scheduler & { tick(): void; registered: number[]; cancelled: number } {
  let callback: (() => void) | null = null;
  const scheduler = ((fn: () => void, ms: number) => {
    callback = fn;
    scheduler.registered.push(ms);
    return () => {
      callback = null;
      scheduler.cancelled++;
    };
  }) as Scheduler & { tick(): void; registered: number[]; cancelled: number };
  scheduler.registered = [];
  scheduler.cancelled = 0;
  scheduler.tick = () => callback?.();
  return scheduler;
}

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-wiki-service-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('WikiService loading', () => {
  it('loads the checkout before returning and schedules a 60 s refresh', async () => {
    const dir = path.join(base, 'plain');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'concept-a.md'), page('concept-a', 'A', 'Alpha body.'));
    const scheduler = manualScheduler();
    const wiki = await openWiki(configFor(dir), silent, { scheduler });
    try {
      expect(wiki.snapshot().pages.map((p) => p.id)).toEqual(['concept-a']);
      expect(scheduler.registered).toEqual([60_000]);
    } finally {
      await wiki.close();
    }
    expect(scheduler.cancelled).toBe(1);
  });

  it('serves an empty wiki when the directory is missing', async () => {
    const wiki = await openWiki(configFor(path.join(base, 'does-not-exist')), silent, { refreshIntervalMs: 0 });
    try {
      expect(wiki.snapshot().exists).toBe(false);
      expect(wiki.snapshot().pages).toEqual([]);
    } finally {
      await wiki.close();
    }
  });

  it('keeps serving the last snapshot when a reload fails, and logs the failure', async () => {
    const dir = path.join(base, 'flaky');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'concept-a.md'), page('concept-a', 'A', 'Alpha body.'));
    let fail = false;
    const load = async (d: string): Promise<WikiSnapshot> => {
      if (fail) throw Object.assign(new Error(`EACCES: permission denied, scandir '${d}'`), { code: 'EACCES' });
      return loadWiki(d);
    };
    const logs = new LogCapture();
    const wiki = await openWiki(configFor(dir), pino({ level: 'info' }, logs), { refreshIntervalMs: 0, load });
    try {
      const first = wiki.snapshot();
      fail = true;
      await writeFile(path.join(dir, 'concept-b.md'), page('concept-b', 'B', 'Beta body.'));
      expect(await wiki.refreshIfChanged()).toBe(false);
      expect(wiki.snapshot()).toBe(first);
      expect(logs.text).toContain('wiki load failed; keeping the last snapshot');
      fail = false;
      expect(await wiki.refreshNow()).toBe(true);
      expect(wiki.snapshot().pages.map((p) => p.id)).toEqual(['concept-a', 'concept-b']);
    } finally {
      await wiki.close();
    }
  });

  it('a first load that fails starts with an empty wiki instead of crashing', async () => {
    const load = async (): Promise<WikiSnapshot> => {
      throw new Error('EACCES: permission denied');
    };
    const wiki = await openWiki(configFor(path.join(base, 'x')), silent, { refreshIntervalMs: 0, load });
    try {
      expect(wiki.snapshot().pages).toEqual([]);
    } finally {
      await wiki.close();
    }
  });
});

describe('WikiService periodic refresh', () => {
  it('reloads a non-git directory on every tick', async () => {
    const dir = path.join(base, 'plain-refresh');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'concept-a.md'), page('concept-a', 'A', 'Alpha body.'));
    let loads = 0;
    const scheduler = manualScheduler();
    const wiki = await openWiki(configFor(dir), silent, {
      scheduler,
      load: (d) => {
        loads++;
        return loadWiki(d);
      },
    });
    try {
      expect(loads).toBe(1);
      await writeFile(path.join(dir, 'concept-b.md'), page('concept-b', 'B', 'Beta body.'));
      expect(await wiki.refreshIfChanged()).toBe(true);
      expect(loads).toBe(2);
      expect(wiki.snapshot().byId.has('concept-b')).toBe(true);
    } finally {
      await wiki.close();
    }
  });

  it('reloads a git checkout only when HEAD changed, and picks up an out-of-band HEAD change on the timer', async () => {
    const root = path.join(base, 'git-refresh');
    await mkdir(root, { recursive: true });
    const repo = await createGitWiki(root, path.join(root, 'wiki'), {
      'concepts/concept-a.md': page('concept-a', 'A', 'Original alpha text.'),
    });
    let loads = 0;
    const scheduler = manualScheduler();
    const wiki: WikiService = await openWiki(configFor(repo.wiki), silent, {
      scheduler,
      load: (d) => {
        loads++;
        return loadWiki(d);
      },
    });
    try {
      expect(loads).toBe(1);
      // HEAD unchanged: the tick does not reload, even though an uncommitted file changed.
      await writeFile(path.join(repo.wiki, 'concepts', 'concept-a.md'), page('concept-a', 'A', 'Uncommitted text.'));
      expect(await wiki.refreshIfChanged()).toBe(false);
      expect(loads).toBe(1);
      await git(repo.wiki, 'checkout', '--quiet', '--', '.');

      // Someone runs `git pull` on the server outside the API: the next timer tick reloads.
      await repo.publish({ 'concepts/concept-a.md': page('concept-a', 'A', 'Updated alpha text.') });
      await git(repo.wiki, 'pull', '--quiet', '--ff-only');
      scheduler.tick();
      await expect
        .poll(() => wiki.snapshot().byId.get('concept-a')?.body, { timeout: 10_000 })
        .toBe('Updated alpha text.');
      expect(loads).toBe(2);
      expect(await wiki.refreshIfChanged()).toBe(false);
      expect(loads).toBe(2);
    } finally {
      await wiki.close();
    }
  });
});

describe('isExternal', () => {
  it('is false for the working directory and below, true elsewhere', () => {
    expect(isExternal('/srv/app', '/srv/app')).toBe(false);
    expect(isExternal('/srv/app/wiki', '/srv/app')).toBe(false);
    expect(isExternal('wiki', '/srv/app')).toBe(false);
    expect(isExternal('/srv/pks-wiki', '/srv/app')).toBe(true);
    expect(isExternal('../pks-wiki', '/srv/app')).toBe(true);
    expect(isExternal('/srv/app..x', '/srv/app')).toBe(true);
  });
});
