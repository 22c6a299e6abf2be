/**
 * CONTRACT §11.5 at the upstream's clock (§21): a request that leaves later than its token was granted (a fresh
 * process's first connection, a busy event loop) is counted from when its headers were written, so the upstream
 * never sees more requests in a window than the bucket grants. Driven on a virtual clock that the test moves
 * between the grant and the send, against a real HTTP server (Node's `fetch` reports the write), with the bucket in
 * this process and in the user database of the run's backend.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/server/access/clock.js';
import { TokenBucket } from '../../../src/server/access/token-bucket.js';
import { PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { SqliteUserDatabase } from '../../../src/server/db/sqlite-user-database.js';
import type { TokenBucketRepository, UserDatabase } from '../../../src/server/db/user-database.js';
import { TEST_USER_DB, userDbEnv } from '../../support/user-db.js';

let dir: string;
let server: http.Server;
let url: string;
/** What the server does when a request arrives (its headers were written by then). */
let onArrival: () => void = () => undefined;
let db: UserDatabase;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-late-send-'));
  const dbDir = path.join(dir, 'pb_data');
  const env = await userDbEnv(dbDir);
  db =
    TEST_USER_DB === 'postgres' ? await PostgresUserDatabase.open(env['SVC_DB_URL']!) : new SqliteUserDatabase(dbDir);
  server = http.createServer((_req, res) => {
    onArrival();
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pdf/x`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Time that moves only when the test moves it or a sleeper asks (a sleep jumps ahead and is recorded). */
class SteppedClock implements Clock {
  readonly slept: number[] = [];
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  async sleep(ms: number): Promise<void> {
    this.slept.push(ms);
    this.t += ms;
  }
}

const stores: [string, () => TokenBucketRepository | undefined][] = [
  ['in this process', () => undefined],
  [`in the user database (${TEST_USER_DB})`, () => db.buckets],
];

// Rate 1/s, burst 2. Granted at t0 (2 → 1 token), sent at t0 + 0.5 s: counted from the send, the bucket holds
// 1 token then (as if taken at the send), so one more request may leave at once and the next one 1 s later. Counted
// from the grant it would hold 1.5, and the next one would leave 0.5 s later.
describe.each(stores)('a late send is counted from when it was written: bucket %s', (_name, storeOf) => {
  it('written 0.5 s after its grant, answered a minute later: the next-but-one token is due 1 s after the write', async () => {
    const clock = new SteppedClock(Date.UTC(2026, 4, 1, 12));
    const bucket = new TokenBucket(1, 2, clock, storeOf());
    onArrival = () => void (clock.t += 60_000); // only the write counts, not the answer
    const res = await bucket.send(async () => {
      clock.t += 500;
      return fetch(url);
    });
    expect(await res.text()).toBe('ok');
    clock.t -= 60_000; // back to the write
    await bucket.take();
    await bucket.take();
    expect(clock.slept).toEqual([1_000]);
  });

  it('a request never written (connection refused) is counted from when it failed', async () => {
    const clock = new SteppedClock(Date.UTC(2026, 5, 1, 12));
    const bucket = new TokenBucket(1, 2, clock, storeOf());
    await expect(
      bucket.send(async () => {
        clock.t += 500;
        return fetch('http://127.0.0.1:1/pdf/x');
      }),
    ).rejects.toThrow('fetch failed');
    await bucket.take();
    await bucket.take();
    expect(clock.slept).toEqual([1_000]);
  });
});
