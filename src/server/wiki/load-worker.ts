/**
 * Worker-thread entry of `loadWikiIsolated`: walks, reads and parses the checkout (the part that handles untrusted
 * bytes) and posts the plain-data scan back. Whatever happens here — an exception, the heap limit — ends this worker,
 * never the server.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { scanWiki } from '../../wiki/index.js';

const { root } = workerData as { root: string };
const scan = await scanWiki(root);
// A page's body and path are its file's strings, but structured cloning copies a string per occurrence: post each
// once (the loader points the page at its file's strings again), which spares the main thread a second copy of the
// text to deserialize and collect.
for (const file of scan.files) {
  if (file.page === null) continue;
  file.page.body = '';
  file.page.path = '';
}
parentPort!.postMessage(scan);
