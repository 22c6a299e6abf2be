/**
 * CONTRACT §21 with two real `pksd serve` processes: "triggers and status calls on any instance answer that job's
 * snapshot" — also the registry's views of jobs (§18.2): `GET /api/papers/{id}` (its `jobs`) and
 * `GET /api/papers/status/batch` on an instance that never saw a trigger answer the job another instance runs,
 * from its lease row. A per-process design answers no job there (B holds none).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster, type Instance } from '../../support/cluster.js';
import { until } from '../access/support/clocks.js';
import { jsonOf, type Body } from '../access/support/papers.js';
import { heldMarkdownJob, systemGet } from './support.js';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster({ upstreams: true });
});
afterAll(() => c?.stop());

const detailOn = async (instance: Instance, id: string): Promise<Body> => {
  const res = await systemGet(instance, `/api/papers/${id}`);
  expect(res.status).toBe(200);
  return jsonOf(res);
};
const jobsOn = async (instance: Instance, id: string) =>
  (await detailOn(instance, id))['jobs'] as { markdown: Body | null; pdf: Body | null };
const batchOn = async (instance: Instance, ids: readonly string[]): Promise<Body[]> => {
  const res = await systemGet(instance, `/api/papers/status/batch?ids=${ids.join(',')}`);
  expect(res.status).toBe(200);
  return (await jsonOf(res))['results'] as Body[];
};

describe('cluster: the registry shows jobs other instances run', () => {
  it("a job running on A is in B's paper detail and status/batch (200 ids), then cached on both", async () => {
    const [a, b] = c.instances as [Instance, Instance];
    const { arxiv } = c.upstreams!;
    const id = '2504.00021v1';
    try {
      const submittedAt = await heldMarkdownJob(arxiv, a, id);
      await until(
        "B's detail to show A's running fetch",
        async () => (await jobsOn(b, id)).markdown?.state === 'running',
        30_000,
        50,
      );

      // B never received a trigger: what it shows is A's job, from its row.
      const jobs = await jobsOn(b, id);
      expect(jobs.markdown).toMatchObject({
        preprint_id: id,
        state: 'running',
        phase: 'fetching_pdf',
        submitted_at: submittedAt,
      });
      // A markdown job in its fetch phase is the PDF job too (as on the instance running it).
      expect(jobs.pdf).toEqual(jobs.markdown);
      expect((await jobsOn(a, id)).markdown).toMatchObject({
        state: 'running',
        phase: 'fetching_pdf',
        submitted_at: submittedAt,
      });

      // 200 ids at once (the limit): the running one from A's row, the others nothing.
      const others = Array.from({ length: 199 }, (_, i) => `2504.${String(30_000 + i)}v1`);
      const results = await batchOn(b, [id, ...others]);
      expect(results).toHaveLength(200);
      expect(results[0]).toEqual({
        requested_id: id,
        resolved_id: id,
        md_ready: false,
        pdf_ready: false,
        image_count: 0,
        state: 'running',
        phase: 'fetching_pdf',
        error: '',
      });
      expect(new Set(results.slice(1).map((r) => `${String(r.state)}/${String(r['phase'])}`))).toEqual(
        new Set(['none/']),
      );
      // B still runs nothing itself: its answers did not start or join a job.
      const listed = (await jsonOf(await systemGet(b, '/api/papers/jobs')))['jobs'] as Body[];
      expect(listed.filter((j) => j['preprint_id'] === id).map((j) => j.state)).toEqual(['running']);
    } finally {
      arxiv.pdfGate.open();
    }

    await until(
      'the markdown to be cached and seen by both',
      async () =>
        (await batchOn(a, [id]))[0]?.state === 'cached' &&
        (await batchOn(b, [id]))[0]?.state === 'cached' &&
        (await jobsOn(b, id)).markdown === null,
      60_000,
      100,
    );
    expect((await batchOn(b, [id]))[0]).toMatchObject({ md_ready: true, pdf_ready: true, phase: 'ready' });
    expect(arxiv.requestsTo('pdf').filter((r) => r.url === `/pdf/${id}`)).toHaveLength(1);
  }, 120_000);
});
