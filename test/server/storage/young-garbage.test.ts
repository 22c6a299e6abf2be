/**
 * `youngGarbage.received`: a young-generation collection once 8 MiB were counted (in any number of calls), none
 * before — observed as what it is for: dead buffers' memory (`process.memoryUsage().arrayBuffers`) given back.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { expect, it, vi } from 'vitest';
import { received } from '../../../src/server/storage/young-garbage.js';

const MiB = 1024 * 1024;
const arrayBuffers = () => process.memoryUsage().arrayBuffers;

/** 4 MiB of dead 64 KiB buffers, as a request body's socket reads leave them. */
function dropBuffers(): void {
  for (let i = 0; i < 64; i++) Buffer.allocUnsafeSlow(64 * 1024).fill(i);
}

it('collects the young generation every 8 MiB received, not before', async () => {
  received(8 * MiB); // start right after a collection
  await nextTurn();
  const base = arrayBuffers();
  dropBuffers();
  received(4 * MiB);
  received(4 * MiB - 1);
  expect(arrayBuffers() - base).toBeGreaterThan(3 * MiB); // not collected yet
  received(1);
  // V8 sweeps dead array buffers on a background thread after the collection: their memory goes back shortly.
  await vi.waitFor(() => expect(arrayBuffers() - base).toBeLessThan(MiB), { timeout: 2_000 });
});
