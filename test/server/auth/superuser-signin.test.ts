/**
 * Superuser sign-in under attack (CONTRACT §7.9 limit, hardened): an attempt counts before the password is checked
 * (and is refunded when it succeeds), password checks run a few at a time (429 beyond), and an unknown email costs
 * the same scrypt work as a wrong password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_CHECKS_AT_ONCE } from '../../../src/server/auth/admin.js';
import { authHarness, type AuthHarness } from './harness.js';

const EMAIL = 'root@example.org';
const PASSWORD = 'correct horse battery';
const BUSY = { status: 429, message: 'too many sign-in attempts in progress; retry in 1 s', data: {} };
const FAILED = { status: 400, message: 'Failed to authenticate.', data: {} };

describe('superuser sign-in', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await authHarness();
    h.identity.superusers.upsert(EMAIL, PASSWORD);
  });
  afterAll(() => h.close());

  const signIn = (identity: string, password: string, remoteAddress: string) =>
    h.inject({
      method: 'POST',
      url: '/api/collections/_superusers/auth-with-password',
      payload: { identity, password },
      remoteAddress,
    });

  it('200 parallel wrong attempts from one address: at most 10 reach the password check, the rest are 429', async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, () => signIn(EMAIL, 'wrong password', '10.1.0.1')));
    const checked = answers.filter((r) => r.statusCode === 400);
    for (const r of checked) expect(r.json()).toEqual(FAILED);
    expect(checked.length).toBeGreaterThan(0);
    expect(checked.length).toBeLessThanOrEqual(10);
    const refused = answers.filter((r) => r.statusCode === 429);
    expect(checked.length + refused.length).toBe(200);
    for (const r of refused) expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it(`runs at most ${PASSWORD_CHECKS_AT_ONCE} password checks at once: others get 429 at once and do not count`, async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signIn(EMAIL, 'wrong password', `10.2.0.${i + 1}`)),
    );
    const busy = answers.filter((r) => r.statusCode === 429);
    expect(busy.length).toBeGreaterThan(0);
    for (const r of busy) {
      expect(r.json()).toEqual(BUSY);
      expect(r.headers['retry-after']).toBe('1');
    }
    for (const r of answers.filter((a) => a.statusCode !== 429)) expect(r.json()).toEqual(FAILED);
    // A busy answer is refunded: that address still has its ten attempts.
    const address = `10.2.0.${answers.findIndex((r) => r.statusCode === 429) + 1}`;
    for (let i = 0; i < 9; i++) expect((await signIn(EMAIL, 'wrong password', address)).statusCode).toBe(400);
    expect((await signIn(EMAIL, PASSWORD, address)).statusCode).toBe(200);
  });

  it('a successful sign-in is refunded; failures still count', async () => {
    const address = '10.3.0.1';
    for (let i = 0; i < 9; i++) expect((await signIn(EMAIL, 'wrong password', address)).statusCode).toBe(400);
    expect((await signIn(EMAIL, PASSWORD, address)).statusCode).toBe(200);
    expect((await signIn(EMAIL, 'wrong password', address)).statusCode).toBe(400); // the 10th failure
    expect((await signIn(EMAIL, PASSWORD, address)).statusCode).toBe(429);
  });

  it('an unknown email takes as long as a wrong password (the same scrypt work)', async () => {
    // CPU time, not wall time: the server runs in this process (scrypt on libuv's pool counts too), and CPU time is
    // what the work costs whatever else the machine is doing.
    const cpuMs = async (identity: string, address: string) => {
      const start = process.cpuUsage();
      expect((await signIn(identity, 'wrong password', address)).json()).toEqual(FAILED);
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 3; i++) {
      known.push(await cpuMs(EMAIL, '10.4.0.1'));
      unknown.push(await cpuMs('nobody@example.org', '10.4.0.2'));
    }
    // scrypt with N=2^15 costs tens of milliseconds of CPU; a database miss alone costs well under one.
    expect(Math.min(...unknown)).toBeGreaterThan(Math.min(...known) / 2);
  });
});
