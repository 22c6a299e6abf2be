/**
 * `hosts.yml`, the credential store (CONTRACT §16.1): `hosts: {<host>: {token, added_at}}`, mode 0600 in a 0700
 * directory, rewritten via `hosts.yml.tmp` + rename with hosts sorted. Loading is tolerant: a missing or broken
 * file is an empty store (a broken one with a warning).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Scalar } from 'yaml';
import { yaml } from '../../shared/lazy-yaml.js';
import { rfc3339 } from '../../shared/time.js';
import { hostsFilePath } from './paths.js';

export interface HostCredential {
  readonly token: string;
  /** RFC 3339 UTC, second precision. */
  readonly added_at: string;
}

/** The credential store the commands use; injected so commands can be tested without files. */
export interface CredentialStore {
  readonly path: string;
  list(): [host: string, credential: HostCredential][];
  get(host: string): HostCredential | undefined;
  set(host: string, token: string, now: Date): void;
  /** `false` when nothing was stored for the host. */
  delete(host: string): boolean;
}

/** `https://QUANTUM.example/` → `quantum.example`; `http://h:4200/x` → `h:4200` (the URL authority, port kept). */
export function normalizeHost(input: string): string {
  let text = input.trim();
  if (!text.includes('://')) text = `//${text}`;
  const rest = text.slice(text.indexOf('//') + 2);
  const authority = rest.split(/[/?#]/)[0] ?? '';
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  return hostPort.toLowerCase().replace(/\/+$/, '');
}

/** `pat_…` longer than 8 → first 8 + `********`; else longer than 6 → first 6 + `********`; else `********`. */
export function redactToken(token: string): string {
  if (token.startsWith('pat_') && token.length > 8) return `${token.slice(0, 8)}********`;
  if (token.length > 6) return `${token.slice(0, 6)}********`;
  return '********';
}

/** `session` for a PocketBase session token (a JWT), else `PAT` (user or system PAT). */
export function tokenType(token: string): 'PAT' | 'session' {
  return /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/.test(token) ? 'session' : 'PAT';
}

export class HostsFile implements CredentialStore {
  constructor(
    private readonly warn: (text: string) => void,
    private readonly file: () => string = () => hostsFilePath(),
  ) {}

  get path(): string {
    return this.file();
  }

  private load(): Map<string, HostCredential> {
    const hosts = new Map<string, HostCredential>();
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return hosts;
    }
    let root: unknown;
    try {
      root = yaml().parse(text);
    } catch (err) {
      const reason = (err as Error).message.split('\n')[0];
      this.warn(`Warning: ${this.path} is not valid YAML (${reason}); treating as empty.\n`);
      return hosts;
    }
    const table = isMapping(root) ? root['hosts'] : undefined;
    if (!isMapping(table)) return hosts;
    for (const [host, entry] of Object.entries(table)) {
      if (!isMapping(entry) || typeof entry['token'] !== 'string' || entry['token'] === '') continue;
      const added = entry['added_at'];
      hosts.set(host, { token: entry['token'], added_at: typeof added === 'string' ? added : '' });
    }
    return hosts;
  }

  private save(hosts: Map<string, HostCredential>): void {
    const dir = path.dirname(this.path);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      chmodSync(dir, 0o700);
    } catch {
      // best effort (CONTRACT §16.1)
    }
    const { Document, Scalar } = yaml();
    const table: Record<string, { token: string; added_at: Scalar }> = {};
    for (const host of [...hosts.keys()].sort()) {
      const entry = hosts.get(host)!;
      const added = new Scalar(entry.added_at);
      added.type = Scalar.QUOTE_SINGLE;
      table[host] = { token: entry.token, added_at: added };
    }
    const tmp = `${this.path}.tmp`;
    try {
      writeFileSync(tmp, new Document({ hosts: table }).toString({ lineWidth: 0 }), { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  list(): [string, HostCredential][] {
    return [...this.load()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  get(host: string): HostCredential | undefined {
    return this.load().get(host);
  }

  set(host: string, token: string, now: Date): void {
    const hosts = this.load();
    hosts.set(host, { token, added_at: rfc3339(now) });
    this.save(hosts);
  }

  delete(host: string): boolean {
    const hosts = this.load();
    if (!hosts.delete(host)) return false;
    this.save(hosts);
    return true;
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
