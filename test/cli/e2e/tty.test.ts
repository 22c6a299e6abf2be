/**
 * Progress on a terminal (inside tmux): one line redrawn in place; piped, the plain line-per-event text.
 * Needs tmux (installed by scripts/install-test-deps.sh).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PKS_BIN, type PksHome } from '../support/pks.js';
import { snapshot, loggedInDouble, type Reply, type ServerDouble } from '../support/server-double.js';
import { TmuxTerminal } from '../support/terminal.js';

let h: PksHome;
let api: ServerDouble;
let close: () => Promise<void>;
const terminal = new TmuxTerminal();

beforeEach(async () => ({ h, api, close } = await loggedInDouble('pat_tty_1234567')));
afterEach(async () => {
  terminal.close();
  await close();
});

const ID = '2501.00010v1';
const MD = `/api/papers/${ID}/markdown`;
const waiting = (n: number): Reply => ({
  status: 200,
  body: snapshot('running', { phase: 'converting_md', convert: { stage: 'running', polled_count: n } }),
  headers: { 'retry-after': '1' },
});

/** Runs `command` in a fresh tmux window (a real terminal), returns the screen once `EXIT=<code>` shows. */
const onScreen = (command: string, name: string): Promise<string> =>
  terminal.onScreen(h, command, name, { width: 150, height: 30 });

describe('progress on a terminal', () => {
  it('paper get: the eta line is redrawn in place; piped it is one line per poll', async () => {
    const script = () => {
      api.on(
        'GET',
        MD,
        { status: 202, body: snapshot('queued'), headers: { 'retry-after': '1' } },
        {
          status: 200,
          body: '# md\n',
        },
      );
      api.on('GET', `${MD}/status`, waiting(1), waiting(2), waiting(3), {
        status: 200,
        body: snapshot('cached', { md_ready: true }),
      });
    };
    script();
    const out = path.join(h.cwd, 'out.md');
    const screen = await onScreen(`node ${PKS_BIN} paper get markdown ${ID} -o ${out}`, 'tty');
    const lines = screen.split('\n').filter((l) => l.trim() !== '');
    expect(lines.filter((l) => l.includes('waiting:') || l.includes('async operation started'))).toEqual([
      '... waiting: running converting_md convert.running polls=3',
    ]);
    expect(lines).toContainEqual(
      expect.stringMatching(/^downloading markdown 5 B \/ 5 B \(100%\) [\d.]+ (B|KiB|MiB|GiB)\/s$/),
    );
    expect(lines).toContain('Wrote 5 bytes to ' + out);
    expect(lines).toContain('EXIT=0');
    expect(readFileSync(out, 'utf8')).toBe('# md\n');

    script();
    const piped = await onScreen(`node ${PKS_BIN} paper get markdown ${ID} 2>&1 | cat`, 'pipe');
    const pipedLines = piped.split('\n').filter((l) => l.trim() !== '');
    expect(pipedLines.slice(0, 4)).toEqual([
      'async operation started: queued',
      '... waiting: running converting_md convert.running polls=1',
      '... waiting: running converting_md convert.running polls=2',
      '... waiting: running converting_md convert.running polls=3',
    ]);
  });

  it('contrib pdf: bytes and rate on a terminal; nothing extra when piped', async () => {
    const pdf = path.join(h.cwd, 'big.pdf');
    writeFileSync(pdf, Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(8 * 1024 * 1024)]));
    api.on('POST', `/api/papers/${ID}/upload-pdf`, { status: 201, body: { preprint_id: ID, unchanged: false } });
    const screen = await onScreen(`node ${PKS_BIN} contrib pdf ${ID} --pdf ${pdf} > /dev/null`, 'upload');
    expect(screen).toMatch(/uploading 8\.0 MiB \/ 8\.0 MiB \(100%\) [\d.]+ [KMG]iB\/s/);
    expect(screen.split('\n').filter((l) => l.includes('uploading'))).toHaveLength(1);
    const piped = await onScreen(`node ${PKS_BIN} contrib pdf ${ID} --pdf ${pdf} 2>&1 >/dev/null | cat`, 'upload-pipe');
    expect(piped).not.toContain('uploading');
  });
});
