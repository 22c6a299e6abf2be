/**
 * DOI → arXiv id through the OpenAlex API (CONTRACT §12.2): one request per lookup, no retries.
 */
import { VERSION } from '../../shared/version.js';

const TIMEOUT_MS = 10_000;
const BODY_CAP = 4 * 1024 * 1024;

const NEW_STYLE = String.raw`\d{4}\.\d{4,5}`;
const OLD_STYLE = String.raw`[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]+(?:-[A-Za-z]+)*)?/\d{7}`;
const ARXIV_URL = new RegExp(
  String.raw`^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(${NEW_STYLE}|${OLD_STYLE})(?:v\d+)?(?:\.pdf)?$`,
);

/** An OpenAlex answer that is not a usable work (non-200 other than 404, timeout, bad JSON). */
export class OpenAlexError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'OpenAlexError';
  }
}

interface Location {
  readonly landing_page_url?: unknown;
  readonly pdf_url?: unknown;
}

interface Work {
  readonly locations?: unknown;
  readonly primary_location?: unknown;
  readonly best_oa_location?: unknown;
}

/**
 * The versionless arXiv id of a work: the first URL matching §12.2's pattern, looking at `locations[]` (landing
 * page, then PDF URL of each), then `primary_location`, then `best_oa_location`; `null` when none matches.
 */
export function arxivIdOfWork(work: Work): string | null {
  const locations: unknown[] = [
    ...(Array.isArray(work.locations) ? work.locations : []),
    work.primary_location,
    work.best_oa_location,
  ];
  for (const loc of locations) {
    if (loc === null || typeof loc !== 'object') continue;
    for (const url of [(loc as Location).landing_page_url, (loc as Location).pdf_url]) {
      if (typeof url !== 'string') continue;
      const m = ARXIV_URL.exec(url.trim());
      if (m) return m[1]!;
    }
  }
  return null;
}

export interface OpenAlexClientOptions {
  readonly baseUrl: string;
  readonly mailto: string;
  readonly apiKey: string | null;
}

/** The OpenAlex client of these settings; `null` without `SVC_SCHOLARLY_MAILTO` (OpenAlex asks callers to name one). */
export function openAlexClientOf(scholarly: {
  readonly baseUrl: string;
  readonly mailto: string | null;
  readonly apiKey: string | null;
}): OpenAlexClient | null {
  const { baseUrl, mailto, apiKey } = scholarly;
  return mailto ? new OpenAlexClient({ baseUrl, mailto, apiKey }) : null;
}

export class OpenAlexClient {
  private readonly baseUrl: string;

  constructor(private readonly options: OpenAlexClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** The versionless arXiv id for a normalised DOI; `null` when OpenAlex does not know it or has no arXiv URL. */
  async arxivIdForDoi(doi: string): Promise<string | null> {
    const work = await this.fetchWork(`doi:${encodeURIComponent(doi)}`);
    return work === null ? null : arxivIdOfWork(work);
  }

  /** The work of a normalised DOI or of an OpenAlex id (`W…`), with the §12.2 fields read; `null` when unknown. */
  async work(ref: { readonly doi: string } | { readonly openalexId: string }): Promise<OpenAlexWork | null> {
    const selector = 'doi' in ref ? `doi:${encodeURIComponent(ref.doi)}` : encodeURIComponent(ref.openalexId);
    const work = await this.fetchWork(selector);
    return work === null ? null : readWork(work);
  }

  /** `GET /works/<selector>` (§12.2): the work object, `null` on 404; `OpenAlexError` otherwise. */
  private async fetchWork(selector: string): Promise<Work | null> {
    const query = new URLSearchParams({ mailto: this.options.mailto });
    if (this.options.apiKey) query.set('api_key', this.options.apiKey);
    const url = `${this.baseUrl}/works/${selector}?${query.toString()}`;
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { 'User-Agent': `pksd/${VERSION} (mailto:${this.options.mailto})`, Accept: 'application/json' },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const e = err as Error;
      throw new OpenAlexError(e.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : e.message);
    }
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      const hint = res.status === 429 ? ' (rate limited; check SVC_SCHOLARLY_MAILTO and the request rate)' : '';
      throw new OpenAlexError(`HTTP ${res.status}${hint}`);
    }
    let work: unknown;
    try {
      work = JSON.parse(await readCapped(res, BODY_CAP));
    } catch (err) {
      if (err instanceof OpenAlexError) throw err;
      if ((err as Error).name === 'TimeoutError') throw new OpenAlexError(`no answer within ${TIMEOUT_MS / 1000} s`);
      throw new OpenAlexError(err instanceof SyntaxError ? 'invalid JSON in the work' : (err as Error).message);
    }
    if (work === null || typeof work !== 'object') throw new OpenAlexError('invalid JSON in the work');
    return work as Work;
  }
}

/** A work's fields as §12.2 reads them. */
export interface OpenAlexWork {
  /** The `W…` part of `id`. */
  readonly openalexId: string | null;
  /** Bare lower-case DOI (`doi`, else `ids.doi`). */
  readonly doi: string | null;
  readonly title: string | null;
  readonly authors: readonly string[];
  readonly publicationDate: string | null;
  readonly citedByCount: number | null;
  /** Versionless arXiv id of its first arXiv location. */
  readonly arxivId: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

function readWork(work: Work): OpenAlexWork {
  const w = work as Work & Record<string, unknown>;
  const ids = (w['ids'] ?? {}) as Record<string, unknown>;
  const doiUrl = str(w['doi']) ?? str(ids['doi']);
  const authorships = Array.isArray(w['authorships']) ? (w['authorships'] as Record<string, unknown>[]) : [];
  const authors = authorships
    .map(
      (a) =>
        str((a?.['author'] as Record<string, unknown> | undefined)?.['display_name']) ?? str(a?.['raw_author_name']),
    )
    .filter((name): name is string => name !== null);
  const count = w['cited_by_count'];
  return {
    openalexId: /\/(W\d+)$/.exec(str(w['id']) ?? '')?.[1] ?? null,
    doi: doiUrl ? doiUrl.replace(/^https?:\/\/(dx\.)?doi\.org\//i, '').toLowerCase() : null,
    title: str(w['title']) ?? str(w['display_name']),
    authors,
    publicationDate: str(w['publication_date']),
    citedByCount: typeof count === 'number' && Number.isInteger(count) ? count : null,
    arxivId: arxivIdOfWork(work),
  };
}

async function readCapped(res: Response, cap: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > cap) throw new OpenAlexError(`work larger than ${cap} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
