import 'katex/dist/katex.min.css';
import { Component, createContext, memo, useContext, useMemo, type ComponentProps, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import { Link } from 'react-router';
import { tooDeepToTypeset } from '../../lib/markdown-nesting';
import { resolveImage, resolveLink } from '../../lib/markdown-urls';
import { AuthImage } from '../AuthImage';
import rehypeKatex from 'rehype-katex';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import { rehypeHeadingIds, remarkDisplayDollars, remarkDropTitle, remarkWikilinks } from './plugins';

/**
 * Titles of the existing pages by id: a wikilink to any other id is styled as broken, and `[[id]]` shows the
 * page's title (null while unknown). A context, so links update when the list arrives without the document being
 * parsed and typeset again.
 */
export const KnownPages = createContext<ReadonlyMap<string, string> | null>(null);

interface WikiLinkProps {
  href: string;
  target: string;
  section: string;
  labelled: boolean;
  children: ReactNode;
}

function WikiLink({ href, target, section, labelled, children }: WikiLinkProps) {
  const known = useContext(KnownPages);
  const title = target ? known?.get(target) : undefined;
  const broken = target !== '' && known !== null && title === undefined;
  const cls = `wikilink${broken ? ' broken' : ''}`;
  const text = !labelled && title ? (section ? `${title} § ${section}` : title) : children;
  if (href.startsWith('#')) {
    return (
      <a href={href} className={cls}>
        {text}
      </a>
    );
  }
  return (
    <Link
      to={href}
      className={cls}
      data-target={target}
      title={broken ? `No page “${target}” exists yet` : undefined}
      aria-describedby={broken ? 'broken-link-note' : undefined}
    >
      {text}
    </Link>
  );
}

export interface MarkdownProps {
  content: string;
  /** Shown above the article; a leading `# <title>` in the body is dropped. */
  title?: string;
  /**
   * Paper markdown: its stored images (`images/x.jpg`) resolve under this authenticated API prefix, and only its
   * headings and other sites are links (no wikilinks; `lib/markdown-urls.ts`).
   */
  imageBase?: string;
}

/**
 * Macro definitions nest without any brace in the source (`\def\B{\begin{matrix}}` then `\B` three hundred times),
 * past what the nesting bounds see, deep enough to crash the browser's renderer: each definer expands to an
 * undefined command, so such a formula shows as a KaTeX error with its source.
 */
const MACRO_DEFINERS = [
  '\\def',
  '\\gdef',
  '\\edef',
  '\\xdef',
  '\\global',
  '\\let',
  '\\futurelet',
  '\\newcommand',
  '\\renewcommand',
  '\\providecommand',
];
const KATEX = {
  throwOnError: false,
  strict: false,
  macros: Object.fromEntries(MACRO_DEFINERS.map((definer) => [definer, '\\macroDefinitionsAreNotSupported'])),
} as const;

type AnchorProps = ComponentProps<'a'> & { node?: { properties?: Record<string, unknown> } };

/** The source as it is, with the reason it is not typeset. */
function PlainText({ content, reason }: { content: string; reason: string }) {
  return (
    <div className="prose">
      <p className="notice notice-info">{reason}</p>
      <pre className="markdown-source">{content}</pre>
    </div>
  );
}

const TOO_DEEP =
  'This document nests lists, block quotes, emphasis, links or formulas too deeply to be typeset; it is shown as plain text.';
const FAILED = 'This document could not be typeset; it is shown as plain text.';

interface TypesetBoundaryProps {
  content: string;
  children: ReactNode;
}

/**
 * Shows the plain text when typesetting `content` throws — a stack overflow the nesting bounds did not foresee (the
 * pipeline runs while React renders) — instead of the route's error page. A new document is tried again.
 */
class TypesetBoundary extends Component<TypesetBoundaryProps, { content: string; failed: boolean }> {
  override state = { content: this.props.content, failed: false };

  static getDerivedStateFromProps(props: TypesetBoundaryProps, state: { content: string }) {
    return props.content === state.content ? null : { content: props.content, failed: false };
  }

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override render() {
    return this.state.failed ? <PlainText content={this.props.content} reason={FAILED} /> : this.props.children;
  }
}

/**
 * Renders wiki or paper markdown: GFM tables and lists, `$…$`/`$$…$$` math through KaTeX (MathML for screen
 * readers plus HTML), wikilinks in all four forms (wiki pages), heading anchors. Raw HTML in the source is not
 * rendered; links and images lead only where `lib/markdown-urls.ts` allows. A document that may nest deeper than
 * `lib/markdown-nesting.ts` allows, or whose typesetting fails, is shown as plain text.
 */
export const Markdown = memo(function Markdown(props: MarkdownProps) {
  const tooDeep = useMemo(() => tooDeepToTypeset(props.content), [props.content]);
  if (tooDeep) return <PlainText content={props.content} reason={TOO_DEEP} />;
  return (
    <TypesetBoundary content={props.content}>
      <TypesetMarkdown {...props} />
    </TypesetBoundary>
  );
});

function TypesetMarkdown({ content, title, imageBase }: MarkdownProps) {
  const paper = imageBase !== undefined;
  // `[[…]]` in a paper is its own text (a citation, a matrix), not a link into the wiki.
  const remarkPlugins = useMemo(
    () => [
      remarkGfm,
      remarkMath,
      remarkDisplayDollars,
      ...(paper ? [] : [remarkWikilinks]),
      ...(title ? [remarkDropTitle(title)] : []),
    ],
    [paper, title],
  );
  const components = useMemo<Components>(
    () => ({
      a({ node, href = '', children, className, ...rest }: AnchorProps) {
        const target = node?.properties?.['dataWikilink'];
        if (typeof target === 'string') {
          const props = node?.properties ?? {};
          return (
            <WikiLink
              href={href}
              target={target}
              section={String(props['dataSection'] ?? '')}
              labelled={props['dataLabelled'] === 'true'}
            >
              {children}
            </WikiLink>
          );
        }
        const link = resolveLink(href, { page: window.location.href, paper });
        switch (link.kind) {
          case 'app':
            return (
              <Link to={link.to} className={className} {...rest}>
                {children}
              </Link>
            );
          case 'text':
            return <span className={className}>{children}</span>;
          default:
            return (
              <a
                href={link.href}
                className={className}
                {...rest}
                {...(link.kind === 'external' ? { rel: 'noopener noreferrer' } : {})}
              >
                {children}
              </a>
            );
        }
      },
      img({ src, alt, title: imgTitle }) {
        const image = resolveImage(typeof src === 'string' ? src : '', imageBase, window.location.href);
        if (image.kind === 'paper') {
          const figure = <AuthImage src={image.src} alt={alt ?? ''} title={imgTitle} />;
          // A figure with alternative text shows it as its caption (spans: the image sits inside a paragraph).
          return alt ? (
            <span className="figure">
              {figure}
              <span className="figure-caption" aria-hidden="true">
                {alt}
              </span>
            </span>
          ) : (
            figure
          );
        }
        // Images on other hosts are not loaded (the Content-Security-Policy allows this site only): link to them.
        if (image.kind === 'external') {
          return (
            <a href={image.href} rel="noopener noreferrer" className="external-image">
              [external image: {alt || image.href}]
            </a>
          );
        }
        return <span className="image-missing">[image not available{alt ? `: ${alt}` : ''}]</span>;
      },
      table({ node: _node, ...rest }) {
        return (
          <div className="table-wrap">
            <table {...rest} />
          </div>
        );
      },
    }),
    [imageBase, paper],
  );
  return (
    <div className="prose">
      <ReactMarkdown
        remarkPlugins={remarkPlugins}
        rehypePlugins={[[rehypeKatex, KATEX], rehypeHeadingIds]}
        components={components}
      >
        {content}
      </ReactMarkdown>
      <span id="broken-link-note" hidden>
        This page does not exist yet.
      </span>
    </div>
  );
}

export default Markdown;
