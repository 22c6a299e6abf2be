import { StringDecoder } from 'node:string_decoder';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import type { CliIO } from './context.js';

/** Cuts `text` to `width` characters (code points), ending the cut text with `mark`. */
export function fit(text: string, width: number, mark = '…'): string {
  const chars = Array.from(text);
  return chars.length <= width ? text : `${chars.slice(0, width - mark.length).join('')}${mark}`;
}

/**
 * What a terminal would act on rather than show, once the escape sequences are gone: C0 controls but `\t` and
 * `\n` (so also ESC, BEL, `\r`, backspace), DEL, the C1 controls (U+0080–U+009F, among them the 8-bit CSI), and
 * the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) that reorder what is shown.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as it may reach a terminal (CONTRACT §16, the client's output): escape sequences (CSI, OSC, …) removed
 * whole, then every remaining control character; line breaks and tabs stay. Every write of the client to
 * stdout/stderr passes here (`terminalSafeIO`), so server text (details, messages, names, snapshot fields) and
 * wiki files cannot move the cursor, retitle the window, plant hyperlinks or reorder a line.
 */
export function terminalText(text: string): string {
  return stripVTControlCharacters(text).replace(TERMINAL_CONTROLS, '');
}

/**
 * `text` on one line: each line break (with the blanks around it) becomes one space; trimmed. Split and trim, not
 * one pattern: a pattern with blanks before the break backtracks quadratically on a long run of blanks.
 */
export function oneLine(text: string): string {
  return text
    .split(/[\n\r\v\f\u2028\u2029]+/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}

/**
 * `io` with every text write passed through `terminalText`; binary output to stdout too when stdout is a terminal
 * (`paper get` without `-o`; piped or redirected, the bytes stay exact). `stderrControl` stays raw.
 */
export function terminalSafeIO(io: CliIO): CliIO {
  return {
    ...io,
    stdout: (text) => io.stdout(terminalText(text)),
    stderr: (text) => io.stderr(terminalText(text)),
    stdoutStream: io.stdoutIsTTY ? terminalSafeStream(io.stdoutStream) : io.stdoutStream,
  };
}

/** A writable that passes UTF-8 text on to `out` through `terminalText` (a character split between chunks is kept whole). */
function terminalSafeStream(out: Writable): Writable {
  const decoder = new StringDecoder('utf8');
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.write(terminalText(decoder.write(chunk)), (err) => done(err ?? null));
    },
  });
}
