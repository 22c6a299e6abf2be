/**
 * A young-generation collection after every few MiB of upload bytes received or staged bytes read back. Each socket
 * read of a request body is a fresh 64 KiB buffer (each read of a staged file a fresh 1 MiB one), dead once passed on; V8 frees such buffers at a scavenge, which only JavaScript allocation
 * triggers (little of it while bytes stream through), or at a full collection under external-memory pressure
 * (~64 MiB of them). A 100 MiB upload thus grew the server's RSS by 40–90 MiB and cost about five full
 * collections; a scavenge every 8 MiB bounds that garbage and costs well under a millisecond each (issue 25,
 * docs/decisions.md).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const EVERY_BYTES = 8 * 1024 * 1024;

// Node's documented way to reach V8's `gc()` without the command-line flag; the flag is withdrawn at once, so no
// later context gets the function.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as (options: { type: 'minor'; execution: 'sync' }) => void;
setFlagsFromString('--no-expose-gc');

let sinceCollection = 0;

/** Counts `bytes` received (every upload in the process together) and collects the young generation every 8 MiB. */
export function received(bytes: number): void {
  sinceCollection += bytes;
  if (sinceCollection < EVERY_BYTES) return;
  sinceCollection = 0;
  collect({ type: 'minor', execution: 'sync' });
}
