import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const INSTANCE_KEY_FILE = 'instance.key';
const KEY_BYTES = 32;

/**
 * The instance secret: 32 random bytes in `<dir>/instance.key` (mode 0600), created on first start. It keys PAT
 * hashes and session signatures, so credentials from one instance are worthless on another (CONTRACT §7.2–7.3).
 * Creation is atomic (write a temp file, hard-link it into place), so concurrent first starts agree on one key.
 */
export function loadOrCreateInstanceKey(dir: string): Buffer {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, INSTANCE_KEY_FILE);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  const key = readFileSync(file);
  if (key.length !== KEY_BYTES) {
    throw new Error(`${file} is corrupt: expected ${KEY_BYTES} bytes, found ${key.length}`);
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return key;
}
