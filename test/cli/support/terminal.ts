/**
 * A real terminal for CLI tests: a private tmux server (its own socket) where a command runs in a fresh window.
 * Needs tmux (installed by scripts/install-test-deps.sh).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PksHome } from './pks.js';

export class TmuxTerminal {
  private readonly socket: string;

  constructor(prefix = 'pks-test') {
    this.socket = `${prefix}-${randomBytes(4).toString('hex')}`;
  }

  /** Runs `command` in `h`'s directory and home in a fresh window; returns the screen once `EXIT=<code>` shows. */
  async onScreen(h: PksHome, command: string, name: string, size: { width: number; height: number }): Promise<string> {
    const script = path.join(h.home, `${name}.sh`);
    writeFileSync(
      script,
      `cd ${h.cwd}\nexport HOME=${h.home} PATH=${process.env['PATH']}\n${command}\necho EXIT=$?\nsleep 60\n`,
    );
    this.tmux('new-session', '-d', '-s', name, '-x', String(size.width), '-y', String(size.height), `sh ${script}`);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const screen = this.tmux('capture-pane', '-p', '-t', name);
      if (/EXIT=\d+/.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`no exit on screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Ends the tmux server and its windows; nothing to do when none was started. */
  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}
