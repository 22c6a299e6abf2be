/** GitHub-style heading anchors: lower case, punctuation dropped, spaces to dashes (`[[page#Some section]]`). */
export function slugify(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s+/g, '-');
}
