import { randomBytes } from 'node:crypto';

export const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const RECORD_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters drawn uniformly from `alphabet` (rejection sampling: no modulo bias). */
export function randomString(alphabet: string, length: number): string {
  if (alphabet.length < 2 || alphabet.length > 256) throw new Error('alphabet must have 2..256 characters');
  // Largest multiple of the alphabet size that fits in a byte; bytes at or above it are rejected.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(Math.max(16, (length - out.length) * 2))) {
      if (byte >= limit) continue;
      out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A 15-character record id (PocketBase style, `[a-z0-9]`). */
export function recordId(): string {
  return randomString(RECORD_ID_ALPHABET, 15);
}
