/** Reading values from stdin: one line (optionally a hidden prompt on a terminal), or everything. */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { CliIO } from './context.js';
import { InterruptedError } from './errors.js';

interface RawCapable {
  setRawMode?: (raw: boolean) => unknown;
}

/** One line from stdin, without its line ending (`''` at end of input). On a terminal `prompt` is shown first. */
export async function readLine(io: CliIO, prompt: string, hidden = false): Promise<string> {
  if (io.stdinIsTTY && hidden && typeof (io.stdin as RawCapable).setRawMode === 'function') {
    return readHidden(io, prompt);
  }
  if (io.stdinIsTTY) io.stderr(prompt);
  const rl = createInterface({ input: io.stdin, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of rl) return line;
    return '';
  } finally {
    rl.close();
    io.stdin.pause();
  }
}

/** Everything on stdin as text. */
export async function readAll(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/** A prompt whose answer is not echoed (raw mode; Backspace edits, Ctrl-C interrupts). */
function readHidden(io: CliIO, prompt: string): Promise<string> {
  const stdin = io.stdin as Readable & RawCapable;
  io.stderr(prompt);
  stdin.setRawMode!(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (err: Error | null) => {
      stdin.off('data', onData);
      stdin.setRawMode!(false);
      stdin.pause();
      io.stderr('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (data: string) => {
      for (const ch of data) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(null);
        if (ch === '\u0003') return finish(new InterruptedError('interrupted'));
        if (ch === '\u007f' || ch === '\b') value = Array.from(value).slice(0, -1).join('');
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
