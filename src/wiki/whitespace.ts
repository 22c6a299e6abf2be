/** `String#trim`'s notion of white space, on character codes, for scanners that cut no strings. */

/** Offset of the first character of `text[from, to)` that `String#trim` keeps, `to` when there is none. */
export function firstNonWhiteSpace(text: string, from: number, to: number): number {
  let i = from;
  while (i < to && isWhiteSpace(text.charCodeAt(i))) i++;
  return i;
}

/** ECMAScript's WhiteSpace and LineTerminator code points (what `String#trim` removes). */
export function isWhiteSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
