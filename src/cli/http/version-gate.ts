/**
 * The client side of the version rule (CONTRACT §8.3, §16.2): remember the server's version from every response;
 * refuse a write to a newer (major, minor) server with exit 4; warn once per distinct newer version on reads.
 */
import { VersionRefusedError } from '../errors.js';

const VERSION_PATTERN = /^(\d+)\.(\d+)(\.\d+)?([.+-].*)?$/;

/** `(major, minor)` of a version, or `null` when it does not parse (which disables the check). */
export function majorMinor(version: string): [number, number] | null {
  const match = VERSION_PATTERN.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2])] : null;
}

/** Whether `server`'s (major, minor) is greater than `client`'s; patch level is ignored. */
export function isNewerServer(server: string, client: string): boolean {
  const s = majorMinor(server);
  const c = majorMinor(client);
  if (!s || !c) return false;
  return s[0] > c[0] || (s[0] === c[0] && s[1] > c[1]);
}

export class VersionGate {
  /** The last server version seen in this run (`null` until a response carried one). */
  serverVersion: string | null = null;
  private readonly warned = new Set<string>();

  constructor(
    readonly clientVersion: string,
    private readonly warn: (text: string) => void,
  ) {}

  private text(level: 'ERROR' | 'WARNING', server: string): string {
    return `${level}: server version ${server} is newer than client ${this.clientVersion}. Upgrade pks (npm install -g pks).`;
  }

  /** Records the version of a response; for reads, warns once per distinct newer version. */
  observe(version: string | undefined, kind: 'read' | 'write'): void {
    if (!version) return;
    this.serverVersion = version.trim();
    if (kind === 'read' && isNewerServer(this.serverVersion, this.clientVersion)) {
      if (this.warned.has(this.serverVersion)) return;
      this.warned.add(this.serverVersion);
      this.warn(`${this.text('WARNING', this.serverVersion)}\n`);
    }
  }

  /** Throws the refusal when the known server version is newer than the client (call before a write). */
  checkWrite(): void {
    if (this.serverVersion !== null && isNewerServer(this.serverVersion, this.clientVersion)) {
      throw new VersionRefusedError(this.text('ERROR', this.serverVersion));
    }
  }
}
