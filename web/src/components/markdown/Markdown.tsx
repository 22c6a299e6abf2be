import 'katex/dist/katex.min.css';
import { createContext, memo, useContext, useMemo, type ComponentProps, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import { Link } from 'react-router';
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
  /** Relative image paths (`images/x.jpg`) resolve under this authenticated API prefix (paper figures). */
  imageBase?: string;
}

const KATEX = { throwOnError: false, strict: false } as const;

type AnchorProps = ComponentProps<'a'> & { node?: { properties?: Record<string, unknown> } };

/**
 * Renders wiki or paper markdown: GFM tables and lists, `$…$`/`$$…$$` math through KaTeX (MathML for screen
 * readers plus HTML), wikilinks in all four forms, heading anchors. Raw HTML in the source is not rendered.
 */
export const Markdown = memo(function Markdown({ content, title, imageBase }: MarkdownProps) {
  const remarkPlugins = useMemo(
    () => [remarkGfm, remarkMath, remarkDisplayDollars, remarkWikilinks, ...(title ? [remarkDropTitle(title)] : [])],
    [title],
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
        if (href.startsWith('/') && !href.startsWith('//')) {
          return (
            <Link to={href} className={className} {...rest}>
              {children}
            </Link>
          );
        }
        const external = /^https?:/i.test(href);
        return (
          <a href={href} className={className} {...rest} {...(external ? { rel: 'noopener noreferrer' } : {})}>
            {children}
          </a>
        );
      },
      img({ src, alt, title: imgTitle }) {
        const path = typeof src === 'string' ? src : '';
        if (imageBase && path && !/^[a-z][a-z0-9+.-]*:|^\//i.test(path)) {
          const name = path.replace(/^(\.\/)?images\//, '');
          const image = (
            <AuthImage
              src={imageBase + name.split('/').map(encodeURIComponent).join('/')}
              alt={alt ?? ''}
              title={imgTitle}
            />
          );
          // A figure with alternative text shows it as its caption (spans: the image sits inside a paragraph).
          return alt ? (
            <span className="figure">
              {image}
              <span className="figure-caption" aria-hidden="true">
                {alt}
              </span>
            </span>
          ) : (
            image
          );
        }
        // Images on other hosts are not loaded (the Content-Security-Policy allows this site only): link to them.
        if (/^https?:/i.test(path)) {
          return (
            <a href={path} rel="noopener noreferrer" className="external-image">
              [external image: {alt || path}]
            </a>
          );
        }
        return <img src={path} alt={alt ?? ''} title={imgTitle} loading="lazy" decoding="async" />;
      },
      table({ node: _node, ...rest }) {
        return (
          <div className="table-wrap">
            <table {...rest} />
          </div>
        );
      },
    }),
    [imageBase],
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
});

export default Markdown;
