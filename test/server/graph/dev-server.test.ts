/**
 * README command 1 with a real graph: `scripts/dev-server.sh` starts Neo4j 5.26 through the tests' launcher, syncs
 * the sample wiki and loads the bundled sample snapshot, so `/api/graph/*` answers with data on the first start;
 * without Java it starts without a graph and says so. Paper access is on against local stand-ins of its
 * upstreams, so a conversion happens end to end.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { REPO_ROOT } from '../../support/server.js';

const temp = mkdtempSync(path.join(os.tmpdir(), 'dev-graph-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface Started {
  readonly url: string;
  readonly token: string;
  readonly stderr: () => string;
  stop(): Promise<void>;
}

async function startDevServer(name: string, pathEnv: string, extraEnv: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const child = spawn('bash', ['scripts/dev-server.sh'], {
    cwd: REPO_ROOT,
    env: {
      PATH: pathEnv,
      HOME: os.homedir(),
      PKS_DEV_DIR: path.join(temp, name),
      // The suite installed and built; the script must not run npm ci or a build under the other tests.
      PKS_DEV_PREPARED: '1',
      SVC_HTTP_ADDR: `127.0.0.1:${port}`,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise((resolve) => child.on('close', resolve));
  const stop = async () => {
    process.kill(-child.pid!, 'SIGTERM');
    await closed;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', () => stderr.includes('pksd listening on') && resolve());
      child.on('exit', (code) => reject(new Error(`dev server exited ${code}: ${stderr}`)));
    });
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  const token = /Bearer ([^']+)'/.exec(stderr)?.[1] ?? '';
  return { url: `http://127.0.0.1:${port}`, token, stderr: () => stderr, stop };
}

describe('scripts/dev-server.sh and the graph', () => {
  it('answers /api/graph/stats with the sample wiki and snapshot on the first start', async () => {
    const dev = await startDevServer('with-java', process.env['PATH'] ?? '/usr/bin:/bin');
    try {
      expect(dev.stderr()).toMatch(/Graph: {8}bolt:\/\/127\.0\.0\.1:\d+ \(Neo4j 5\.26/);
      const auth = { Authorization: `Bearer ${dev.token}` };
      const stats = (await (await fetch(`${dev.url}/api/graph/stats`, { headers: auth })).json()) as {
        nodes: number;
        relationships: number;
        label_counts: Record<string, number>;
      };
      expect(stats.label_counts['Paper']).toBeGreaterThanOrEqual(320);
      expect(stats.label_counts['Algorithm']).toBeGreaterThan(0);
      expect(stats.relationships).toBeGreaterThan(1000);
      const res = await fetch(`${dev.url}/api/graph/query`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          query:
            "MATCH (p:Paper {preprint_id: 'quant-ph/9508027'}) RETURN p.title AS title, p.wiki_id AS wiki, p.__derived_citations_in > 0 AS cited",
        }),
      });
      expect(await res.json()).toMatchObject({
        records: [
          {
            title: 'Polynomial-Time Algorithms for Prime Factorization and Discrete Logarithms on a Quantum Computer',
            wiki: 'paper-preprint-quant-ph-9508027v2',
            cited: true,
          },
        ],
      });

      // Paper access: a sample paper is fetched from the arXiv stand-in and converted by the MinerU stand-in.
      expect(dev.stderr()).toContain('Papers:       paper access on, against local stand-ins');
      const first = await fetch(`${dev.url}/api/papers/2501.00010/markdown`, { headers: auth });
      expect(first.status).toBe(202);
      expect(first.headers.get('x-svc-resolved-id')).toBe('2501.00010v2');
      let markdown: Response = first;
      for (let i = 0; i < 300 && markdown.status !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100)); // the job runs in the server; poll as a client
        markdown = await fetch(`${dev.url}/api/papers/2501.00010/markdown`, { headers: auth });
      }
      expect(markdown.status).toBe(200);
      expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect((await markdown.text()).length).toBeGreaterThan(0);
    } finally {
      await dev.stop();
    }
  });

  it('without Java it starts without a graph and says so', async () => {
    // A PATH with every command of the real one except java.
    const bin = path.join(temp, 'bin-without-java');
    mkdirSync(bin);
    for (const dir of (process.env['PATH'] ?? '').split(':').filter(Boolean)) {
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (name === 'java') continue;
        try {
          symlinkSync(path.join(dir, name), path.join(bin, name));
        } catch {
          // the first directory in PATH wins, as for the shell
        }
      }
    }
    const dev = await startDevServer('without-java', bin, { PKS_DEV_UPSTREAMS: '0' });
    try {
      expect(dev.stderr()).toContain(
        'Graph:        none (no Java: install a Java 17+ runtime and Maven for the graph)',
      );
      const body = await (
        await fetch(`${dev.url}/api/graph/stats`, { headers: { Authorization: `Bearer ${dev.token}` } })
      ).json();
      expect(body).toEqual({ error: 'graph not configured (GRAPHDB_URI empty)' });
    } finally {
      await dev.stop();
    }
  });
});
