/**
 * A stand-in for the npm registry on loopback, so that the install tests depend on neither the registry nor its
 * speed (issue 20): packuments made from the project's `package-lock.json`, tarballs read from the npm cache that
 * `npm ci` filled (its content is addressed by the lockfile's integrity). A package or version the lockfile does not
 * hold answers 404, so a test notices an install that would need the real registry.
 */
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** A `packages` entry of a v3 lockfile (its other fields are manifest fields: dependencies, bin, engines, …). */
interface LockEntry {
  readonly version?: string;
  readonly integrity?: string;
  readonly link?: boolean;
  readonly [field: string]: unknown;
}

/** A locked package and its path under the project (`node_modules/…`). */
type Locked = LockEntry & { readonly key: string };

/** The manifest fields npm's install reads from a packument version. */
const MANIFEST_FIELDS = [
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bundleDependencies',
  'bin',
  'engines',
  'os',
  'cpu',
  'libc',
  'scripts',
  'gypfile',
  'license',
] as const;

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/`: the value for `NPM_CONFIG_REGISTRY`. */
  readonly url: string;
  /** Every request as `<status> <path>`, in order. */
  readonly requests: string[];
  /**
   * The requests it could not answer, except the packuments of optional peer dependencies no lockfile entry holds
   * (`pg-native` of `pg`): npm asks for those while resolving and installs nothing when they are missing.
   */
  unanswered(): string[];
  close(): Promise<void>;
}

/** `x.y.z[-pre]` in ascending order (enough to name the highest locked version `latest`). */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const [x, y] = [pa[i], pb[i]];
    if (x === y) continue;
    if (x === undefined) return 1; // 1.0.0 > 1.0.0-pre
    if (y === undefined) return -1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/** The cacache file holding the content of `integrity` (its sha512 digest), under `<cache>/_cacache/content-v2`. */
function cachedContent(cacheDir: string, integrity: string): string | null {
  const sri = integrity.split(/\s+/).find((s) => s.startsWith('sha512-'));
  if (!sri) return null;
  const hex = Buffer.from(sri.slice('sha512-'.length), 'base64').toString('hex');
  const file = path.join(cacheDir, '_cacache', 'content-v2', 'sha512', hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
  return existsSync(file) ? file : null;
}

/** Serves the packages of `lockfile` (every `node_modules/…` entry) from the npm cache at `cacheDir`. */
export async function startLocalRegistry(options: { lockfile: string; cacheDir: string }): Promise<LocalRegistry> {
  const lock = JSON.parse(readFileSync(options.lockfile, 'utf8')) as { packages: Record<string, LockEntry> };
  /** name → version → lock entry (and its path under the project, `node_modules/…`). */
  const packages = new Map<string, Map<string, Locked>>();
  const root = path.dirname(options.lockfile);
  const readInstalled = (key: string): Record<string, unknown> | null => {
    try {
      return JSON.parse(readFileSync(path.join(root, key, 'package.json'), 'utf8')) as Record<string, unknown>;
    } catch {
      return null; // not installed here (an optional package of another platform)
    }
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    const at = key.lastIndexOf('node_modules/');
    if (at < 0 || entry.link || !entry.version || !entry.integrity) continue;
    const name = key.slice(at + 'node_modules/'.length);
    if (!packages.has(name)) packages.set(name, new Map());
    packages.get(name)!.set(entry.version, { ...entry, key });
  }
  const unlockedOptionalPeers = new Set<string>();
  for (const entry of Object.values(lock.packages)) {
    const meta = (entry.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>;
    for (const [peer, m] of Object.entries(meta))
      if (m.optional && !packages.has(peer)) unlockedOptionalPeers.add(peer);
  }
  const requests: string[] = [];
  let base = '';
  const tarballPath = (name: string, version: string) => `/${name}/-/${name.split('/').pop()}-${version}.tgz`;

  const packument = (name: string, versions: Map<string, Locked>) => {
    const sorted = [...versions.keys()].sort(compareVersions);
    const manifest = (version: string, e: Locked) => {
      // The installed package.json, as the registry serves it (npm decides on install scripts and `node-gyp rebuild`
      // from its `scripts` and `gypfile`, which the lockfile does not keep); the lockfile's fields where none is.
      const installed = readInstalled(e.key);
      const fields = MANIFEST_FIELDS.map((f) => [f, installed?.[f] ?? e[f]]);
      return {
        ...Object.fromEntries(fields),
        name,
        version,
        dist: { tarball: `${base}${tarballPath(name, version)}`, integrity: e.integrity },
      };
    };
    return {
      name,
      'dist-tags': { latest: sorted.at(-1) },
      versions: Object.fromEntries(sorted.map((v) => [v, manifest(v, versions.get(v)!)])),
    };
  };

  const server = http.createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://registry.test').pathname);
    const answer = (status: number, body: string | null, type = 'application/json') => {
      requests.push(`${status} ${pathname}`);
      res.writeHead(status, { 'content-type': type });
      res.end(body ?? JSON.stringify({ error: 'not found' }));
    };
    const tarball = /^\/((?:@[^/]+\/)?[^/]+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(pathname);
    if (tarball) {
      const entry = packages.get(tarball[1]!)?.get(tarball[2]!);
      const file = entry?.integrity ? cachedContent(options.cacheDir, entry.integrity) : null;
      if (!file) return answer(404, null);
      requests.push(`200 ${pathname}`);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void createReadStream(file).pipe(res);
    }
    const versions = packages.get(pathname.slice(1));
    if (req.method !== 'GET' || !versions) return answer(404, null);
    return answer(200, JSON.stringify(packument(pathname.slice(1), versions)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    requests,
    unanswered: () =>
      requests.filter((r) => !r.startsWith('200 ') && !unlockedOptionalPeers.has(r.replace(/^404 \//, ''))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
