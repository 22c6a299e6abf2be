import { describe, expect, it } from 'vitest';
import {
  buildSnapshot,
  buildSnapshotAsync,
  lintFiles,
  loadWiki,
  pageNode,
  scanWiki,
  searchWiki,
} from '../../src/wiki/index.js';
import { generateWiki } from './generate.js';
import { tempDir } from './helpers.js';

describe('generateWiki', () => {
  it('writes n valid, linked pages that lint without errors or warnings', async () => {
    const dir = await tempDir();
    const generated = await generateWiki(dir, 300);
    expect(generated.ids).toHaveLength(300);
    const snapshot = await loadWiki(dir);
    expect(snapshot.pages).toHaveLength(300);
    expect(snapshot.excluded).toEqual([]);
    const lint = lintFiles(snapshot.files, { now: new Date(2026, 0, 20) });
    expect(lint.errors).toBe(0);
    expect(lint.warnings).toBe(0);
    expect(searchWiki(snapshot, { q: 'qubit', include_sources: true }).total).toBeGreaterThan(0);
  });

  it('is deterministic for a seed', async () => {
    const a = await generateWiki(await tempDir(), 20, { seed: 7 });
    const b = await generateWiki(await tempDir(), 20, { seed: 7 });
    expect(a.ids).toEqual(b.ids);
    expect(a.bytes).toBe(b.bytes);
  });
});

describe('generated paper pages', () => {
  it('have ids that map to valid preprint ids', async () => {
    const dir = await tempDir();
    await generateWiki(dir, 40);
    const snapshot = await loadWiki(dir);
    const papers = snapshot.pages.filter((p) => p.type === 'source');
    expect(papers).toHaveLength(4);
    for (const p of papers) expect(pageNode(p).kind, p.id).toBe('paper');
  });
});

describe('loading large wikis', () => {
  it('yields to the event loop while loading and indexing', async () => {
    const dir = await tempDir();
    await generateWiki(dir, 1500);
    let ticks = 0;
    let running = true;
    const tick = (): void => {
      ticks++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const snapshot = await loadWiki(dir);
    running = false;
    expect(snapshot.pages).toHaveLength(1500);
    expect(ticks).toBeGreaterThan(1);
  });

  it('the async and sync snapshot builds agree', async () => {
    const dir = await tempDir();
    await generateWiki(dir, 200);
    const scan = await scanWiki(dir);
    const sync = buildSnapshot(scan);
    const viaAsync = await buildSnapshotAsync(scan);
    for (const q of ['qubit', 'hadamard gate', 'algo', 'nothing-here']) {
      expect(searchWiki(viaAsync, { q, limit: 100, include_sources: true })).toEqual(
        searchWiki(sync, { q, limit: 100, include_sources: true }),
      );
    }
    expect([...viaAsync.backlinks]).toEqual([...sync.backlinks]);
  });
});
