/** The common end of a CLI e2e test: a command that succeeds quietly and prints exactly the given lines. */
import { expect } from 'vitest';
import { pks, type PksHome } from './pks.js';

/**
 * Runs `pks <args>` in `h`; expects exit 0, nothing on stderr and exactly `lines` on stdout, each ended by a newline.
 * `lines` may be the screen as one text (a template literal laid out as the terminal shows it).
 */
export async function expectPrints(
  h: PksHome,
  args: readonly string[],
  lines: readonly string[] | string,
): Promise<void> {
  const run = await pks(h, args);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toBe(typeof lines === 'string' ? `${lines}\n` : [...lines, ''].join('\n'));
}
