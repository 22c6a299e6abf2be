import { randomBytes, scrypt as scryptCb, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { SuperuserRepository, SuperuserRow } from '../db/user-database.js';
import { AuthTokenIssuer } from './auth-tokens.js';
import type { SuperuserPrincipal } from './principal.js';
import { recordId } from './random.js';
import { pbDate, type Clock } from './time.js';
import { newTokenKey } from './users.js';

export const SUPERUSERS_COLLECTION_ID = 'pbc_3142635823';
export const SUPERUSER_TOKEN_LIFETIME_S = 86_400;
export const PASSWORD_MIN = 10;

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LEN = 32;

function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>` with N=2^15, r=8, p=1 (CONTRACT §7.9). */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, KEY_LEN, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** A hash no password matches (its key is not scrypt output), with the real parameters: the cost of a real check. */
const UNKNOWN_ACCOUNT_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LEN).toString('base64')}`;

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map((s) => Number.parseInt(s, 10));
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  if (!N || !r || !p || expected.length === 0) return false;
  const actual = await scryptAsync(password, salt, expected.length, { N, r, p, maxmem: SCRYPT.maxmem });
  return timingSafeEqual(actual, expected);
}

export const isEmail = (value: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

export interface Superuser {
  readonly id: string;
  readonly email: string;
  readonly tokenKey: string;
  readonly created: number;
  readonly updated: number;
}

const fromRow = (r: SuperuserRow): Superuser => ({
  id: r.id,
  email: r.email,
  tokenKey: r.tokenKey,
  created: r.created,
  updated: r.updated,
});

export function superuserRecord(s: Superuser) {
  return {
    collectionId: SUPERUSERS_COLLECTION_ID,
    collectionName: '_superusers' as const,
    id: s.id,
    email: s.email,
    created: pbDate(s.created),
    updated: pbDate(s.updated),
  };
}

/** The typed principal of a verified superuser. */
export const superuserPrincipal = (s: Superuser): SuperuserPrincipal => ({
  kind: 'superuser',
  id: s.id,
  email: s.email,
});

/** Email + password accounts for the admin UI; outside the login allow-list (the recovery path). */
export class SuperuserService {
  private readonly tokens: AuthTokenIssuer<Superuser>;

  constructor(
    private readonly repo: SuperuserRepository,
    secret: Buffer,
    private readonly now: Clock,
  ) {
    this.tokens = new AuthTokenIssuer(
      SUPERUSERS_COLLECTION_ID,
      { lifetimeSeconds: SUPERUSER_TOKEN_LIFETIME_S, maxAgeSeconds: null },
      secret,
      now,
      (id) => this.get(id),
    );
  }

  /** Creates or resets (new password, sessions revoked); the caller validates email and password length. */
  async upsert(email: string, password: string): Promise<'created' | 'updated'> {
    const hash = hashPassword(password);
    const now = this.now();
    const existing = await this.repo.findByEmail(email);
    if (existing) {
      await this.repo.setCredentials(existing.id, hash, newTokenKey(), now);
      return 'updated';
    }
    await this.repo.insert({
      id: recordId(),
      email,
      passwordHash: hash,
      tokenKey: newTokenKey(),
      created: now,
      updated: now,
    });
    return 'created';
  }

  delete(email: string): Promise<boolean> {
    return this.repo.deleteByEmail(email);
  }

  async get(id: string): Promise<Superuser | null> {
    const row = await this.repo.get(id);
    return row ? fromRow(row) : null;
  }

  /** Checks the password; an unknown email costs the same scrypt work, so timing does not reveal accounts. */
  async authenticate(email: string, password: string): Promise<Superuser | null> {
    const row = await this.repo.findByEmail(email);
    const matches = await verifyPassword(password, row?.passwordHash ?? UNKNOWN_ACCOUNT_HASH);
    return row && matches ? fromRow(row) : null;
  }

  issue(s: Superuser): string {
    return this.tokens.issue(s);
  }

  verify(token: string): Promise<Superuser | null> {
    return this.tokens.verify(token);
  }
}
