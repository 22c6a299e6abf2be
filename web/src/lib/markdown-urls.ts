/**
 * Where a link or an image of rendered markdown may lead. A paper's markdown comes from its authors through the
 * parser, so nothing in it may make the browser call an API route with the reader's token (`apiFetch` adds it):
 * its images resolve only to the paper's own stored images (CONTRACT §11.4) and its links only to its own
 * headings or to other sites. Wiki pages, the team's own text, may also link to the front end's pages.
 * Pure functions of strings: `test/web/markdown-urls.test.ts` checks them table by table.
 */

export type LinkTarget =
  /** `#section` of the document itself. */
  | { kind: 'fragment'; href: string }
  /** Another site: a plain link without referrer or opener. */
  | { kind: 'external'; href: string }
  /** A page of the front end (wiki only), opened by the router. */
  | { kind: 'app'; to: string }
  /** A path the server answers itself (wiki only): a plain navigation, which carries no token. */
  | { kind: 'server'; href: string }
  /** Not a link here: the text is shown without one. */
  | { kind: 'text' };

export type ImageTarget =
  /** One of the paper's stored images: an API path fetched with the reader's token. */
  | { kind: 'paper'; src: string }
  /** An image on another site: the Content-Security-Policy does not load it, so it is linked. */
  | { kind: 'external'; href: string }
  /** Nothing that may be loaded: a placeholder. */
  | { kind: 'unavailable' };

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const EXTERNAL_LINK = /^(?:https?|mailto):/i;
const EXTERNAL_IMAGE = /^https?:/i;
/** Paths the server answers itself (CONTRACT §8.5), not the front end. */
const SERVER_PATH = /^\/(?:api|_|swagger)(?:\/|$)|^\/install-pksd\.sh$/;
/** One segment of a stored image name (CONTRACT §9.4): 1..255 characters, no dot segment, separator or control. */
const isNameSegment = (s: string): boolean =>
  s.length >= 1 && s.length <= 255 && s !== '.' && s !== '..' && !/[/\\\p{Cc}]/u.test(s);

/**
 * The stored image name a paper's markdown refers to — `images/<name>` (what MinerU writes), `./images/<name>` or
 * a bare `<name>` — percent-decoded; null for anything else: a scheme, an absolute or protocol-relative path, a
 * backslash, or a `.`/`..`/empty segment, whether written plainly or percent-encoded.
 */
export function paperImageName(src: string): string | null {
  if (SCHEME.test(src) || src.startsWith('/') || src.includes('\\')) return null;
  const path = src.split(/[?#]/, 1)[0]!;
  let segments: string[];
  try {
    segments = path.split('/').map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
  if (segments[0] === '.') segments.shift();
  if (segments[0] === 'images' && segments.length > 1) segments.shift();
  return segments.every(isNameSegment) ? segments.join('/') : null;
}

/**
 * `href` as the browser reads it on `page`, or null. `https:/device`, `HTTPS:pat` (and `http:/x` on an http
 * page) name no host: the browser resolves them against the page, so they lead into this site.
 */
function resolveAgainst(href: string, page: URL): URL | null {
  try {
    return new URL(href, page);
  } catch {
    return null;
  }
}

/**
 * Whether `url` is on the page's host, whatever its scheme or port (`http://<host>/device` from an https page still
 * reaches this site, through its redirect to https) or a trailing dot of the host name.
 */
const onPageHost = (url: URL, page: URL): boolean =>
  url.hostname.replace(/\.$/, '') === page.hostname.replace(/\.$/, '');

/**
 * An image of rendered markdown shown on `page` (an absolute URL). With `imageBase` (paper markdown:
 * `/api/papers/<id>/images/`) a reference to a stored image becomes `<imageBase><name>`, each segment encoded; the
 * wiki has no images of its own. An http(s) URL on another host is linked; one on this site is not available.
 */
export function resolveImage(src: string, imageBase: string | undefined, page: string): ImageTarget {
  if (EXTERNAL_IMAGE.test(src)) {
    const pageUrl = new URL(page);
    const url = resolveAgainst(src, pageUrl);
    return url && !onPageHost(url, pageUrl) ? { kind: 'external', href: url.href } : { kind: 'unavailable' };
  }
  const name = imageBase ? paperImageName(src) : null;
  if (name === null) return { kind: 'unavailable' };
  return { kind: 'paper', src: imageBase + name.split('/').map(encodeURIComponent).join('/') };
}

export interface LinkContext {
  /** The absolute URL of the page showing the document: relative wiki links resolve against it. */
  page: string;
  /** Paper markdown: only fragments and other sites are links. */
  paper: boolean;
}

/**
 * A link of rendered markdown (wikilinks are handled before, by the renderer). Every link is resolved as the browser
 * would resolve it: an `https:` spelling without a host (`https:/device?user_code=…`) leads into this site too.
 */
export function resolveLink(href: string, context: LinkContext): LinkTarget {
  if (href.length > 1 && href.startsWith('#')) return { kind: 'fragment', href };
  const written = EXTERNAL_LINK.test(href);
  if (href === '' || (context.paper ? !written : SCHEME.test(href) && !written)) return { kind: 'text' };
  const page = new URL(context.page);
  const url = resolveAgainst(href, page);
  if (url === null) return { kind: 'text' };
  if (context.paper) {
    // A paper links to other sites only: anything on this host would be a phishing aid.
    return !onPageHost(url, page) && EXTERNAL_LINK.test(url.href)
      ? { kind: 'external', href: url.href }
      : { kind: 'text' };
  }
  if (url.origin !== page.origin)
    return EXTERNAL_LINK.test(url.href) ? { kind: 'external', href: url.href } : { kind: 'text' };
  const to = url.pathname + url.search + url.hash;
  return SERVER_PATH.test(url.pathname) ? { kind: 'server', href: to } : { kind: 'app', to };
}
