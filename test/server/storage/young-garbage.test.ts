/**
 * `youngGarbage`: a young-generation collection once the memory outside the heap has grown by 8 MiB since the last
 * one, at most every 25 ms — the policy driven by a clock and a memory reading of the test's own; then the process's
 * `received`, observed as what it is for: dead buffers' memory (`process.memoryUsage().arrayBuffers`) given back;
 * and V8's `gc` reached without leaking into any context.
 */
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { received, youngGarbage } from '../../../src/server/storage/young-garbage.js';

const MiB = 1024 * 1024;

/** The policy over a memory reading and a clock the steps set, counting its collections. */
function policy() {
  const state = { external: 100 * MiB, now: 1_000, collections: 0, looks: 0 };
  const receive = youngGarbage({
    externalMemory: () => (state.looks++, state.external),
    now: () => state.now,
    collect: () => state.collections++,
  });
  state.looks = 0;
  return { state, receive };
}

describe('the policy', () => {
  it.each<[string, { external: number; after: number; bytes: number }[], number]>([
    ['bytes received, no dead buffers outside the heap', [{ external: 0, after: 0, bytes: 64 * MiB }], 0],
    ['7.9 MiB more outside the heap', [{ external: 7.9 * MiB, after: 500, bytes: 8 * MiB }], 0],
    ['8 MiB more outside the heap', [{ external: 8 * MiB, after: 500, bytes: MiB }], 1],
    [
      '8 MiB more again 24 ms after a collection, then 25 ms after it',
      [
        { external: 8 * MiB, after: 500, bytes: MiB },
        { external: 16 * MiB, after: 24, bytes: MiB },
        { external: 16 * MiB, after: 1, bytes: MiB },
      ],
      2,
    ],
    [
      'another collection freed the buffers first: growth counts from the lowest reading',
      [
        { external: -6 * MiB, after: 500, bytes: MiB },
        { external: 1 * MiB, after: 500, bytes: MiB },
        { external: 2 * MiB, after: 500, bytes: MiB },
      ],
      1,
    ],
  ])('%s', (_name, steps, collections) => {
    const { state, receive } = policy();
    const start = state.external;
    for (const step of steps) {
      state.external = start + step.external;
      state.now += step.after;
      receive(step.bytes);
    }
    expect(state.collections).toBe(collections);
  });

  it('looks at the memory once per MiB counted, not per chunk', () => {
    const { state, receive } = policy();
    for (let i = 0; i < 16; i++) receive(64 * 1024);
    expect(state.looks).toBe(1);
  });
});

/** 4 MiB of dead 64 KiB buffers, as a request body's socket reads leave them. */
function dropBuffers(): void {
  for (let i = 0; i < 64; i++) Buffer.allocUnsafeSlow(64 * 1024).fill(i);
}

it("the process's received frees dead upload buffers once 8 MiB of them are outside the heap", async () => {
  const arrayBuffers = () => process.memoryUsage().arrayBuffers;
  const base = arrayBuffers();
  for (let i = 0; i < 3; i++) dropBuffers();
  expect(arrayBuffers() - base).toBeGreaterThan(8 * MiB);
  received(MiB);
  // V8 sweeps dead array buffers on a background thread after the collection: their memory goes back shortly.
  await vi.waitFor(() => expect(arrayBuffers() - base).toBeLessThan(MiB), { timeout: 2_000 });
});

it('gc stays unexposed: not in the main context, a new vm context or a new worker', async () => {
  expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
  expect(runInNewContext('typeof gc')).toBe('undefined');
  const worker = new Worker("require('node:worker_threads').parentPort.postMessage(typeof gc)", { eval: true });
  try {
    expect(await new Promise((resolve) => worker.once('message', resolve))).toBe('undefined');
  } finally {
    await worker.terminate();
  }
});
