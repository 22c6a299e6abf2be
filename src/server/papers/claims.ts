/**
 * Parser claims (leases), CONTRACT §5.1: one interface, a file backend (`<SVC_DATA_DIR>/parser-claims/`) and a
 * graph backend (`(:ParserClaim)` nodes), with identical behaviour.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import neo4j, { type Session, type Transaction } from 'neo4j-driver';
import { parseVersionedId, type VersionedPreprintId } from '../../shared/ids.js';
import type { GraphClient } from '../graph/driver.js';
import { KeyedMutex } from '../storage/keyed-mutex.js';
import { rfc3339 } from '../../shared/time.js';

export const DEFAULT_TTL_SECONDS = 1800;
export const MIN_TTL_SECONDS = 60;
export const MAX_TTL_SECONDS = 7200;

export interface Claim {
  readonly preprint_id: string;
  readonly key: string;
  readonly claim_id: string;
  readonly requester: string;
  readonly created_at: Date;
  readonly expires_at: Date;
  readonly ttl_seconds: number;
}

export type AcquireResult =
  { readonly ok: true; readonly claim: Claim } | { readonly ok: false; readonly existing: Claim };
export type ReleaseResult = 'released' | 'absent' | 'mismatch';

/** The claim store cannot be reached (graph configured but unreachable) → 503. */
export class ClaimStoreUnavailableError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('claim store unavailable (graph unreachable); retry shortly', options);
    this.name = 'ClaimStoreUnavailableError';
  }
}

export interface ClaimStore {
  readonly backend: 'file' | 'graph';
  /** Creates a claim unless an unexpired one exists (an expired one is replaced). Atomic per paper. */
  acquire(id: VersionedPreprintId, requester: string, ttlSeconds: number, now: Date): Promise<AcquireResult>;
  /** Releases a claim by id (§5.3 table). */
  release(id: VersionedPreprintId, claimId: string, now: Date): Promise<ReleaseResult>;
  /** Deletes the paper's claim whatever its id (successful upload-parser). */
  clear(id: VersionedPreprintId): Promise<void>;
  /** Unexpired claims keyed by `preprint_id`. */
  active(now: Date): Promise<Map<string, Claim>>;
  /** Deletes expired claims (the janitor); resolves to how many were deleted. */
  purgeExpired(now: Date): Promise<number>;
}

/** `ttl_seconds` rule of §5.2: absent, unparseable or ≤ 0 → 1800; clamped to 60..7200. */
export function normaliseTtl(raw: unknown): number {
  if (typeof raw !== 'string' || !/^\s*[+-]?\d+\s*$/.test(raw)) return DEFAULT_TTL_SECONDS;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) return DEFAULT_TTL_SECONDS;
  return Math.min(MAX_TTL_SECONDS, Math.max(MIN_TTL_SECONDS, n));
}

export function newClaim(id: VersionedPreprintId, requester: string, ttlSeconds: number, now: Date): Claim {
  const created = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return {
    preprint_id: id.id,
    key: id.stem,
    claim_id: randomBytes(16).toString('hex'),
    requester,
    created_at: created,
    expires_at: new Date(created.getTime() + ttlSeconds * 1000),
    ttl_seconds: ttlSeconds,
  };
}

const isExpired = (c: Claim, now: Date) => c.expires_at.getTime() <= now.getTime();

// ------------------------------------------------------------------------------------------------------------
// File backend
// ------------------------------------------------------------------------------------------------------------

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
    await readFile(p);
    return true;
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------------------------------------------------
// Graph backend
// ------------------------------------------------------------------------------------------------------------

const CLAIM_RETURN = `c.claim_id AS claim_id, c.requester AS requester, c.preprint_id AS preprint_id,
  toString(c.created_at) AS created_at, toString(c.expires_at) AS expires_at, c.ttl_seconds AS ttl_seconds`;

interface ClaimRecord {
  get(key: string): unknown;
}

function claimFromRecord(r: ClaimRecord): Claim | null {
  const preprintId = r.get('preprint_id');
  const claimId = r.get('claim_id');
  if (typeof preprintId !== 'string' || typeof claimId !== 'string') return null;
  const id = parseVersionedId(preprintId);
  const ttl = r.get('ttl_seconds');
  return {
    preprint_id: preprintId,
    key: id?.stem ?? preprintId.replace('/', '_'),
    claim_id: claimId,
    requester: String(r.get('requester') ?? ''),
    created_at: new Date(String(r.get('created_at'))),
    expires_at: new Date(String(r.get('expires_at'))),
    ttl_seconds: neo4j.isInt(ttl) ? (ttl as { toNumber(): number }).toNumber() : Number(ttl),
  };
}

/** Neo4j-side errors that mean "cannot reach the graph" (→ 503), as opposed to a query bug. */
function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code ?? '';
  return (
    code === 'ServiceUnavailable' ||
    code === 'SessionExpired' ||
    code.startsWith('Neo.TransientError') ||
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|connect|socket/i.test((err as Error)?.message ?? '')
  );
}

export class GraphClaimStore implements ClaimStore {
  readonly backend = 'graph' as const;
  private constraintReady = false;

  constructor(private readonly graph: GraphClient) {}

  private async session<T>(mode: 'READ' | 'WRITE', fn: (s: Session) => Promise<T>): Promise<T> {
    const s = this.graph.driver.session({
      defaultAccessMode: mode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE,
      ...(this.graph.database ? { database: this.graph.database } : {}),
    });
    try {
      return await fn(s);
    } catch (err) {
      if (isUnreachable(err)) throw new ClaimStoreUnavailableError({ cause: err });
      throw err;
    } finally {
      await s.close().catch(() => undefined);
    }
  }

  /**
   * One explicit transaction (the driver's managed transactions would retry an unreachable server for 30 s;
   * claims must answer 503 promptly). Only lock conflicts (deadlocks, transient errors on a live server) are
   * retried, a few times.
   */
  private async tx<T>(mode: 'READ' | 'WRITE', work: (tx: Transaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.session(mode, async (s) => {
          const tx = s.beginTransaction();
          try {
            const result = await work(tx);
            await tx.commit();
            return result;
          } catch (err) {
            if (tx.isOpen()) await tx.rollback().catch(() => undefined);
            throw err;
          }
        });
      } catch (err) {
        const code = (err as { code?: string }).code ?? '';
        if (attempt < 10 && code.startsWith('Neo.TransientError') && !(err instanceof ClaimStoreUnavailableError)) {
          await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
          continue;
        }
        throw err;
      }
    }
  }

  /** `ParserClaim.preprint_id` unique and the `expires_at` index (§6.4), created idempotently. */
  async ensureSchema(): Promise<void> {
    if (this.constraintReady) return;
    await this.session('WRITE', async (s) => {
      await s.run(
        'CREATE CONSTRAINT parser_claim_preprint_id IF NOT EXISTS FOR (c:ParserClaim) REQUIRE c.preprint_id IS UNIQUE',
      );
      await s.run('CREATE INDEX parser_claim_expires_at IF NOT EXISTS FOR (c:ParserClaim) ON (c.expires_at)');
    });
    this.constraintReady = true;
  }

  async acquire(id: VersionedPreprintId, requester: string, ttlSeconds: number, now: Date): Promise<AcquireResult> {
    await this.ensureSchema();
    const candidate = newClaim(id, requester, ttlSeconds, now);
    return this.tx('WRITE', async (tx) => {
      // MERGE the node, write `_lock` to take its write lock, then re-read under that lock.
      const res = await tx.run(
        `MERGE (c:ParserClaim {preprint_id: $preprint_id})
           SET c._lock = coalesce(c._lock, 0) + 1
           WITH c
           RETURN ${CLAIM_RETURN}, (c.claim_id IS NOT NULL AND c.expires_at > datetime($now)) AS held`,
        { preprint_id: id.id, now: rfc3339(now) },
      );
      const record = res.records[0];
      if (record && record.get('held') === true) {
        const existing = claimFromRecord(record);
        if (existing) return { ok: false as const, existing };
      }
      await tx.run(
        `MATCH (c:ParserClaim {preprint_id: $preprint_id})
           SET c.claim_id = $claim_id, c.requester = $requester, c.created_at = datetime($created_at),
               c.expires_at = datetime($expires_at), c.ttl_seconds = $ttl_seconds`,
        {
          preprint_id: id.id,
          claim_id: candidate.claim_id,
          requester: candidate.requester,
          created_at: rfc3339(candidate.created_at),
          expires_at: rfc3339(candidate.expires_at),
          ttl_seconds: neo4j.int(candidate.ttl_seconds),
        },
      );
      return { ok: true as const, claim: candidate };
    });
  }

  async release(id: VersionedPreprintId, claimId: string, now: Date): Promise<ReleaseResult> {
    return this.tx('WRITE', async (tx) => {
      const res = await tx.run(
        `MATCH (c:ParserClaim {preprint_id: $preprint_id})
           SET c._lock = coalesce(c._lock, 0) + 1
           RETURN c.claim_id AS claim_id, (c.claim_id IS NOT NULL AND c.expires_at > datetime($now)) AS held`,
        { preprint_id: id.id, now: rfc3339(now) },
      );
      const record = res.records[0];
      if (!record) return 'absent' as const;
      if (record.get('held') === true && record.get('claim_id') !== claimId) return 'mismatch' as const;
      await tx.run('MATCH (c:ParserClaim {preprint_id: $preprint_id}) DELETE c', { preprint_id: id.id });
      return record.get('held') === true ? ('released' as const) : ('absent' as const);
    });
  }

  async clear(id: VersionedPreprintId): Promise<void> {
    await this.tx('WRITE', (tx) =>
      tx.run('MATCH (c:ParserClaim {preprint_id: $preprint_id}) DELETE c', { preprint_id: id.id }),
    );
  }

  async active(now: Date): Promise<Map<string, Claim>> {
    return this.tx('READ', async (tx) => {
      const res = await tx.run(
        `MATCH (c:ParserClaim) WHERE c.claim_id IS NOT NULL AND c.expires_at > datetime($now) RETURN ${CLAIM_RETURN}`,
        { now: rfc3339(now) },
      );
      const out = new Map<string, Claim>();
      for (const r of res.records) {
        const c = claimFromRecord(r);
        if (c) out.set(c.preprint_id, c);
      }
      return out;
    });
  }

  async purgeExpired(now: Date): Promise<number> {
    return this.tx('WRITE', async (tx) => {
      const res = await tx.run(
        `MATCH (c:ParserClaim) WHERE c.expires_at IS NULL OR c.expires_at <= datetime($now)
         WITH c, c.preprint_id AS id DELETE c RETURN count(id) AS n`,
        { now: rfc3339(now) },
      );
      const n = res.records[0]?.get('n');
      return neo4j.isInt(n) ? (n as { toNumber(): number }).toNumber() : Number(n ?? 0);
    });
  }
}
