/**
 * Issue 9, item 1: content from the wiki remote cannot take the server down. Hostile frontmatter (nesting thousands
 * of levels deep) arriving by a pull is reported as invalid pages while the server keeps serving; a fresh process
 * loading it through the server's loader exits normally; a loader that dies keeps the last snapshot serving.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/server/config/types.js';
import { loadWikiIsolated, type WikiLoaderLimits } from '../../../src/server/wiki/loader.js';
import { openWiki } from '../../../src/server/wiki/service.js';
import { LogCapture, REPO_ROOT, startTestServer, type TestServer } from '../../support/server.js';
import { createGitWiki, page } from './git-fixture.js';
import { hostilePages } from './hostile-pages.js';

const PAT = 'h'.repeat(20);
const auth = { Authorization: `Bearer ${PAT}` };
const TOO_DEEP = 'invalid YAML: frontmatter nested deeper than 32 levels';
const LOADER = path.join(REPO_ROOT, 'dist/server/wiki/loader.js');
const corpus = hostilePages();

let base: string;

beforeAll(async () => {
  if (!existsSync(LOADER)) throw new Error(`${LOADER} is missing: run npm run build first`);
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-hostile-wiki-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const hostileFiles = (): Record<string, string> => Object.fromEntries(corpus.map((p) => [p.path, p.text]));

describe('hostile pages arriving by POST /api/wiki/sync/pull', () => {
  let server: TestServer;
  beforeAll(async () => {
    const wikiDir = path.join(base, 'served');
    const repo = await createGitWiki(path.join(base, 'git'), wikiDir, {
      'concepts/concept-a.md': page('concept-a', 'Alpha', 'Alpha links [[concept-b]].'),
    });
    server = await startTestServer({ SVC_WIKI_DIR: wikiDir, SVC_SYSTEM_PAT: PAT });
    await repo.publish({
      ...hostileFiles(),
      'concepts/concept-b.md': page('concept-b', 'Beta', 'Beta arrived with the hostile pages.'),
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('are counted as invalid pages while the good pages are served', async () => {
    const res = await server.fetch('/api/wiki/sync/pull', { method: 'POST', headers: auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', changed: true });

    const stats = await server.fetch('/api/stats', { headers: auth });
    expect(stats.status).toBe(200);
    expect(await stats.json()).toMatchObject({ total_pages: 2, invalid_pages: corpus.length });
    const pages = (await (await server.fetch('/api/pages', { headers: auth })).json()) as { pages: { id: string }[] };
    expect(pages.pages.map((p) => p.id)).toEqual(['concept-a', 'concept-b']);
    for (const hostile of corpus) {
      const detail = await server.fetch(`/api/pages/${hostile.id}`, { headers: auth });
      expect(detail.status).toBe(404);
    }
  });

  it('keeps serving: health and a second pull still answer', async () => {
    expect((await server.fetch('/api/health')).status).toBe(200);
    const again = await server.fetch('/api/wiki/sync/pull', { method: 'POST', headers: auth });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ changed: false });
  });
});

/** Runs `script` (an ES module) in a fresh Node process; resolves with its exit status and output. */
function freshNode(
  script: string,
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe('a fresh Node process loading the hostile wiki', () => {
  let dir: string;
  beforeAll(async () => {
    dir = path.join(base, 'fresh');
    for (const [rel, text] of Object.entries(hostileFiles())) {
      await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await writeFile(path.join(dir, rel), text);
    }
    await writeFile(path.join(dir, 'concept-ok.md'), page('concept-ok', 'OK', 'Fine.'));
  });

  it.each([
    ['the server loader (worker thread)', 'loadWikiIsolated', 'dist/server/wiki/loader.js'],
    ['the wiki library in-process (what pks wiki uses)', 'loadWiki', 'dist/wiki/index.js'],
  ])('through %s exits normally with the pages reported invalid', async (_name, fn, module) => {
    const url = pathToFileURL(path.join(REPO_ROOT, module)).href;
    const result = await freshNode(
      `const m = await import(${JSON.stringify(url)});\n` +
        `const s = await m.${fn}(${JSON.stringify(dir)});\n` +
        `console.log(JSON.stringify({ pages: s.pages.map((p) => p.id), excluded: s.excluded.map((e) => e.reason) }));`,
    );
    expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({
      code: 0,
      signal: null,
      stderr: '',
    });
    expect(JSON.parse(result.stdout)).toEqual({
      pages: ['concept-ok'],
      excluded: corpus.map(() => TOO_DEEP),
    });
  });
});

describe('a loader that dies', () => {
  const configFor = (wikiDir: string) => ({ wikiDir }) as Config;

  it('keeps the last good snapshot serving and logs why', async () => {
    const dir = path.join(base, 'dies');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'concept-a.md'), page('concept-a', 'A', 'Alpha.'));
    let limits: Partial<WikiLoaderLimits> = {};
    const logs = new LogCapture();
    const wiki = await openWiki(configFor(dir), pino({ level: 'info' }, logs), {
      refreshIntervalMs: 0,
      load: (d) => loadWikiIsolated(d, limits),
    });
    try {
      const good = wiki.snapshot();
      expect(good.pages.map((p) => p.id)).toEqual(['concept-a']);

      // 4 MiB of heap cannot hold 2,000 pages of 8 KiB: the worker dies of memory exhaustion.
      const filler = 'word '.repeat(1_600);
      for (let i = 0; i < 2_000; i++) {
        await writeFile(path.join(dir, `concept-f${i}.md`), page(`concept-f${i}`, `F${i}`, filler));
      }
      limits = { maxOldGenerationSizeMb: 4, maxYoungGenerationSizeMb: 1 };
      expect(await wiki.refreshNow()).toBe(false);
      expect(wiki.snapshot()).toBe(good);
      expect(logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual(
        expect.objectContaining({
          msg: 'wiki load failed; keeping the last snapshot',
          // pino appends the cause (Node's own words) to the message.
          err: expect.objectContaining({
            message: expect.stringMatching(/^wiki load ran out of memory \(limit 4 MiB\)/),
          }),
        }),
      );

      limits = { timeoutMs: 1 };
      expect(await wiki.refreshNow()).toBe(false);
      expect(wiki.snapshot()).toBe(good);
      expect(logs.text).toContain('wiki load did not finish within 0.001 s');

      limits = {};
      expect(await wiki.refreshNow()).toBe(true);
      expect(wiki.snapshot().pages).toHaveLength(2_001);
    } finally {
      await wiki.close();
    }
  });
});
