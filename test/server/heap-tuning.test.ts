/**
 * The server's heap sizing (`tuneHeapForServer`, set by `pksd serve`): under a load that keeps promoting
 * short-lived objects to the old generation, the old space stays well below where V8's defaults let it climb.
 * Each case runs in a fresh Node process (the flags are process-wide).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/server.js';

const TUNING = pathToFileURL(path.join(REPO_ROOT, 'src/server/heap-tuning.ts')).href;

// A sliding window of 40 batches of small objects: each batch lives long enough to be promoted, then dies.
const WORKLOAD = `
import v8 from 'node:v8';
const mode = process.argv[1];
if (mode === 'tuned') (await import(${JSON.stringify(TUNING)})).tuneHeapForServer();
// An operator's own value for both flags (V8's defaults, given explicitly): the tuning must leave them alone.
if (mode === 'operator') (await import(${JSON.stringify(TUNING)})).tuneHeapForServer(['--initial_old_space_size=0', '--heap-growing-percent=0']);
const ring = [];
let peak = 0;
for (let i = 0; i < 1500; i++) {
  const batch = [];
  for (let k = 0; k < 5000; k++) batch.push({ i, k, s: 'x' + k });
  ring.push(batch);
  if (ring.length > 40) ring.shift();
  if (i % 10 === 0) peak = Math.max(peak, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size);
}
process.stdout.write(String(peak));
`;

const peakOldSpace = (mode: 'default' | 'tuned' | 'operator'): number =>
  Number(execFileSync(process.execPath, ['--input-type=module', '-e', WORKLOAD, mode], { encoding: 'utf8' }));

describe('tuneHeapForServer', () => {
  it('keeps the old space near its live size: a peak at most 75% of the defaults’ in the same workload', () => {
    const untuned = peakOldSpace('default');
    const tuned = peakOldSpace('tuned');
    expect(untuned).toBeGreaterThan(0);
    expect(tuned).toBeLessThanOrEqual(untuned * 0.75);
  }, 60_000);

  it('leaves a flag alone when the process was started with its own value', () => {
    const tuned = peakOldSpace('tuned');
    const operator = peakOldSpace('operator');
    expect(operator).toBeGreaterThan(tuned / 0.75);
  }, 60_000);
});
