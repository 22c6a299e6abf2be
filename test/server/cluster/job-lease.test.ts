/**
 * CONTRACT §21 with two real `pksd serve` processes on one PostgreSQL and one object store: "a paper-access job for
 * one canonical id runs on one instance at a time (a row lease renewed every 20 s, taken over 60 s after its holder
 * stops renewing); triggers and status calls on any instance answer that job's snapshot".
 *
 * Bounded: the takeover needs the 60 s lease to run out (no setting shortens it), so the second test waits at most
 * 100 s for it, watching the status, never sleeping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster, type Instance } from '../../support/cluster.js';
import { until } from '../access/support/clocks.js';
import { addPaper, jsonOf, type Body } from '../access/support/papers.js';
import { heldMarkdownJob, systemGet } from './support.js';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster({ upstreams: true });
});
afterAll(() => c?.stop());

const statusOn = async (instance: Instance, id: string): Promise<Body> =>
  jsonOf(await systemGet(instance, `/api/papers/${id}/markdown/status`));
const pdfRequests = (id: string) => c.upstreams!.arxiv.requestsTo('pdf').filter((r) => r.url === `/pdf/${id}`);
const submissions = (id: string) => c.upstreams!.mineru.creations.filter((r) => r.dataId === id).length;

describe('cluster: one paper-access job per id across instances', () => {
  it('the same paper triggered on A and B at once: one download, one conversion, one snapshot everywhere', async () => {
    const [a, b] = c.instances as [Instance, Instance];
    const { arxiv } = c.upstreams!;
    const id = '2504.00011v1';
    addPaper(arxiv, '2504.00011', 1, 256 * 1024);
    arxiv.pdfGate.close();
    try {
      const answers = await Promise.all([a, b].map((i) => systemGet(i, `/api/papers/${id}/markdown`)));
      expect(answers.map((r) => r.status)).toEqual([202, 202]);
      const [onA, onB] = (await Promise.all(answers.map(jsonOf))) as [Body, Body];
      expect(onA).toMatchObject({ preprint_id: id, detail: 'conversion in progress' });
      expect(onB['submitted_at']).toBe(onA['submitted_at']);

      // The download is held: both instances answer the one running job, and list it once.
      await until('the download to reach arXiv', () => arxiv.pdfGate.held === 1, 30_000);
      await until(
        'both instances to answer the running fetch',
        async () => (await statusOn(a, id)).state === 'running' && (await statusOn(b, id)).state === 'running',
        30_000,
        50,
      );
      const [sa, sb] = [await statusOn(a, id), await statusOn(b, id)];
      expect(sb).toMatchObject({
        preprint_id: id,
        state: 'running',
        phase: 'fetching_pdf',
        submitted_at: sa['submitted_at'],
        started_at: sa['started_at'],
      });
      for (const instance of [a, b]) {
        const jobs = (await jsonOf(await systemGet(instance, '/api/papers/jobs')))['jobs'] as Body[];
        expect(jobs.filter((j) => j['preprint_id'] === id).map((j) => [j['asset'], j.state])).toEqual([
          ['markdown', 'running'],
        ]);
      }
      // Another trigger on either instance meanwhile joins the job.
      const again = await systemGet(b, `/api/papers/${id}/markdown`);
      expect(again.status).toBe(202);
      expect(await jsonOf(again)).toMatchObject({ state: 'running', submitted_at: sa['submitted_at'] });
    } finally {
      arxiv.pdfGate.open();
    }
    await until(
      'the markdown to be cached on both instances',
      async () => (await statusOn(a, id)).state === 'cached' && (await statusOn(b, id)).state === 'cached',
      60_000,
      100,
    );
    expect(pdfRequests(id)).toHaveLength(1);
    expect(submissions(id)).toBe(1);
    const [ma, mb] = (await Promise.all([a, b].map((i) => systemGet(i, `/api/papers/${id}/markdown`)))) as [
      Response,
      Response,
    ];
    expect([ma.status, mb.status]).toEqual([200, 200]);
    expect(await mb.text()).toBe(await ma.text());
  });

  it('the holder is killed (SIGKILL): the other instance takes the job over once the lease ran out and finishes it', async () => {
    const [a, b] = c.instances as [Instance, Instance];
    const { arxiv } = c.upstreams!;
    const id = '2504.00012v1';
    const submittedAt = await heldMarkdownJob(arxiv, a, id);
    const firstRequest = pdfRequests(id)[0]!.at;
    // B joins A's job: its answer is A's job.
    const joined = await systemGet(b, `/api/papers/${id}/markdown`);
    expect(joined.status).toBe(202);
    expect((await jsonOf(joined))['submitted_at']).toBe(submittedAt);

    await c.kill9(0);
    arxiv.pdfGate.open();
    // Until the lease runs out B answers the job A left (its last snapshot), and starts nothing.
    const left = await statusOn(b, id);
    expect(left).toMatchObject({ phase: 'fetching_pdf', submitted_at: submittedAt });
    expect(['queued', 'running']).toContain(left.state);
    await until(
      'B to take the job over and store the markdown',
      async () => (await statusOn(b, id)).state === 'cached',
      100_000,
      250,
    );
    const requests = pdfRequests(id);
    expect(requests).toHaveLength(2);
    // Taken over no sooner than 60 s after A's lease was taken (A took it just before its download began).
    expect(requests[1]!.at - firstRequest).toBeGreaterThanOrEqual(59_000);
    expect(submissions(id)).toBe(1);
    const jobs = (await jsonOf(await systemGet(b, '/api/papers/jobs')))['jobs'] as Body[];
    expect(jobs.filter((j) => j['preprint_id'] === id).map((j) => j.state)).toEqual(['cached']);
  }, 150_000);
});
