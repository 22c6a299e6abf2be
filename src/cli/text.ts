/** Cuts `text` to `width` characters (code points), ending the cut text with `mark`. */
export function fit(text: string, width: number, mark = '…'): string {
  const chars = Array.from(text);
  return chars.length <= width ? text : `${chars.slice(0, width - mark.length).join('')}${mark}`;
}
