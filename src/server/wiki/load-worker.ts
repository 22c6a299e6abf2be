/**
 * Worker-thread entry of `loadWikiIsolated`: walks, reads and parses the checkout (the part that handles untrusted
 * bytes) and posts the plain-data scan back. Whatever happens here — an exception, the heap limit — ends this worker,
 * never the server.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { scanWiki } from '../../wiki/index.js';

const { root } = workerData as { root: string };
parentPort!.postMessage(await scanWiki(root));
