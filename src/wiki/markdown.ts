/**
 * The little markdown structure the wiki needs: where code is (fenced blocks with ``` or ~~~, inline code spans),
 * and ATX headings outside code.
 */

const FENCE_OPEN_RE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * The text with the contents of fenced code blocks (fence lines included) and of inline code spans replaced by
 * spaces. Length and line structure are preserved, so offsets into the result are offsets into the input.
 */
export function maskCode(text: string): string {
  if (!text.includes('`') && !text.includes('~~~')) return text;
  const lines = text.split('\n');
  let fence: { char: string; length: number } | null = null;
  let paragraphStart = -1;
  let paragraphHasTick = false;

  const flushParagraph = (end: number): void => {
    if (paragraphStart !== -1 && paragraphHasTick) {
      const masked = maskInlineCode(lines.slice(paragraphStart, end).join('\n')).split('\n');
      for (let k = 0; k < masked.length; k++) lines[paragraphStart + k] = masked[k]!;
    }
    paragraphStart = -1;
    paragraphHasTick = false;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      if (line.includes(fence.char)) {
        const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
        if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = null;
      }
      lines[i] = blank(line);
      continue;
    }
    const first = line.trimStart()[0];
    if (first === '`' || first === '~') {
      const open = FENCE_OPEN_RE.exec(line);
      // A backtick fence's info string may not contain backticks (CommonMark).
      if (open && !(open[1]![0] === '`' && open[2]!.includes('`'))) {
        flushParagraph(i);
        fence = { char: open[1]![0]!, length: open[1]!.length };
        lines[i] = blank(line);
        continue;
      }
    }
    if (line.trim() === '') {
      flushParagraph(i);
      continue;
    }
    if (paragraphStart === -1) paragraphStart = i;
    if (line.includes('`')) paragraphHasTick = true;
  }
  flushParagraph(lines.length);
  return lines.join('\n');
}

/** Mask inline code spans: a run of N backticks up to the next run of exactly N backticks. */
export function maskInlineCode(text: string): string {
  if (!text.includes('`')) return text;
  let result = '';
  let i = 0;
  while (i < text.length) {
    const tick = text.indexOf('`', i);
    if (tick === -1) {
      result += text.slice(i);
      break;
    }
    result += text.slice(i, tick);
    let runEnd = tick;
    while (runEnd < text.length && text[runEnd] === '`') runEnd++;
    const runLength = runEnd - tick;
    const close = findBacktickRun(text, runEnd, runLength);
    if (close === -1) {
      // Unmatched backticks are literal text.
      result += text.slice(tick, runEnd);
      i = runEnd;
      continue;
    }
    result += blank(text.slice(tick, close + runLength));
    i = close + runLength;
  }
  return result;
}

function findBacktickRun(text: string, from: number, length: number): number {
  let i = from;
  while (i < text.length) {
    const tick = text.indexOf('`', i);
    if (tick === -1) return -1;
    let end = tick;
    while (end < text.length && text[end] === '`') end++;
    if (end - tick === length) return tick;
    i = end;
  }
  return -1;
}

/** Same length, newlines kept, everything else a space. */
function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

export interface Heading {
  level: number;
  text: string;
  /** 0-based line index. */
  line: number;
}

const ATX_RE = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;

/** ATX headings (`## Title`, optional closing `#`s) outside code, with their 0-based line numbers. */
export function headings(body: string): Heading[] {
  const found: Heading[] = [];
  const lines = maskCode(body).split('\n');
  lines.forEach((line, index) => {
    const m = ATX_RE.exec(line);
    if (!m) return;
    const text = (m[2] ?? '')
      .replace(/[ \t]+#+$/, '')
      .replace(/^#+$/, '')
      .trim();
    found.push({ level: m[1]!.length, text, line: index });
  });
  return found;
}
