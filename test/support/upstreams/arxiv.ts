import type { ServerResponse } from 'node:http';
import {
  Gate,
  sendAnswer,
  startHttpDouble,
  type Answer,
  type HttpDouble,
  type RecordedRequest,
  type DoubleOptions,
} from './http-double.js';

/** A paper the arXiv double knows: versionless id → latest version and PDF bytes per version. */
export interface ArxivPaper {
  readonly latestVersion: number;
  /** PDF bytes by version number; a missing version answers 404. */
  readonly pdfs: ReadonlyMap<number, Buffer>;
}

/** What the API (`/api/query`) says of a paper (CONTRACT §18.1). */
export interface ArxivEntry {
  readonly title: string;
  readonly authors: readonly string[];
  readonly abstract: string;
  /** `YYYY-MM-DD` of the first version. */
  readonly published: string;
  readonly doi?: string;
  readonly primaryCategory?: string;
  /** The version the entry names (default: the paper's latest version in `papers`, else 1). */
  readonly version?: number;
}

export type ArxivRoute = 'pdf' | 'abs' | 'query';

export interface ArxivDouble extends HttpDouble {
  readonly papers: Map<string, ArxivPaper>;
  /** What `GET /api/query?id_list=<versionless id>` answers, by versionless id; others answer an error entry. */
  readonly entries: Map<string, ArxivEntry>;
  /** Holds `/pdf/` requests before answering while closed (to observe downloads in flight). */
  readonly pdfGate: Gate;
  /** Holds `/api/query` requests before answering while closed (a metadata fetch in flight). */
  readonly queryGate: Gate;
  /** Answers the next requests of `route` with these answers, in order, before serving normally. */
  answerNext(route: ArxivRoute, ...answers: Answer[]): void;
  /** Answers the next `n` requests (any route) with 429 and this `Retry-After` (seconds). */
  rateLimitNext(n: number, retryAfterSeconds?: number): void;
  /** `/pdf/<id>` answers 301 to `/pdf-mirror/<id>` (which serves the bytes) while set. */
  redirectPdfs: boolean;
  /** `/pdf/<id>` of a known paper answers 302 with this `Location` (any URL: `data:`, another host…) while set. */
  redirectPdfsTo: string | null;
  /** Sends PDF bodies in 64 KiB chunks with this pause between them (0 = at once). */
  pdfChunkDelayMs: number;
  /**
   * While closed, PDF bodies send their first MiB (`PDF_HELD_BYTES`) and hold the rest until opened: a download
   * stays in flight as long as a test needs, however slow the machine.
   */
  readonly pdfBodyGate: Gate;
  /** PDF bodies held by `pdfBodyGate` whose client is still connected (a client that gave up is not counted). */
  readonly heldPdfBodies: number;
  /** Requests of one route (method GET, path only). */
  requestsTo(route: ArxivRoute): RecordedRequest[];
}

/** A minimal valid-looking PDF whose bytes are unique per `tag` (padded to `size` bytes when given). */
export function fakePdf(tag: string, size = 0): Buffer {
  const head = Buffer.from(`%PDF-1.7\n% ${tag}\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n`);
  const tail = Buffer.from('%%EOF\n');
  const pad = Math.max(0, size - head.length - tail.length);
  return Buffer.concat([head, Buffer.alloc(pad, 0x20), tail]);
}

/** The abstract page of a paper: its `og:url` names the latest version (CONTRACT §12.1). */
export function absPage(versionless: string, latestVersion: number): string {
  return (
    `<!DOCTYPE html><html><head><title>[${versionless}] paper</title>` +
    `<meta property="og:url" content="https://arxiv.org/abs/${versionless}v${latestVersion}" />` +
    `</head><body>abstract</body></html>`
  );
}

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Breaks a text into lines of at most 70 characters, as the API hard-wraps titles and abstracts. */
const wrap = (s: string) => s.replace(/(.{1,70})(?:\s+|$)/g, '$1\n').trimEnd();

/** The Atom feed head of an `id_list` query, and its `totalResults`. */
function feedHead(idList: string, total: number): string {
  const query = `search_query=&id_list=${idList}&start=0&max_results=10`;
  const opensearch = 'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"';
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n` +
    `  <link href="http://arxiv.org/api/query?${encodeURIComponent(query)}" rel="self" type="application/atom+xml"/>\n` +
    `  <title type="html">ArXiv Query: ${xmlText(query)}</title>\n` +
    `  <id>http://arxiv.org/api/dGVzdC1kb3VibGU</id>\n` +
    `  <updated>2026-05-01T00:00:00-04:00</updated>\n` +
    `  <opensearch:totalResults ${opensearch}>${total}</opensearch:totalResults>\n` +
    `  <opensearch:startIndex ${opensearch}>0</opensearch:startIndex>\n` +
    `  <opensearch:itemsPerPage ${opensearch}>10</opensearch:itemsPerPage>\n`
  );
}

/** The API's answer for one paper (an `id_list` of one id), in the format export.arxiv.org sends. */
export function atomFeed(versionless: string, entry: ArxivEntry, version: number): string {
  const arxivNs = 'xmlns:arxiv="http://arxiv.org/schemas/atom"';
  const category = entry.primaryCategory ?? 'quant-ph';
  const abs = `http://arxiv.org/abs/${versionless}v${version}`;
  return (
    feedHead(versionless, 1) +
    `  <entry>\n    <id>${abs}</id>\n` +
    `    <updated>${entry.published}T12:00:00Z</updated>\n` +
    `    <published>${entry.published}T09:30:00Z</published>\n` +
    `    <title>${xmlText(wrap(entry.title))}</title>\n` +
    `    <summary>  ${xmlText(wrap(entry.abstract))}\n</summary>\n` +
    entry.authors.map((a) => `    <author>\n      <name>${xmlText(a)}</name>\n    </author>\n`).join('') +
    (entry.doi
      ? `    <arxiv:doi ${arxivNs}>${xmlText(entry.doi)}</arxiv:doi>\n` +
        `    <link title="doi" href="http://dx.doi.org/${xmlText(entry.doi)}" rel="related"/>\n`
      : '') +
    `    <arxiv:comment ${arxivNs}>12 pages, 3 figures</arxiv:comment>\n` +
    `    <link href="${abs}" rel="alternate" type="text/html"/>\n` +
    `    <link title="pdf" href="http://arxiv.org/pdf/${versionless}v${version}" rel="related" type="application/pdf"/>\n` +
    `    <arxiv:primary_category ${arxivNs} term="${category}" scheme="http://arxiv.org/schemas/atom"/>\n` +
    `    <category term="${category}" scheme="http://arxiv.org/schemas/atom"/>\n` +
    `  </entry>\n</feed>\n`
  );
}

/** The API's answer for an id it does not have: a feed with one error entry (title `Error`). */
export function atomErrorFeed(idList: string): string {
  const error = `http://arxiv.org/api/errors#incorrect_id_format_for_${idList}`;
  return (
    feedHead(idList, 1) +
    `  <entry>\n    <id>${xmlText(error)}</id>\n    <title>Error</title>\n` +
    `    <summary>incorrect id format for ${xmlText(idList)}</summary>\n` +
    `    <updated>2026-05-01T00:00:00-04:00</updated>\n` +
    `    <link href="${xmlText(error)}" rel="alternate" type="text/html"/>\n` +
    `    <author>\n      <name>arXiv api core</name>\n    </author>\n  </entry>\n</feed>\n`
  );
}

/** A `Gate` that tells whether it is closed: a PDF body stops after its first MiB only then. */
class BodyGate extends Gate {
  #closed = false;

  get isClosed(): boolean {
    return this.#closed;
  }

  override close(): void {
    this.#closed = true;
    super.close();
  }

  override open(): void {
    this.#closed = false;
    super.open();
  }
}

/** What a PDF body held by `pdfBodyGate` sends before it waits. */
export const PDF_HELD_BYTES = 1024 * 1024;

/** Sends `bytes` from `offset` on, in 64 KiB chunks `chunkDelayMs` apart (0 = at once). */
async function sendPdfRest(res: ServerResponse, bytes: Buffer, offset: number, chunkDelayMs: number): Promise<void> {
  if (chunkDelayMs <= 0) return void res.end(bytes.subarray(offset));
  for (; offset < bytes.length; offset += 65_536) {
    if (res.destroyed) return;
    res.write(bytes.subarray(offset, offset + 65_536));
    await new Promise((resolve) => setTimeout(resolve, chunkDelayMs));
  }
  res.end();
}

/**
 * arXiv as CONTRACT §12.1 describes it: `GET /pdf/<id>v<N>` → PDF or 404 (optionally via a 301, or a 302 to any
 * location a test names); `GET
 * /abs/<versionless id>` → HTML whose `og:url` meta tag names the latest version, or 404; the API (§18.1)
 * `GET /api/query?id_list=<id>` → an Atom feed with the paper's entry (`entries`), or with an error entry; scripted
 * answers (429/503 with `Retry-After`, HTML instead of a PDF, a failing query, …) per route.
 */
export async function startArxivDouble(options: DoubleOptions = {}): Promise<ArxivDouble> {
  const papers = new Map<string, ArxivPaper>();
  const entries = new Map<string, ArxivEntry>();
  const scripted: Record<ArxivRoute, Answer[]> = { pdf: [], abs: [], query: [] };
  const pdfGate = new Gate();
  const queryGate = new Gate();
  const pdfBodyGate = new BodyGate();
  const heldBodies = new Set<ServerResponse>();
  /** Sends a PDF; a closed `pdfBodyGate` holds it after its first MiB, until opened or the client leaves. */
  const sendPdf = async (res: ServerResponse, bytes: Buffer): Promise<void> => {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': bytes.length });
    let sent = 0;
    if (pdfBodyGate.isClosed && bytes.length > PDF_HELD_BYTES) {
      sent = PDF_HELD_BYTES;
      res.write(bytes.subarray(0, sent));
      heldBodies.add(res);
      const left = new Promise<void>((resolve) => res.once('close', resolve));
      await Promise.race([pdfBodyGate.pass(), left]);
      heldBodies.delete(res);
      if (res.destroyed) return;
    }
    await sendPdfRest(res, bytes, sent, state.pdfChunkDelayMs);
  };
  let limited = 0;
  let retryAfter = 1;
  const state = { redirectPdfs: false, redirectPdfsTo: null as string | null, pdfChunkDelayMs: 0 };
  const routeOf = (pathname: string): ArxivRoute | null =>
    pathname.startsWith('/pdf/') || pathname.startsWith('/pdf-mirror/')
      ? 'pdf'
      : pathname.startsWith('/abs/')
        ? 'abs'
        : pathname === '/api/query'
          ? 'query'
          : null;
  const double = await startHttpDouble(async (req, res) => {
    const url = new URL(req.url, 'http://arxiv.test');
    const route = routeOf(url.pathname);
    if (limited > 0) {
      limited--;
      return sendAnswer(res, { status: 429, headers: { 'retry-after': String(retryAfter) }, body: 'Rate exceeded.' });
    }
    if (route === 'pdf') await pdfGate.pass();
    if (route === 'query') await queryGate.pass();
    const next = route ? scripted[route].shift() : undefined;
    if (next) return sendAnswer(res, next);
    const pdf = /^\/(pdf|pdf-mirror)\/(.+)v(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && pdf) {
      const bytes = papers.get(pdf[2]!)?.pdfs.get(Number(pdf[3]));
      if (!bytes)
        return sendAnswer(res, { status: 404, headers: { 'content-type': 'text/html' }, body: '<h1>Not Found</h1>' });
      if (pdf[1] === 'pdf' && state.redirectPdfsTo !== null) {
        return sendAnswer(res, { status: 302, headers: { location: state.redirectPdfsTo } });
      }
      if (pdf[1] === 'pdf' && state.redirectPdfs) {
        return sendAnswer(res, { status: 301, headers: { location: `/pdf-mirror/${pdf[2]}v${pdf[3]}` } });
      }
      return sendPdf(res, bytes);
    }
    const idList = url.searchParams.get('id_list');
    if (req.method === 'GET' && route === 'query' && idList !== null) {
      const entry = entries.get(idList);
      const version = entry?.version ?? papers.get(idList)?.latestVersion ?? 1;
      return sendAnswer(res, {
        status: 200,
        headers: { 'content-type': 'application/atom+xml; charset=utf-8' },
        body: entry ? atomFeed(idList, entry, version) : atomErrorFeed(idList),
      });
    }
    const abs = /^\/abs\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && abs) {
      const paper = papers.get(abs[1]!);
      if (!paper)
        return sendAnswer(res, { status: 404, headers: { 'content-type': 'text/html' }, body: '<h1>Not Found</h1>' });
      return sendAnswer(res, {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: absPage(abs[1]!, paper.latestVersion),
      });
    }
    sendAnswer(res, { status: 404 });
  }, options);
  return {
    ...double,
    papers,
    entries,
    pdfGate,
    queryGate,
    pdfBodyGate,
    get heldPdfBodies() {
      return heldBodies.size;
    },
    answerNext(route, ...answers) {
      scripted[route].push(...answers);
    },
    rateLimitNext(n, seconds = 1) {
      limited = n;
      retryAfter = seconds;
    },
    get redirectPdfs() {
      return state.redirectPdfs;
    },
    set redirectPdfs(v: boolean) {
      state.redirectPdfs = v;
    },
    get redirectPdfsTo() {
      return state.redirectPdfsTo;
    },
    set redirectPdfsTo(v: string | null) {
      state.redirectPdfsTo = v;
    },
    get pdfChunkDelayMs() {
      return state.pdfChunkDelayMs;
    },
    set pdfChunkDelayMs(v: number) {
      state.pdfChunkDelayMs = v;
    },
    requestsTo(route) {
      return double.requests.filter((r) => routeOf(new URL(r.url, 'http://arxiv.test').pathname) === route);
    },
  };
}
