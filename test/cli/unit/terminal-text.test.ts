/**
 * The one sanitiser of terminal output (`terminalText`) and the IO that applies it to every write of a run
 * (`terminalSafeIO`): escape sequences and control characters from the server never reach the terminal.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { oneLine, terminalSafeIO, terminalText } from '../../../src/cli/text.js';
import { capturingIO } from '../support/captured-io.js';

describe('terminalText', () => {
  it.each([
    ['SGR colour', 'a\x1b[31mred\x1b[0m b', 'ared b'],
    ['cursor movement and screen clear', 'x\x1b[2J\x1b[H\x1b[1;1Hy', 'xy'],
    ['OSC window title (BEL)', '\x1b]0;pwned\x07title', 'title'],
    ['OSC 8 hyperlink (ST)', '\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\', 'click'],
    ['OSC title with spaces', '\x1b]2;a b\x07z', 'z'],
    ['8-bit CSI', 'a\x9b31mb', 'ab'],
    ['lone ESC, BEL, backspace, CR, NUL, DEL', 'a\x1bb\x07c\bd\re\x00f\x7fg', 'abcdefg'],
    ['C1 controls', 'a\x85b\x90c\x9cd', 'abcd'],
    ['bidi overrides and isolates', 'evil\u202etxt.exe \u2066x\u2069', 'eviltxt.exe x'],
    ['line breaks and tabs stay', 'one\n\ttwo\nthree', 'one\n\ttwo\nthree'],
    ['CRLF becomes LF', 'a\r\nb', 'a\nb'],
    ['ordinary text, accents and CJK stay', 'Schrödinger — 量子 ✓', 'Schrödinger — 量子 ✓'],
  ])('%s', (_name, input, expected) => {
    expect(terminalText(input)).toBe(expected);
  });

  it('oneLine folds line breaks (for fields inside one-line messages)', () => {
    expect(oneLine('  a\nb\r\n\tc  ')).toBe('a b c');
    expect(oneLine('a  \n   \n  b c\u2028d')).toBe('a b c d');
  });

  it('oneLine takes linear time on a long run of blanks (a server detail of 1 MB of spaces)', () => {
    const start = process.cpuUsage();
    expect(oneLine(`x${' '.repeat(1_000_000)}y`)).toBe(`x${' '.repeat(1_000_000)}y`);
    const used = process.cpuUsage(start);
    expect((used.user + used.system) / 1000).toBeLessThan(1000); // the backtracking pattern took about a minute
  });
});

describe('terminalSafeIO', () => {
  function captured(stdoutIsTTY: boolean) {
    const out = { stdout: '', stderr: '', bytes: [] as Buffer[] };
    const stream = new PassThrough();
    stream.on('data', (c: Buffer) => out.bytes.push(c));
    const raw = capturingIO(out, { stdoutStream: stream, stdoutIsTTY, stderrIsTTY: true });
    return { io: terminalSafeIO(raw), out };
  }

  it('text writes are sanitised; the control writer stays raw', () => {
    const { io, out } = captured(false);
    io.stdout('detail: \x1b[2Jgone\u202e\n');
    io.stderr('\x1b]0;t\x07Error: x\n');
    io.stderrControl('\r\x1b[2K');
    expect(out.stdout).toBe('detail: gone\n');
    expect(out.stderr).toBe('Error: x\n\r\x1b[2K');
  });

  const write = (stream: NodeJS.WritableStream, chunk: Buffer) =>
    new Promise<void>((resolve, reject) => stream.write(chunk, (err) => (err ? reject(err) : resolve())));

  it('binary stdout to a terminal is sanitised, a character split between chunks kept whole', async () => {
    const { io, out } = captured(true);
    const text = Buffer.from('# Tïtle\x1b[31m\n\x1b]0;x\x07body\n');
    const cut = text.indexOf(Buffer.from('ï')) + 1; // inside the two bytes of ï
    await write(io.stdoutStream, text.subarray(0, cut));
    await write(io.stdoutStream, text.subarray(cut));
    expect(Buffer.concat(out.bytes).toString('utf8')).toBe('# Tïtle\nbody\n');
  });

  it('binary stdout that is not a terminal (a pipe, a file) stays byte for byte', async () => {
    const { io, out } = captured(false);
    const bytes = Buffer.from('\x1b[31m%PDF\x00\xff');
    await write(io.stdoutStream, bytes);
    expect(Buffer.concat(out.bytes)).toEqual(bytes);
  });
});
