import {
  Gate,
  sendAnswer,
  sendJson,
  startHttpDouble,
  type Answer,
  type HttpDouble,
  type DoubleOptions,
  type RecordedRequest,
} from './http-double.js';

export interface OpenAlexWork {
  readonly id: string;
  readonly doi: string;
  readonly title: string;
  readonly publication_date?: string;
  readonly cited_by_count?: number;
  readonly authorships?: { author: { display_name: string } }[];
  readonly locations?: { landing_page_url?: string | null; pdf_url?: string | null }[];
  readonly primary_location?: { landing_page_url?: string | null; pdf_url?: string | null } | null;
  readonly best_oa_location?: { landing_page_url?: string | null; pdf_url?: string | null } | null;
  readonly referenced_works?: string[];
}

export interface OpenAlexDouble extends HttpDouble {
  /** Works by bare lower-case DOI. */
  readonly works: Map<string, OpenAlexWork>;
  /** Answers the next work requests with these answers, in order (500, 429, invalid JSON, …). */
  answerNext(...answers: Answer[]): void;
  /** Pause before answering a work request (coalescing and cancellation tests). */
  delayMs: number;
  /**
   * Holds work requests unanswered while closed (a lookup in flight for as long as a test needs); `workGate.held`
   * counts the requests held now.
   */
  readonly workGate: Gate;
  /** The work lookups received (`GET /works/doi:…`), in order: what a rate limit on lookups must bound. */
  workRequests(): RecordedRequest[];
}

/** A work whose only location is an arXiv abstract page. */
export function arxivWork(doi: string, arxivId: string, title = 'A paper'): OpenAlexWork {
  return {
    id: `https://openalex.org/W${Math.abs(hash(doi))}`,
    doi: `https://doi.org/${doi}`,
    title,
    locations: [{ landing_page_url: `https://arxiv.org/abs/${arxivId}`, pdf_url: `https://arxiv.org/pdf/${arxivId}` }],
  };
}

function hash(s: string): number {
  let h = 0;
  for (const c of s) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}

/**
 * OpenAlex as CONTRACT §12.2 describes it: `GET /works/doi:<percent-encoded DOI>?mailto=…` (and, for lookups,
 * `GET /works/<W id>`) → 200 work JSON or 404; requests without `mailto` get 403 so a test notices a missing contact
 * address.
 */
export async function startOpenAlexDouble(options: DoubleOptions = {}): Promise<OpenAlexDouble> {
  const works = new Map<string, OpenAlexWork>();
  const scripted: Answer[] = [];
  const state = { delayMs: 0 };
  const workGate = new Gate();
  const double = await startHttpDouble(async (req, res) => {
    const url = new URL(req.url, 'http://openalex.test');
    const match = /^\/works\/doi:(.+)$/.exec(url.pathname);
    const byId = /^\/works\/(W\d+)$/i.exec(url.pathname);
    if (req.method !== 'GET' || (!match && !byId)) return sendJson(res, 404, { error: 'not found' });
    await workGate.pass();
    if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    const next = scripted.shift();
    if (next) return sendAnswer(res, next);
    if (!url.searchParams.get('mailto')) return sendJson(res, 403, { error: 'mailto required' });
    const work = match
      ? works.get(decodeURIComponent(match[1]!).toLowerCase())
      : [...works.values()].find((w) => w.id.toUpperCase().endsWith(`/${byId![1]!.toUpperCase()}`));
    return work ? sendJson(res, 200, work) : sendJson(res, 404, { error: 'Not Found' });
  }, options);
  return {
    ...double,
    works,
    workGate,
    answerNext(...answers) {
      scripted.push(...answers);
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    workRequests() {
      return double.requests.filter((r) => r.url.startsWith('/works/doi:'));
    },
  };
}
