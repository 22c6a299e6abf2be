/**
 * The PAT verify cache never outlives a revocation (CONTRACT §7.3, §21: refused within 1 s): a verify that read
 * the credential before a revocation must not put it in the cache after. Runs on SQLite and, with
 * `PKS_TEST_USER_DB=postgres`, on PostgreSQL; the revocation comes from another adapter instance on the same
 * database (another pksd) or from this instance's user deletion.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PatCredential } from '../../../src/server/db/user-database.js';
import { openUserDatabase } from '../../../src/server/db/open.js';
import type { MintedPat } from '../../../src/server/auth/pats.js';
import { authHarness, type AuthHarness } from './harness.js';

let h: AuthHarness;
let pat: MintedPat;
let userId: string;

beforeEach(async () => {
  h = await authHarness();
  const { user } = await h.login('alice');
  userId = user.id;
  pat = await h.identity.pats.mint(user.id, { name: 'n', description: '', expiresInDays: 30, scopes: ['papers:read'] });
});
afterEach(async () => {
  await h.close();
});

/**
 * Holds the next `credential()` answer of this instance's repository after it was read: resolves `read` once the
 * row is in hand, and answers when `release` is called.
 */
function holdNextCredentialRead() {
  const repo = h.identity.db.pats;
  const original = repo.credential.bind(repo);
  let markRead!: () => void;
  let release!: () => void;
  const read = new Promise<void>((resolve) => (markRead = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  repo.credential = async (hash: string): Promise<PatCredential | null> => {
    repo.credential = original;
    const row = await original(hash);
    markRead();
    await released;
    return row;
  };
  return { read, release };
}

describe('PAT verify cache vs a concurrent revocation', () => {
  it('another instance revokes while a verify is in flight: every later verify is refused', async () => {
    const other = await openUserDatabase(h.config);
    const hold = holdNextCredentialRead();
    const slow = h.identity.pats.verify(pat.plaintext, false);
    await hold.read; // it holds the row as it was before the revocation
    expect(await other.pats.delete(pat.id)).not.toBeNull();
    await other.close();
    expect(await h.identity.pats.verify(pat.plaintext, false)).toBeNull(); // sees the new revision
    hold.release();
    await slow; // answered from what it read before: the revocation raced it
    expect(await h.identity.pats.verify(pat.plaintext, false)).toBeNull();
  });

  it('deleting the user while a verify of its PAT is in flight: every later verify is refused', async () => {
    expect(await h.identity.pats.verify(pat.plaintext, false)).not.toBeNull(); // cached
    // A second PAT, not cached yet: its verify reads the row, then the user is deleted.
    const second = await h.identity.pats.mint(userId, {
      name: 'm',
      description: '',
      expiresInDays: 30,
      scopes: ['papers:read'],
    });
    const hold = holdNextCredentialRead();
    const slow = h.identity.pats.verify(second.plaintext, false);
    await hold.read;
    expect(await h.identity.deleteUser(userId)).toBe(true);
    hold.release();
    await slow;
    expect(await h.identity.pats.verify(second.plaintext, false)).toBeNull();
    expect(await h.identity.pats.verify(pat.plaintext, false)).toBeNull();
  });
});
