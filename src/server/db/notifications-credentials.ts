/**
 * The PAT verify cache's revision on PostgreSQL without a round trip per request (CONTRACT §21): every move of
 * the `credential_revision` row is notified on the `credentials` channel (migration 6), so while the listener is
 * connected the revision is a local counter of those notifications (and of reconnections, after which anything may
 * have been missed). While it is not connected the row is read as before, so a revocation is still seen by the next
 * verify.
 */
import type { ClusterNotifications } from './notifications.js';
import type { PatCredential, PatRepository, PatRow } from './user-database.js';

/** `pats` with `revision()` answered from the notifications while they are live. */
export class NotifiedRevisionPats implements PatRepository {
  private notified = 0;

  constructor(
    private readonly pats: PatRepository,
    private readonly notifications: ClusterNotifications,
  ) {
    notifications.subscribe('credentials', () => {
      this.notified += 1;
    });
  }

  /**
   * Live: `notified:<count>`, moved by every notification. Otherwise `row:<revision row>`. Switching between the
   * two changes the value as well, so the cache is emptied whenever the listener goes or comes back.
   */
  async revision(): Promise<unknown> {
    if (this.notifications.live) return `notified:${this.notified}`;
    return `row:${String(await this.pats.revision())}`;
  }

  insert(row: PatRow): Promise<void> {
    return this.pats.insert(row);
  }

  get(id: string): Promise<PatRow | null> {
    return this.pats.get(id);
  }

  list(userId?: string): Promise<PatRow[]> {
    return this.pats.list(userId);
  }

  delete(id: string): Promise<PatRow | null> {
    return this.pats.delete(id);
  }

  tokenHashesOf(userId: string): Promise<string[]> {
    return this.pats.tokenHashesOf(userId);
  }

  credential(tokenHash: string): Promise<PatCredential | null> {
    return this.pats.credential(tokenHash);
  }

  touch(id: string, at: number): Promise<void> {
    return this.pats.touch(id, at);
  }
}
