/** What the two-instance paper-access job files share. */
import { expect } from 'vitest';
import { CLUSTER_SYSTEM_PAT, type Instance } from '../../support/cluster.js';
import type { ArxivDouble } from '../../support/upstreams/arxiv.js';
import { until } from '../access/support/clocks.js';
import { addPaper, jsonOf } from '../access/support/papers.js';

/** `GET pathname` on one instance with the system PAT (`SVC_SYSTEM_PAT` of every instance). */
export const systemGet = (instance: Instance, pathname: string): Promise<Response> =>
  fetch(instance.url + pathname, { headers: { Authorization: `Bearer ${CLUSTER_SYSTEM_PAT}` } });

/**
 * Publishes the paper `id` (versioned, e.g. `2504.00012v1`) at the arXiv double with its PDF download held (the gate
 * closed: the caller opens it), triggers its markdown on `instance` and waits for the held download; resolves to the
 * job's `submitted_at`.
 */
export async function heldMarkdownJob(arxiv: ArxivDouble, instance: Instance, id: string): Promise<unknown> {
  addPaper(arxiv, id.replace(/v\d+$/, ''), 1, 256 * 1024);
  arxiv.pdfGate.close();
  const started = await systemGet(instance, `/api/papers/${id}/markdown`);
  expect(started.status).toBe(202);
  const submittedAt = (await jsonOf(started))['submitted_at'];
  await until(`${instance.id} to download`, () => arxiv.pdfGate.held === 1, 30_000);
  return submittedAt;
}
