/**
 * The hostile wiki pages of issue 9's review: frontmatter nested far beyond the 32-level limit, small enough to pass
 * every size limit. Generated here rather than stored, so the corpus is exactly what this file says.
 */

/** A page whose frontmatter has an ordinary head and `deep:` holding `yaml` (already indented where it must be). */
function pageWith(id: string, deep: string): string {
  return `---\nid: ${id}\ntitle: Hostile ${id}\ntype: concept\nstatus: published\ncreated_at: 2026-01-05\ndeep: ${deep}\n---\n\nBody of ${id}.\n`;
}

/** Flow style: `[[[[…]]]]`, `depth` brackets (2 bytes per level). */
export function flowNested(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** Block style: `- - - - … x`, each `-` opening a block sequence two columns deeper (2 bytes per level). */
export function blockNested(depth: number): string {
  return `\n  ${'- '.repeat(depth)}x`;
}

/** Block style by indentation only: `k:` lines, each one column deeper than the one before. */
export function indentedNested(depth: number): string {
  return Array.from({ length: depth }, (_, i) => `\n${' '.repeat(i + 1)}k:`).join('') + ' x';
}

export interface HostilePage {
  readonly path: string;
  readonly id: string;
  readonly text: string;
}

/**
 * The corpus: the review's two sizes (~1,000 levels in ~2 KB, ~20,000 levels in ~40 KB) in flow and block style, plus
 * 300 levels written with indentation alone (the deepest that fits the 64 KiB frontmatter limit in that style).
 */
export function hostilePages(): HostilePage[] {
  const pages: [string, string][] = [
    ['hostile-flow-1k', flowNested(1_000)],
    ['hostile-flow-20k', flowNested(20_000)],
    ['hostile-block-1k', blockNested(1_000)],
    ['hostile-block-20k', blockNested(20_000)],
    ['hostile-indented-300', indentedNested(300)],
  ];
  return pages.map(([id, deep]) => ({ path: `hostile/${id}.md`, id, text: pageWith(id, deep) }));
}
