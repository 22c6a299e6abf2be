/**
 * Where links and images of rendered markdown lead (web/src/lib/markdown-urls.ts): a paper's markdown reaches only
 * its own stored images (CONTRACT §11.4) and never another API route, whatever the spelling of the path.
 */
import { describe, expect, it } from 'vitest';
import {
  paperImageName,
  resolveImage,
  resolveLink,
  type ImageTarget,
  type LinkTarget,
} from '../../web/src/lib/markdown-urls.js';

const BASE = '/api/papers/2502.00020v1/images/';
const OLD_BASE = '/api/papers/quant-ph/9508027v2/images/';
const none: ImageTarget = { kind: 'unavailable' };

describe('paper images', () => {
  const cases: [src: string, base: string, expected: ImageTarget][] = [
    // What MinerU writes, and the other spellings of a stored image.
    ['images/3f2a9c.jpg', BASE, { kind: 'paper', src: `${BASE}3f2a9c.jpg` }],
    ['./images/fig1.png', BASE, { kind: 'paper', src: `${BASE}fig1.png` }],
    ['fig1.png', BASE, { kind: 'paper', src: `${BASE}fig1.png` }],
    ['images/sub/fig1.png', BASE, { kind: 'paper', src: `${BASE}sub/fig1.png` }],
    ['images/fig%201.png', BASE, { kind: 'paper', src: `${BASE}fig%201.png` }],
    ['images/%E5%9B%BE.png', BASE, { kind: 'paper', src: `${BASE}%E5%9B%BE.png` }],
    ['images/fig1.png?v=2#top', BASE, { kind: 'paper', src: `${BASE}fig1.png` }],
    ['images/a%3Fb%23c.png', BASE, { kind: 'paper', src: `${BASE}a%3Fb%23c.png` }],
    ['images/%252e%252e/x.png', BASE, { kind: 'paper', src: `${BASE}%252e%252e/x.png` }],
    ['images', BASE, { kind: 'paper', src: `${BASE}images` }],
    ['images/fig1.png', OLD_BASE, { kind: 'paper', src: `${OLD_BASE}fig1.png` }],
    // Dot segments, plain or percent-encoded, in any position.
    ['../../pat', BASE, none],
    ['../markdown', BASE, none],
    ['images/../../../pat', BASE, none],
    ['./../pat', BASE, none],
    ['images/./fig1.png', BASE, none],
    ['%2e%2e/%2e%2e/pat', BASE, none],
    ['%2E%2E/markdown', BASE, none],
    ['.%2e/pat', BASE, none],
    ['images/%2e%2e%2f%2e%2e%2fpat', BASE, none],
    ['images%2f..%2f..%2fpat', BASE, none],
    // Backslashes, plain or encoded (browsers read `\` as `/` in http URLs).
    ['..\\..\\pat', BASE, none],
    ['images\\..\\..\\pat', BASE, none],
    ['..%5C..%5Cpat', BASE, none],
    ['%5C%5Cevil.example/x.png', BASE, none],
    // Absolute paths and other hosts.
    ['/api/pat', BASE, none],
    ['/api/papers/2502.00020v1/markdown', BASE, none],
    ['//evil.example/x.png', BASE, none],
    ['%2Fapi%2Fpat', BASE, none],
    ['\\\\evil.example\\x.png', BASE, none],
    ['http://evil.example/x.png', BASE, { kind: 'external', href: 'http://evil.example/x.png' }],
    ['HTTPS://evil.example/x.png', BASE, { kind: 'external', href: 'https://evil.example/x.png' }],
    // http(s) without a host, or on this host: the browser resolves them into this site, not elsewhere.
    ['https:/api/pat', BASE, none],
    ['HTTPS:/device?user_code=ABCD-EFGH', BASE, none],
    ['https:images/fig1.png', BASE, none],
    ['https://pks.example/api/pat', BASE, none],
    ['http://pks.example/api/pat', BASE, none],
    ['https://pks.example./api/pat', BASE, none],
    ['https:/api/pat', '', none],
    // Other schemes, empty or malformed names.
    ['javascript:alert(1)', BASE, none],
    ['data:image/png;base64,AAAA', BASE, none],
    ['blob:https://pks.example/1', BASE, none],
    ['', BASE, none],
    ['images/', BASE, none],
    ['images//fig1.png', BASE, none],
    ['?x', BASE, none],
    ['images/%zz.png', BASE, none],
    ['images/a%00b.png', BASE, none],
    ['images/a%0Ab.png', BASE, none],
    [`images/${'a'.repeat(256)}.png`, BASE, none],
    // The wiki stores no images: nothing on this site is loaded for it.
    ['images/fig1.png', '', none],
  ];
  it.each(cases)('%s under %s', (src, base, expected) => {
    expect(resolveImage(src, base || undefined, 'https://pks.example/papers/2502.00020v1')).toEqual(expected);
  });

  it('keeps every resolved image under the paper’s images route, as the browser reads the URL', () => {
    for (const [src, base, expected] of cases) {
      if (expected.kind !== 'paper') continue;
      const url = new URL(expected.src, 'https://pks.example/papers/x');
      expect(url.pathname.startsWith(base), src).toBe(true);
      expect(url.pathname.slice(base.length).split('/'), src).not.toContain('..');
    }
  });

  it('names the stored image', () => {
    expect(paperImageName('images/sub/fig%201.png')).toBe('sub/fig 1.png');
    expect(paperImageName('../fig1.png')).toBeNull();
  });
});

describe('links', () => {
  const page = 'https://pks.example/papers/2502.00020v1';
  const wikiPage = 'https://pks.example/wiki/concept-qft';
  const text: LinkTarget = { kind: 'text' };
  const cases: [href: string, paper: boolean, expected: LinkTarget][] = [
    // Paper markdown: its own headings and other sites only.
    ['#results', true, { kind: 'fragment', href: '#results' }],
    ['https://arxiv.org/abs/2502.00020', true, { kind: 'external', href: 'https://arxiv.org/abs/2502.00020' }],
    ['mailto:ada@example.org', true, { kind: 'external', href: 'mailto:ada@example.org' }],
    ['../markdown', true, text],
    ['../../pat', true, text],
    ['%2e%2e/%2e%2e/pat', true, text],
    ['..\\..\\pat', true, text],
    ['/api/pat', true, text],
    ['/pat', true, text],
    ['/device?user_code=ABCD-EFGH', true, text],
    ['//evil.example/x', true, text],
    ['images/fig1.png', true, text],
    ['javascript:alert(1)', true, text],
    ['#', true, text],
    ['', true, text],
    // http(s) without a host, or on this host: the browser resolves them against the page.
    ['https:/device?user_code=ABCD-EFGH', true, text],
    ['HTTPS:/pat', true, text],
    ['https:pat', true, text],
    ['HtTpS:../../api/pat', true, text],
    ['https:\\\\device', true, { kind: 'external', href: 'https://device/' }],
    ['https://pks.example/pat', true, text],
    ['https://PKS.example:443/device?user_code=ABCD-EFGH', true, text],
    ['http://pks.example/device?user_code=ABCD-EFGH', true, text],
    ['https://pks.example:8443/pat', true, text],
    ['https://pks.example./pat', true, text],
    ['https://', true, text],
    ['HTTPS://arxiv.org/abs/2502.00020', true, { kind: 'external', href: 'https://arxiv.org/abs/2502.00020' }],
    // Wiki pages: the front end's pages through the router, the server's own paths as plain navigations.
    ['#intro', false, { kind: 'fragment', href: '#intro' }],
    ['/wiki/concept-qpe#steps', false, { kind: 'app', to: '/wiki/concept-qpe#steps' }],
    ['concept-qpe', false, { kind: 'app', to: '/wiki/concept-qpe' }],
    ['../papers/2502.00020v1', false, { kind: 'app', to: '/papers/2502.00020v1' }],
    ['/search?q=qft', false, { kind: 'app', to: '/search?q=qft' }],
    ['../api/pat', false, { kind: 'server', href: '/api/pat' }],
    ['%2e%2e/api/pat', false, { kind: 'server', href: '/api/pat' }],
    ['/swagger/', false, { kind: 'server', href: '/swagger/' }],
    ['/_/', false, { kind: 'server', href: '/_/' }],
    ['/install-pksd.sh', false, { kind: 'server', href: '/install-pksd.sh' }],
    ['/apis', false, { kind: 'app', to: '/apis' }],
    ['//evil.example/x', false, { kind: 'external', href: 'https://evil.example/x' }],
    ['\\\\evil.example\\x', false, { kind: 'external', href: 'https://evil.example/x' }],
    ['https://evil.example/x', false, { kind: 'external', href: 'https://evil.example/x' }],
    ['javascript:alert(1)', false, text],
    ['', false, text],
    // http(s) without a host, or on this site: the same-origin rules, never an external link.
    ['https:/device?user_code=ABCD-EFGH', false, { kind: 'app', to: '/device?user_code=ABCD-EFGH' }],
    ['HTTPS:/pat', false, { kind: 'app', to: '/pat' }],
    ['https:concept-qpe', false, { kind: 'app', to: '/wiki/concept-qpe' }],
    ['https:/api/pat', false, { kind: 'server', href: '/api/pat' }],
    ['https://pks.example/wiki/concept-qpe', false, { kind: 'app', to: '/wiki/concept-qpe' }],
    ['https://pks.example/api/pat', false, { kind: 'server', href: '/api/pat' }],
  ];
  it.each(cases)('%s (paper: %s)', (href, paper, expected) => {
    expect(resolveLink(href, { page: paper ? page : wikiPage, paper })).toEqual(expected);
  });

  // On an http page `http:/x` resolves against it too (on an https page it names the host `x`).
  const httpCases: [href: string, paper: boolean, expected: LinkTarget][] = [
    ['http:/device?user_code=ABCD-EFGH', true, text],
    ['HTTP:pat', true, text],
    ['https:/pat', true, { kind: 'external', href: 'https://pat/' }],
    ['http:/device?user_code=ABCD-EFGH', false, { kind: 'app', to: '/device?user_code=ABCD-EFGH' }],
    ['http:/api/pat', false, { kind: 'server', href: '/api/pat' }],
    ['https:/pat', false, { kind: 'external', href: 'https://pat/' }],
  ];
  it.each(httpCases)('%s on an http page (paper: %s)', (href, paper, expected) => {
    const httpPage = paper ? 'http://127.0.0.1:8080/papers/2502.00020v1' : 'http://127.0.0.1:8080/wiki/concept-qft';
    expect(resolveLink(href, { page: httpPage, paper })).toEqual(expected);
  });

  it('never links a paper into this host, as the browser reads the link', () => {
    for (const [href, paper, expected] of cases) {
      if (!paper || expected.kind !== 'external') continue;
      expect(new URL(expected.href, page).hostname, href).not.toBe('pks.example');
      expect(new URL(href, page).href, href).toBe(expected.href);
    }
  });
});
