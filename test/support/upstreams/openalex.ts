import { sendJson, startHttpDouble, type HttpDouble } from './http-double.js';

export interface OpenAlexWork {
  readonly id: string;
  readonly doi: string;
  readonly title: string;
  readonly publication_date?: string;
  readonly cited_by_count?: number;
  readonly authorships?: { author: { display_name: string } }[];
  readonly locations?: { landing_page_url?: string | null; pdf_url?: string | null }[];
  readonly referenced_works?: string[];
}

export interface OpenAlexDouble extends HttpDouble {
  /** Works by bare lower-case DOI. */
  readonly works: Map<string, OpenAlexWork>;
}

/**
 * OpenAlex as CONTRACT §12.2 describes it: `GET /works/doi:<percent-encoded DOI>?mailto=…` → 200 work JSON or
 * 404; requests without `mailto` get 403 so a test notices a missing contact address.
 */
export async function startOpenAlexDouble(): Promise<OpenAlexDouble> {
  const works = new Map<string, OpenAlexWork>();
  const double = await startHttpDouble((req, res) => {
    const url = new URL(req.url, 'http://openalex.test');
    const match = /^\/works\/doi:(.+)$/.exec(url.pathname);
    if (req.method !== 'GET' || !match) return sendJson(res, 404, { error: 'not found' });
    if (!url.searchParams.get('mailto')) return sendJson(res, 403, { error: 'mailto required' });
    const work = works.get(decodeURIComponent(match[1]!).toLowerCase());
    return work ? sendJson(res, 200, work) : sendJson(res, 404, { error: 'Not Found' });
  });
  return { ...double, works };
}
