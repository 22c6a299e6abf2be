/**
 * Paper metadata from the arXiv API (CONTRACT §18.1): `GET <SVC_PREPRINT_API_URL>?id_list=<versionless id>`, Atom.
 * One attempt per fetch, through the §11.5 token bucket shared with PDF downloads and abstract-page lookups, with
 * the same User-Agent. Redirects are not followed (an answer other than 200 is an upstream error).
 */
import type { TokenBucket } from '../../access/token-bucket.js';
import { preprintUserAgent } from '../../access/preprint-fetcher.js';
import type { ArxivMetadata } from './arxiv-atom.js';

const TIMEOUT_MS = 15_000;
const BODY_CAP = 1024 * 1024;

/** The arXiv API did not answer usable Atom (status, timeout, size, malformed feed). */
export class ArxivApiError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ArxivApiError';
  }
}

export interface ArxivApiOptions {
  readonly apiUrl: string;
  readonly mailto: string | null;
  readonly limiter: TokenBucket;
  /** Aborted when the server stops. */
  readonly signal?: AbortSignal;
}

export class ArxivApiClient {
  private readonly userAgent: string;

  constructor(private readonly options: ArxivApiOptions) {
    this.userAgent = preprintUserAgent(options.mailto);
  }

  /** The paper's metadata; `null` when arXiv does not know it. Throws `ArxivApiError`. */
  async metadata(versionless: string): Promise<ArxivMetadata | null> {
    const url = new URL(this.options.apiUrl);
    url.searchParams.set('id_list', versionless);
    const { signal: stop, limiter } = this.options;
    // Counted from the send, once the token was taken (the wait for it is not the upstream's time).
    const timeout: { signal?: AbortSignal } = {};
    let res: Response;
    try {
      res = await limiter.send(() => {
        const bound = AbortSignal.timeout(TIMEOUT_MS);
        timeout.signal = bound;
        return fetch(url, {
          headers: { 'User-Agent': this.userAgent, Accept: 'application/atom+xml' },
          redirect: 'manual',
          signal: stop ? AbortSignal.any([stop, bound]) : bound,
        });
      }, stop);
    } catch (err) {
      throw new ArxivApiError(
        timeout.signal?.aborted ? `no answer within ${TIMEOUT_MS / 1000} s` : (err as Error).message,
      );
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new ArxivApiError(`HTTP ${res.status}`);
    }
    const xml = await readCapped(res, BODY_CAP);
    // The Atom parser (fast-xml-parser) is loaded by the first lookup, not at start (docs/decisions.md "H13-FLOOR").
    const { metadataFromAtom } = await import('./arxiv-atom.js');
    try {
      return metadataFromAtom(xml, versionless);
    } catch (err) {
      throw new ArxivApiError((err as Error).message);
    }
  }
}

async function readCapped(res: Response, cap: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > cap) throw new ArxivApiError(`answer larger than ${cap} bytes`);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ArxivApiError) throw err;
    throw new ArxivApiError(`answer interrupted: ${(err as Error).message}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}
