/** The file adapter of the claim store (CONTRACT §5.1): one JSON file per claimed paper. */
import { randomBytes } from 'node:crypto';
import { access, mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { VersionedPreprintId } from '../../shared/ids.js';
import { rfc3339 } from '../../shared/time.js';
import { KeyedMutex } from '../storage/keyed-mutex.js';
import {
  isExpired,
  newClaim,
  type AcquireResult,
  type Claim,
  type ClaimStore,
  type ReleaseResult,
} from './claim-store.js';

interface ClaimFile {
  preprint_id: string;
  key: string;
  claim_id: string;
  requester: string;
  created_at: string;
  expires_at: string;
  ttl_seconds: number;
}

function toFile(c: Claim): ClaimFile {
  return { ...c, created_at: rfc3339(c.created_at), expires_at: rfc3339(c.expires_at) };
}

function fromFile(f: ClaimFile): Claim | null {
  const created = new Date(f.created_at);
  const expires = new Date(f.expires_at);
  if (typeof f.claim_id !== 'string' || Number.isNaN(expires.getTime()) || Number.isNaN(created.getTime())) return null;
  return {
    preprint_id: f.preprint_id,
    key: f.key,
    claim_id: f.claim_id,
    requester: f.requester,
    created_at: created,
    expires_at: expires,
    ttl_seconds: f.ttl_seconds,
  };
}

export class FileClaimStore implements ClaimStore {
  readonly backend = 'file' as const;
  private readonly mutex = new KeyedMutex();
  /**
   * The claims on disk by stem, read once and then kept in step by this process's own writes: one server owns a
   * data directory (CONTRACT §5.1), and needs-parser must not read every claim file on every request.
   */
  private held: Promise<Map<string, Claim>> | null = null;

  /** The held claims, loaded from disk on first use; every mutation waits for it, so none is missed. */
  private load(): Promise<Map<string, Claim>> {
    this.held ??= this.all().then(
      (entries) => {
        const held = new Map<string, Claim>();
        for (const { stem, claim } of entries) if (claim !== null) held.set(stem, claim);
        return held;
      },
      (err: unknown) => {
        this.held = null; // a failed read is retried by the next call
        throw err;
      },
    );
    return this.held;
  }

  constructor(readonly dir: string) {}

  private file(stem: string): string {
    return path.join(this.dir, `${stem}.json`);
  }

  private async read(stem: string): Promise<Claim | null> {
    try {
      return fromFile(JSON.parse(await readFile(this.file(stem), 'utf8')) as ClaimFile);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      if (err instanceof SyntaxError) return null; // a corrupt file counts as no claim and is replaced
      throw err;
    }
  }

  async acquire(id: VersionedPreprintId, requester: string, ttlSeconds: number, now: Date): Promise<AcquireResult> {
    await mkdir(this.dir, { recursive: true });
    const held = await this.load();
    return this.mutex.run(id.stem, async () => {
      const current = await this.read(id.stem);
      if (current !== null && !isExpired(current, now)) return { ok: false, existing: current };
      const claim = newClaim(id, requester, ttlSeconds, now);
      const text = JSON.stringify(toFile(claim));
      const exists = current !== null || (await fileExists(this.file(id.stem)));
      if (!exists) {
        // New file via exclusive create.
        const handle = await open(this.file(id.stem), 'wx');
        try {
          await handle.writeFile(text);
        } finally {
          await handle.close();
        }
      } else {
        // An expired (or unreadable) file is replaced via temp + rename.
        const tmp = path.join(this.dir, `.${id.stem}.${randomBytes(6).toString('hex')}.tmp`);
        await writeFile(tmp, text, { flag: 'wx' });
        await rename(tmp, this.file(id.stem));
      }
      held.set(id.stem, claim);
      return { ok: true, claim };
    });
  }

  async release(id: VersionedPreprintId, claimId: string, now: Date): Promise<ReleaseResult> {
    const held = await this.load();
    return this.mutex.run(id.stem, async () => {
      const current = await this.read(id.stem);
      if (current === null) return 'absent';
      if (current.claim_id !== claimId && !isExpired(current, now)) return 'mismatch';
      await rm(this.file(id.stem), { force: true });
      held.delete(id.stem);
      return isExpired(current, now) ? 'absent' : 'released';
    });
  }

  async clear(id: VersionedPreprintId): Promise<void> {
    const held = await this.load();
    await this.mutex.run(id.stem, async () => {
      await rm(this.file(id.stem), { force: true });
      held.delete(id.stem);
    });
  }

  private async all(): Promise<{ stem: string; claim: Claim | null }[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: { stem: string; claim: Claim | null }[] = [];
    for (const name of names) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      const stem = name.slice(0, -'.json'.length);
      out.push({ stem, claim: await this.read(stem) });
    }
    return out;
  }

  async active(now: Date): Promise<Map<string, Claim>> {
    const out = new Map<string, Claim>();
    for (const claim of (await this.load()).values()) if (!isExpired(claim, now)) out.set(claim.preprint_id, claim);
    return out;
  }

  async purgeExpired(now: Date): Promise<number> {
    const held = await this.load();
    let n = 0;
    for (const { stem } of await this.all()) {
      const removed = await this.mutex.run(stem, async () => {
        const c = await this.read(stem);
        if (c !== null && isExpired(c, now)) {
          await rm(this.file(stem), { force: true });
          held.delete(stem);
          return true;
        }
        return false;
      });
      if (removed) n++;
    }
    return n;
  }
}

async function fileExists(p: string): Promise<boolean> {
  try {
    await access(p);
    return true;
  } catch {
    return false;
  }
}
