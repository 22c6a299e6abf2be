import { slugify } from '../../lib/slug';
import { parseWikilink, WIKILINK, wikilinkHref } from '../../lib/wikilinks';

/** The few mdast/hast fields these plugins touch. */
interface Node {
  type: string;
  value?: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  depth?: number;
  tagName?: string;
  url?: string;
  properties?: Record<string, unknown>;
  children?: Node[];
  data?: { hProperties?: Record<string, unknown> };
}

interface File {
  value: unknown;
}

const textOf = (node: Node): string =>
  node.type === 'text' || node.type === 'inlineCode' || node.type === 'inlineMath'
    ? (node.value ?? '')
    : (node.children ?? []).map(textOf).join('');

function splitWikilinks(value: string): Node[] | null {
  if (!value.includes('[[')) return null;
  const out: Node[] = [];
  let last = 0;
  for (const m of value.matchAll(WIKILINK)) {
    if (m.index > last) out.push({ type: 'text', value: value.slice(last, m.index) });
    const link = parseWikilink(m[1]!);
    out.push({
      type: 'link',
      url: wikilinkHref(link),
      children: [{ type: 'text', value: link.text }],
      data: {
        hProperties: {
          dataWikilink: link.target,
          dataSection: link.section,
          dataLabelled: String(link.labelled),
          className: ['wikilink'],
        },
      },
    });
    last = m.index + m[0].length;
  }
  if (last === 0) return null;
  if (last < value.length) out.push({ type: 'text', value: value.slice(last) });
  return out;
}

function replaceWikilinks(node: Node): void {
  const children = node.children;
  if (!children) return;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    if (child.type === 'text') {
      const parts = splitWikilinks(child.value ?? '');
      if (parts) {
        children.splice(i, 1, ...parts);
        i += parts.length - 1;
      }
    } else if (child.type !== 'link' && child.type !== 'linkReference') {
      replaceWikilinks(child);
    }
  }
}

/** `[[…]]` in text (never in code, which mdast keeps in other node types) becomes a link marked `wikilink`. */
export const remarkWikilinks = () => (tree: Node) => replaceWikilinks(tree);

/** Drops a leading `# Title` that repeats the page title shown above the article. */
export const remarkDropTitle = (title: string) => () => (tree: Node) => {
  const children = tree.children ?? [];
  const first = children[0];
  if (
    first?.type === 'heading' &&
    first.depth === 1 &&
    textOf(first).trim().toLowerCase() === title.trim().toLowerCase()
  ) {
    children.shift();
  }
};

/** Gives every heading an id (deduplicated with -1, -2, …) so `[[page#section]]` and the contents list can target it. */
export const rehypeHeadingIds = () => (tree: Node) => {
  const seen = new Map<string, number>();
  const visit = (node: Node) => {
    if (node.type === 'element' && /^h[1-6]$/.test(node.tagName ?? '')) {
      const base = slugify(textOf(node)) || 'section';
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      node.properties = { ...node.properties, id: n ? `${base}-${n}` : base };
      return;
    }
    node.children?.forEach(visit);
  };
  visit(tree);
};

/**
 * `$$…$$` written inside a paragraph (the usual way in the wiki: one formula on its own line) is display math, as
 * on GitHub; remark-math alone keeps it inline unless the `$$` fences stand on their own lines.
 */
export const remarkDisplayDollars = () => (tree: Node, file: File) => {
  const source = typeof file.value === 'string' ? file.value : String(file.value ?? '');
  const visit = (node: Node) => {
    if (node.type === 'inlineMath') {
      const start = node.position?.start.offset;
      if (start !== undefined && source.startsWith('$$', start)) {
        const props = node.data?.hProperties ?? {};
        node.data = { ...node.data, hProperties: { ...props, className: ['language-math', 'math-display'] } };
      }
      return;
    }
    node.children?.forEach(visit);
  };
  visit(tree);
};
