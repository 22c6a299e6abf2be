import { startHttpDouble, type HttpDouble } from './http-double.js';

/** A paper the arXiv double knows: versionless id → latest version and PDF bytes per version. */
export interface ArxivPaper {
  readonly latestVersion: number;
  /** PDF bytes by version number; a missing version answers 404. */
  readonly pdfs: ReadonlyMap<number, Buffer>;
}

export interface ArxivDouble extends HttpDouble {
  readonly papers: Map<string, ArxivPaper>;
  /** Answers the next `n` requests with 429 and this `Retry-After` (seconds). */
  rateLimitNext(n: number, retryAfterSeconds?: number): void;
}

/** A minimal valid-looking PDF whose bytes are unique per `tag`. */
export function fakePdf(tag: string): Buffer {
  return Buffer.from(`%PDF-1.7\n% ${tag}\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`);
}

/**
 * arXiv as CONTRACT §12.1 describes it: `GET /pdf/<id>v<N>` → PDF or 404; `GET /abs/<versionless id>` → HTML
 * whose `og:url` meta tag names the latest version, or 404; 429 when asked to rate-limit.
 */
export async function startArxivDouble(): Promise<ArxivDouble> {
  const papers = new Map<string, ArxivPaper>();
  let limited = 0;
  let retryAfter = 1;
  const double = await startHttpDouble((req, res) => {
    if (limited > 0) {
      limited--;
      res.writeHead(429, { 'retry-after': String(retryAfter), 'content-type': 'text/plain' });
      return void res.end('Rate exceeded.');
    }
    const url = new URL(req.url, 'http://arxiv.test');
    const pdf = /^\/pdf\/(.+)v(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && pdf) {
      const bytes = papers.get(pdf[1]!)?.pdfs.get(Number(pdf[2]));
      if (!bytes) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': bytes.length });
      return void res.end(bytes);
    }
    const abs = /^\/abs\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && abs) {
      const paper = papers.get(abs[1]!);
      if (!paper) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end(
        `<!DOCTYPE html><html><head><title>[${abs[1]}] paper</title>` +
          `<meta property="og:url" content="https://arxiv.org/abs/${abs[1]}v${paper.latestVersion}" />` +
          `</head><body>abstract</body></html>`,
      );
    }
    res.writeHead(404).end();
  });
  return {
    ...double,
    papers,
    rateLimitNext(n, seconds = 1) {
      limited = n;
      retryAfter = seconds;
    },
  };
}
