import { createHmac, timingSafeEqual } from 'node:crypto';

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export type JwtClaims = Record<string, unknown>;

/** Signs `claims` as a compact HS256 JWT. */
export function signJwt(claims: JwtClaims, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = createHmac('sha256', key).update(`${HEADER}.${payload}`).digest('base64url');
  return `${HEADER}.${payload}.${signature}`;
}

/** The claims of a compact JWT without checking the signature (to find the key), or `null` if malformed. */
export function decodeJwtUnverified(token: string): JwtClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as unknown;
    if (!header || typeof header !== 'object' || (header as { alg?: unknown }).alg !== 'HS256') return null;
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    return claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as JwtClaims) : null;
  } catch {
    return null;
  }
}

/** Checks the HS256 signature of a compact JWT in constant time. Expiry is the caller's business. */
export function verifyJwtSignature(token: string, key: Buffer): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const expected = createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2]!, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
