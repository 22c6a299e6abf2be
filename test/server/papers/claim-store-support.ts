/** What the claim-store test files share. */
import { expect } from 'vitest';
import { ClaimStoreUnavailableError, type ClaimStore } from '../../../src/server/papers/claims.js';
import { UnavailableError } from '../../../src/shared/domain-errors.js';
import { requireUploadId } from '../../../src/shared/ids.js';

/** Every call of a store whose backend cannot be reached fails with 503 and the §5.1 text naming that backend. */
export async function expectEveryCallUnavailable(store: ClaimStore, unreachable: 'graph' | 'database'): Promise<void> {
  const id = requireUploadId('2501.00010v1');
  const now = new Date('2026-05-01T12:00:00Z');
  const unavailable = {
    kind: 'unavailable',
    message: `claim store unavailable (${unreachable} unreachable); retry shortly`,
  };
  await expect(store.acquire(id, 'a', 60, now)).rejects.toBeInstanceOf(ClaimStoreUnavailableError);
  await expect(store.acquire(id, 'a', 60, now)).rejects.toBeInstanceOf(UnavailableError);
  await expect(store.acquire(id, 'a', 60, now)).rejects.toMatchObject(unavailable);
  await expect(store.release(id, 'x', now)).rejects.toMatchObject(unavailable);
  await expect(store.clear(id)).rejects.toMatchObject(unavailable);
  await expect(store.active(now)).rejects.toMatchObject(unavailable);
  await expect(store.purgeExpired(now)).rejects.toMatchObject(unavailable);
}
