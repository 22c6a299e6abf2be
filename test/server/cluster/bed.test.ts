/**
 * The two-instance test bed itself (test/support/cluster.ts): `restart(i)` brings an instance back on the same
 * port with a new process, `kill9(i)` leaves it down, and meanwhile the proxy sends every request to the instance
 * that is up (a refused connection goes to the next instance); requests carry the forwarded client address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../support/cluster.js';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(() => c?.stop());

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function proxiedStatuses(n: number): Promise<number[]> {
  const pat = await c.superuserPat();
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${c.proxyUrl}/api/papers/stats`, { headers: { Authorization: `Bearer ${pat}` } });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}

describe('cluster test bed', () => {
  it('restart(i): SIGTERM, then the same port and directories with a new process', async () => {
    const before = { pid: c.instances[1]!.pid, url: c.instances[1]!.url };
    await c.restart(1);
    expect(c.instances[1]!.url).toBe(before.url);
    expect(c.instances[1]!.pid).not.toBe(before.pid);
    expect(alive(before.pid)).toBe(false);
    expect(c.logs(1)).toContain(`--- start (pid ${c.instances[1]!.pid}) ---`);
    expect((await fetch(`${c.instances[1]!.url}/api/health`)).status).toBe(200);
  });

  it('kill9(i) leaves the instance down; the proxy sends every request to the other one; restart(i) revives it', async () => {
    const killed = c.instances[0]!.pid;
    await c.kill9(0);
    expect(alive(killed)).toBe(false);
    await expect(fetch(`${c.instances[0]!.url}/api/health`)).rejects.toThrow();
    expect(await proxiedStatuses(6)).toEqual([200, 200, 200, 200, 200, 200]);

    await c.restart(0);
    expect(c.instances[0]!.pid).not.toBe(killed);
    expect(await proxiedStatuses(4)).toEqual([200, 200, 200, 200]);
  });
});
