/**
 * Worker-thread entry of `loadWikiIsolated`: walks, reads and parses the checkout (the part that handles untrusted
 * bytes), counts the terms of the page bodies for the search index (the bulk of its tokenizing, off the serving
 * thread), and posts the plain-data scan and the counts back. Whatever happens here — an exception, the heap limit —
 * ends this worker, never the server.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BodyCounts, scanWiki } from '../../wiki/index.js';
import type { LoadWorkerResult } from './loader.js';

const { root } = workerData as { root: string };
const scan = await scanWiki(root);
const counts = new BodyCounts();
for (const file of scan.files) counts.add(file.page === null ? null : file.page.body);
const bodies = counts.result();
// A page's body and path are its file's strings, but structured cloning copies a string per occurrence: post each
// once (the loader points the page at its file's strings again), which spares the main thread a second copy of the
// text to deserialize and collect.
for (const file of scan.files) {
  if (file.page === null) continue;
  file.page.body = '';
  file.page.path = '';
}
const result: LoadWorkerResult = { scan, bodies };
parentPort!.postMessage(
  result,
  [bodies.counted, bodies.starts, bodies.termIds, bodies.tfs].map((a) => a.buffer as ArrayBuffer),
);
