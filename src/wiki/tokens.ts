/**
 * Search tokens (CONTRACT §13.4): lower-cased, NFC-normalised runs of letters, combining marks and digits.
 */

export const TOKEN_RE = /[\p{L}\p{M}\p{N}]+/gu;
// eslint-disable-next-line no-control-regex
const NON_ASCII_RE = /[^\u0000-\u007f]/;

/** Search tokens of a text: lower-cased (then NFC-normalised) runs of letters, combining marks and digits. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  forEachToken(text, (token) => tokens.push(token));
  return tokens;
}

/**
 * Call `fn` for every token of `text`, in order. ASCII text is scanned by hand without intermediate arrays (for
 * ASCII the Unicode classes are exactly `[a-z0-9]` after lower-casing); other text uses the Unicode regex.
 */
export function forEachToken(text: string, fn: (token: string) => void): void {
  if (NON_ASCII_RE.test(text)) {
    for (const token of text.toLowerCase().normalize('NFC').match(TOKEN_RE) ?? []) fn(token);
    return;
  }
  const n = text.length;
  let start = -1;
  let upper = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const isLower = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
    const isUpper = c >= 0x41 && c <= 0x5a;
    if (isLower || isUpper) {
      if (start === -1) {
        start = i;
        upper = false;
      }
      if (isUpper) upper = true;
    } else if (start !== -1) {
      const token = text.slice(start, i);
      fn(upper ? token.toLowerCase() : token);
      start = -1;
    }
  }
  if (start !== -1) {
    const token = text.slice(start);
    fn(upper ? token.toLowerCase() : token);
  }
}
