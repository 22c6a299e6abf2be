/**
 * README command 1 as a newcomer meets it: `./scripts/dev-server.sh` alone, in a checkout that has never been
 * built (no dist/, no web/dist/, no Neo4j launcher), serves the graph; then Chromium signs in through /login and
 * the development identity provider (any name), opens a sample paper with its figures and a wiki page whose
 * mathematics is typeset correctly.
 *
 * The checkout is a copy of this working tree's files as git lists them (tracked and untracked, not ignored: what
 * a clone of this work holds) with `node_modules` linked to the installed one, so no registry is needed and the
 * script's own steps — install check, build, Neo4j launcher build and class-data archive, Neo4j, wiki sync,
 * snapshot, stand-ins, sample papers — all run. The script runs as a child process group and is stopped at the end.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/server.js';
import { CHROMIUM, launchBrowser, openPage, SCREENSHOT_DIR, type WebPage } from './support/browser.js';
import { expectTypeset } from './support/katex-geometry.js';

const JAVA = spawnSync('java', ['-version']).status === 0 && spawnSync('mvn', ['-v']).status === 0;
/** The first start builds everything (TypeScript, the front end, the Neo4j launcher and its archive). */
const FIRST_START_MS = 20 * 60_000;

/** A copy of the working tree's files (git ls-files: tracked and untracked, not ignored), node_modules linked. */
function checkoutCopy(into: string): string {
  const tree = path.join(into, 'pks');
  mkdirSync(tree, { recursive: true });
  const listed = spawnSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  expect(listed.status).toBe(0);
  // Files deleted in the working tree are still listed: tar skips them.
  const tar = spawnSync(
    'bash',
    ['-c', 'tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$0"', tree],
    {
      cwd: REPO_ROOT,
      input: listed.stdout,
    },
  );
  expect(tar.status).toBe(0);
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  return tree;
}

/** Whether `port` can be listened on at 127.0.0.1 now. */
const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * `count` consecutive free ports below Linux's ephemeral range (32768 and up): the first start takes minutes, and a
 * port from there (`listen(0)`, outgoing connections) may be taken by someone else meanwhile.
 */
async function quietPorts(count: number): Promise<number> {
  for (;;) {
    const first = 21_000 + Math.floor(Math.random() * 9_000);
    let free = true;
    for (let p = first; p < first + count && free; p++) free = await canListen(p);
    if (free) return first;
  }
}

describe.skipIf(!CHROMIUM || !JAVA)('README command 1: a newcomer with only ./scripts/dev-server.sh', () => {
  let temp = '';
  let child: ChildProcess;
  let closed: Promise<unknown>;
  let stderr = '';
  let url = '';
  let browser: Browser;
  let w: WebPage;

  beforeAll(async () => {
    // The linked node_modules must already match the lockfile: the script would otherwise run `npm ci` in it,
    // under every other test.
    const lock = createHash('sha256')
      .update(readFileSync(path.join(REPO_ROOT, 'package-lock.json')))
      .digest('hex');
    const stamp = readFileSync(path.join(REPO_ROOT, 'node_modules/.pks-lock.sha256'), 'utf8').trim();
    if (stamp !== lock)
      throw new Error('node_modules does not match package-lock.json: run scripts/install-test-deps.sh');

    temp = mkdtempSync(path.join(os.tmpdir(), 'pks-dev-first-'));
    const tree = checkoutCopy(temp);
    // pksd on the first port, the stand-ins on the six after it.
    const port = await quietPorts(7);
    url = `http://127.0.0.1:${port}`;
    child = spawn('./scripts/dev-server.sh', [], {
      cwd: tree,
      env: {
        PATH: process.env['PATH'],
        HOME: os.homedir(),
        SVC_HTTP_ADDR: `127.0.0.1:${port}`,
        // Fixed ports by default (4310…4315); tests running beside this one may hold those.
        PKS_DEV_UPSTREAMS_PORT: String(port + 1),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    closed = new Promise((resolve) => child.on('close', resolve));
    child.stdout!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no start within ${FIRST_START_MS} ms:\n${stderr}`)),
        FIRST_START_MS,
      );
      child.stderr!.on('data', () => stderr.includes('pksd listening on') && (clearTimeout(timer), resolve()));
      child.on('exit', (code) => reject(new Error(`dev-server.sh exited ${code}:\n${stderr}`)));
    });
    browser = await launchBrowser();
    w = await openPage(browser, url);
  }, FIRST_START_MS + 60_000);

  afterAll(async () => {
    await w?.close();
    await browser?.close();
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await closed;
    }
    writeFileSync(path.join(SCREENSHOT_DIR, 'dev-server-first-start.log'), stderr);
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  it('builds and brings up the graph by itself, and says how to sign in, with no stray warning', async () => {
    expect(stderr).toContain('neo4j: building the Neo4j launcher (mvn package, once)');
    expect(stderr).toMatch(/Graph: {8}bolt:\/\/127\.0\.0\.1:\d+ \(Neo4j 5\.26/);
    expect(stderr).toContain(`Sign in: ${url}/login (development identity provider: any name)`);
    expect(stderr).not.toContain('install-test-deps');
    // pksd's log is JSON lines on a pipe; nothing else in the output says "warn" or speaks of strict mode.
    const other = stderr.split('\n').filter((l) => !l.startsWith('{'));
    expect(other.filter((l) => /warn|strict mode|deprecat/i.test(l))).toEqual([]);
    const pat = /Bearer ([^']+)'/.exec(stderr)?.[1] ?? '';
    const stats = (await (
      await fetch(`${url}/api/graph/stats`, { headers: { Authorization: `Bearer ${pat}` } })
    ).json()) as { label_counts: Record<string, number> };
    expect(stats.label_counts['Paper']).toBeGreaterThan(0);
  });

  it('a browser signs in through /login with any name, opens a sample paper with figures and a wiki page with mathematics', async () => {
    const { page } = w;
    await page.goto(`${url}/login`);
    await page.getByRole('button', { name: 'Sign in with the development identity provider' }).click();
    // The development identity provider's own page: any name.
    await page.getByRole('heading', { name: 'Development identity provider' }).waitFor();
    await page.getByLabel('Your name').fill('Grace Hopper');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'dev-server-identity-provider.png') });
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Welcome, Grace Hopper' }).waitFor({ timeout: 60_000 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'dev-server-signed-in.png'), fullPage: true });

    // The sample papers were stored at start (in the background): the list shows them with their titles.
    await expect
      .poll(
        async () => {
          await page.goto(`${url}/papers`);
          await page
            .locator('main')
            .getByText('A fast quantum mechanical algorithm for database search')
            .first()
            .waitFor({ timeout: 10_000 })
            .catch(() => undefined);
          return page.locator('main').getByText('A fast quantum mechanical algorithm for database search').count();
        },
        { timeout: 120_000 },
      )
      .toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'dev-server-papers.png'), fullPage: true });

    await page.goto(`${url}/papers/quant-ph/9508027`);
    await page
      .getByRole('heading', {
        name: 'Polynomial-Time Algorithms for Prime Factorization and Discrete Logarithms on a Quantum Computer',
      })
      .first()
      .waitFor();
    const gallery = page.getByRole('region', { name: /^Figures/ });
    await gallery.getByRole('heading', { name: 'Figures (2)' }).waitFor({ timeout: 60_000 });
    const images = gallery.locator('img');
    await expect.poll(() => images.count()).toBe(2);
    // Real images: each decoded to its drawn size.
    await expect
      .poll(() => images.evaluateAll((els) => els.map((e) => (e as unknown as { naturalWidth: number }).naturalWidth)))
      .toEqual([640, 640]);
    await expect(
      gallery.getByText('Figure 2: Probability of each measurement outcome', { exact: false }).count(),
    ).resolves.toBe(1);
    // The markdown is typeset by a chunk loaded on demand: the screenshot shows the paper, not its placeholder.
    await page.getByText('Typesetting…').waitFor({ state: 'detached', timeout: 60_000 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'dev-server-paper.png'), fullPage: true });

    await page.goto(`${url}/wiki/prim-quantum-fourier-transform`);
    await page.getByRole('heading', { level: 1, name: 'Quantum Fourier transform' }).waitFor();
    await page.locator('#wiki-body .katex').first().waitFor();
    await page.evaluate(
      () => (globalThis as unknown as { document: { fonts: { ready: Promise<unknown> } } }).document.fonts.ready,
    );
    await expectTypeset(page, '#wiki-body', { kind: 'superscript', tex: 'N = 2^n', base: '2', script: 'n' });
    await expectTypeset(page, '#wiki-body', {
      kind: 'fraction',
      tex: '\\mathrm{QFT}_N\\,|x\\rangle = \\frac{1}{\\sqrt{N}} \\sum_{y=0}^{N-1} e^{2\\pi i\\,xy/N}\\,|y\\rangle,',
      numerator: '1',
      denominator: 'N',
    });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'dev-server-wiki-math.png'), fullPage: true });
    expect(w.cspViolations).toEqual([]);
  }, 240_000);
});

describe.skipIf(spawnSync('script', ['--version']).status !== 0)(
  'pksd logs: readable in a terminal, JSON otherwise',
  () => {
    // One log line from the server's logger, run from the sources.
    const command =
      `node --import ./test/support/upstreams/ts-register.mjs --input-type=module -e "` +
      `const { createLogger } = await import('./src/server/logger.ts'); ` +
      `createLogger('info').info({ paper: '2501.00010' }, 'stored');"`;

    it('writes pino-pretty lines (time, level, message, fields) when standard error is a terminal', () => {
      // script(1) runs the command on a pseudo-terminal and copies what it shows.
      const shown = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: REPO_ROOT, encoding: 'utf8' });
      expect(shown.status).toBe(0);
      const text = stripVTControlCharacters(shown.stdout).replace(/\r/g, '');
      expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: stored\n {4}paper: "2501\.00010"\n$/);
    });

    it('writes one JSON object a line when standard error is a pipe', () => {
      const piped = spawnSync('bash', ['-c', command], { cwd: REPO_ROOT, encoding: 'utf8' });
      expect(piped.status).toBe(0);
      expect(JSON.parse(piped.stderr)).toMatchObject({
        level: 30,
        service: 'pksd',
        paper: '2501.00010',
        msg: 'stored',
      });
    });
  },
);
