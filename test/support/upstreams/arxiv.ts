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

export type ArxivRoute = 'pdf' | 'abs';

export interface ArxivDouble extends HttpDouble {
  readonly papers: Map<string, ArxivPaper>;
  /** Holds `/pdf/` requests before answering while closed (to observe downloads in flight). */
  readonly pdfGate: Gate;
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
 * /abs/<versionless id>` → HTML whose `og:url` meta tag names the latest version, or 404; scripted answers
 * (429/503 with `Retry-After`, HTML instead of a PDF, …) per route.
 */
export async function startArxivDouble(options: DoubleOptions = {}): Promise<ArxivDouble> {
  const papers = new Map<string, ArxivPaper>();
  const scripted: Record<ArxivRoute, Answer[]> = { pdf: [], abs: [] };
  const pdfGate = new Gate();
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
        : null;
  const double = await startHttpDouble(async (req, res) => {
    const url = new URL(req.url, 'http://arxiv.test');
    const route = routeOf(url.pathname);
    if (limited > 0) {
      limited--;
      return sendAnswer(res, { status: 429, headers: { 'retry-after': String(retryAfter) }, body: 'Rate exceeded.' });
    }
    if (route === 'pdf') await pdfGate.pass();
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
    pdfGate,
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
