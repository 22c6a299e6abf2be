/**
 * A real pksd serving the built front end (`web/dist`), signed in through the GitHub IdP double, with a wiki
 * checkout in a real git repository. The browser tests drive it exactly as a person would.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { multipart } from '../../server/papers/helpers.js';
import { createGitWiki, type GitWiki } from '../../server/wiki/git-fixture.js';
import { ensureGraphSchema } from '../../../src/server/graph/constraints.js';
import type { GraphClient } from '../../../src/server/graph/driver.js';
import { syncWikiToGraph } from '../../../src/server/graph/wiki-sync.js';
import { loadWiki } from '../../../src/wiki/index.js';
import { useFixture } from '../../support/fixture.js';
import { graphClientFor, startNeo4j, type Neo4jServer } from '../../support/neo4j.js';
import { REPO_ROOT, startTestServer, type TestServer } from '../../support/server.js';
import { startOnTop } from '../../support/start-on-top.js';
import { startGitHubDouble, type GitHubDouble } from '../../support/upstreams/github.js';
import { launchBrowser, openPage, type WebPage } from './browser.js';
import type { PageGlobals } from './page-globals.js';

export const SYSTEM_PAT = 'web-tests-system-pat-0001';
/** `PKS_TEST_WEB_DIST` lets parallel work build and test its own copy of the front end. */
export const WEB_DIST = process.env.PKS_TEST_WEB_DIST ?? path.join(REPO_ROOT, 'web/dist');

const run = promisify(execFile);

/**
 * Builds the front end when `web/dist` has no build (CI builds it in `npm run build` first). Test files run in
 * parallel: one builds (holding a lock directory), the others wait for its `index.html`.
 */
export async function ensureWebBuild(): Promise<void> {
  const index = path.join(WEB_DIST, 'index.html');
  if (existsSync(index)) return;
  const lock = path.join(REPO_ROOT, '.cache/web-build.lock');
  await mkdir(path.dirname(lock), { recursive: true });
  try {
    await mkdir(lock);
  } catch {
    const deadline = Date.now() + 120_000;
    while (!existsSync(index) || existsSync(lock)) {
      if (Date.now() > deadline) throw new Error(`web build did not finish (lock ${lock})`);
      await new Promise((r) => setTimeout(r, 200));
    }
    return;
  }
  try {
    await run(
      process.execPath,
      [path.join(REPO_ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts'],
      {
        cwd: REPO_ROOT,
      },
    );
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

export interface Stack {
  readonly server: TestServer;
  readonly gh: GitHubDouble;
  readonly wiki: GitWiki;
  readonly url: string;
  /** An API call with the system PAT. */
  api(pathname: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts the IdP double (signing in as `ada`), a git wiki holding `sample-wiki/` plus `extraPages`, and pksd with
 * the allow-list, the system PAT and `env`.
 */
export async function startStack(
  extraPages: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<Stack> {
  await ensureWebBuild();
  const base = await mkdtemp(path.join(os.tmpdir(), 'pks-web-'));
  const sample = path.join(base, 'sample');
  await mkdir(sample);
  await cp(path.join(REPO_ROOT, 'sample-wiki'), sample, { recursive: true });
  const files: Record<string, string> = {};
  for (const entry of await readdir(sample, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    files[path.relative(sample, abs)] = await readFile(abs, 'utf8');
  }
  const wiki = await createGitWiki(base, path.join(base, 'wiki'), { ...files, ...extraPages });
  const gh = await startGitHubDouble({
    id: 1815,
    login: 'ada',
    name: 'Ada Lovelace',
    email: 'ada@example.org',
    avatar_url: '',
  });
  const server = await startTestServer(
    {
      ...gh.env,
      SVC_ALLOWED_IDP_LOGINS: 'ada',
      SVC_SYSTEM_PAT: SYSTEM_PAT,
      SVC_WIKI_DIR: wiki.wiki,
      SVC_LOG_LEVEL: 'warn',
      ...env,
    },
    { webRoot: WEB_DIST },
  );
  return {
    server,
    gh,
    wiki,
    url: server.url,
    api: (pathname, init = {}) =>
      server.fetch(pathname, { ...init, headers: { Authorization: `Bearer ${SYSTEM_PAT}`, ...init.headers } }),
    async close() {
      await server.close();
      await gh.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** `startStack(extraPages, env)` for the tests of the calling `describe`, closed after them. */
export function useStack(extraPages: Record<string, string> = {}, env: Record<string, string> = {}): () => Stack {
  return useFixture(
    'the stack',
    () => startStack(extraPages, env),
    (stack) => stack.close(),
  );
}

/** Signs in through /login and the IdP double; ends on `next` (default the overview). */
export async function signIn(page: Page, url: string, next = '/'): Promise<void> {
  await page.goto(`${url}/login?next=${encodeURIComponent(next)}`);
  await page.getByRole('button', { name: 'Sign in with GitHub' }).click();
  await page.waitForURL((u) => u.pathname === next.split('?')[0], { timeout: 60_000 });
}

/** A fresh page (see `openPage`) signed in on the server at `url`, ending on `next`. */
export async function openSignedIn(browser: Browser, url: string, next = '/'): Promise<WebPage> {
  const w = await openPage(browser, url);
  await signIn(w.page, url, next);
  return w;
}

/** A stack, Chromium and a page signed in on the stack; `close` ends all three. */
export interface SignedInStack {
  readonly stack: Stack;
  readonly browser: Browser;
  readonly w: WebPage;
  close(): Promise<void>;
}

/** `startStack(extraPages, env)`, then Chromium with a page signed in on it (on the overview). */
export async function startSignedIn(
  extraPages: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<SignedInStack> {
  const stack = await startStack(extraPages, env);
  return startOnTop(
    () => stack.close(),
    async () => {
      const browser = await launchBrowser();
      return startOnTop(
        () => browser.close(),
        async () => {
          const w = await openSignedIn(browser, stack.url);
          return { stack, browser, w, close: () => w.close() };
        },
      );
    },
  );
}

/** `startSignedIn(extraPages, env)` for the tests of the calling `describe`, closed after them. */
export function useSignedIn(
  extraPages: Record<string, string> = {},
  env: Record<string, string> = {},
): () => SignedInStack {
  return useFixture(
    'the signed-in stack',
    () => startSignedIn(extraPages, env),
    (web) => web.close(),
  );
}

/** A signed-in stack whose graph is a real Neo4j of its own; `close` stops Neo4j too. */
export interface GraphSignedInStack extends SignedInStack {
  readonly neo: Neo4jServer;
}

/**
 * Starts a real Neo4j, fills it through a graph client of its own with `seed` (the client is closed after), then
 * `startSignedIn` with that Neo4j as pksd's graph and `env`.
 */
export async function startGraphSignedIn(
  seed: (graph: GraphClient) => Promise<void>,
  env: Record<string, string> = {},
): Promise<GraphSignedInStack> {
  const neo = await startNeo4j();
  return startOnTop(
    () => neo.stop(),
    async () => {
      const graph = graphClientFor(neo);
      try {
        await seed(graph);
      } finally {
        await graph.close();
      }
      return { ...(await startSignedIn({}, { GRAPHDB_URI: neo.boltUri, ...env })), neo };
    },
  );
}

/** What `pksd wiki sync` makes of the sample wiki, which is also every stack's wiki checkout (CONTRACT §6). */
export async function seedSampleWiki(graph: GraphClient): Promise<void> {
  await ensureGraphSchema(graph);
  await syncWikiToGraph(graph, await loadWiki(path.join(REPO_ROOT, 'sample-wiki')));
}

/** The session token the front end stored (PocketBase SDK's LocalAuthStore). */
export async function sessionToken(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      (
        JSON.parse((globalThis as unknown as PageGlobals).localStorage.getItem('pocketbase_auth') ?? '{}') as {
          token?: string;
        }
      ).token ?? '',
  );
}

/** Uploads a paper's PDF or parser result through the API with the system PAT; expects 201. */
export async function upload(stack: Stack, id: string, kind: 'pdf' | 'parser', content: Buffer): Promise<void> {
  const { body, contentType } = multipart([
    kind === 'pdf'
      ? { name: 'pdf', filename: 'paper.pdf', content, contentType: 'application/pdf' }
      : { name: 'parser_zip', filename: 'result.zip', content, contentType: 'application/zip' },
  ]);
  const res = await stack.api(`/api/papers/${id}/upload-${kind}`, {
    method: 'POST',
    headers: { 'Content-Type': contentType },
    body,
  });
  expect(res.status).toBe(201);
}
