/**
 * Resolving `{id_or_doi}` (CONTRACT §11.1): DOI → versionless arXiv id through OpenAlex, bare old-style number →
 * `quant-ph/`, no version → the latest version from the arXiv abstract page. Each applied default adds one text.
 *
 * Lookups are cached (LRU 1024 entries; positive 5 min for DOIs and 10 min for versions, negative 1 min,
 * transient errors not cached) and concurrent lookups of one key share one request. A lookup never takes the
 * caller's cancellation: it belongs to every caller waiting on it. DOI lookups that reach OpenAlex are limited per
 * caller (issue 20, docs/decisions.md): 429 with `Retry-After` past the limit.
 */
import { LRUCache } from 'lru-cache';
import { looksLikeDoi, normaliseDoi } from '../../shared/doi.js';
import {
  type DomainError,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
  UnavailableError,
  UpstreamError,
} from '../../shared/domain-errors.js';
import {
  hasVersion,
  parsePreprintId,
  withVersion,
  type PreprintId,
  type VersionedPreprintId,
} from '../../shared/ids.js';
import { FixedWindowLimiter, RATE_RULES } from '../auth/rate-limit.js';
import type { Clock } from './clock.js';
import type { OpenAlexClient } from './openalex-client.js';
import { FetchFailure, type PreprintFetcher } from './preprint-fetcher.js';

export interface Resolution {
  /** Canonical id with version. */
  readonly id: VersionedPreprintId;
  /** The input as given (decoded). */
  readonly requestedId: string;
  /** Texts of the defaults applied, in order; empty for a canonical input. */
  readonly defaults: readonly string[];
}

/** A failed resolution: the error to answer with, and how far resolution got (for the `X-Svc-*` headers). */
export interface ResolutionFailure {
  readonly error: DomainError;
  readonly requestedId: string;
  readonly resolvedId: string | null;
  readonly defaults: readonly string[];
}

export type ResolveOutcome =
  { readonly ok: true; readonly resolution: Resolution } | { readonly ok: false; readonly failure: ResolutionFailure };

export const DEFAULT_TEXTS = {
  doi: (versionless: string) => `doi_resolved_via_openalex (DOI -> arXiv id ${versionless})`,
  category: 'category=quant-ph (no category prefix; server default for bare old-style numbers)',
  version: (n: number) => `version=v${n} (no version specified; latest published version used)`,
} as const;

const CACHE_SIZE = 1024;
const DOI_POSITIVE_MS = 5 * 60_000;
const VERSION_POSITIVE_MS = 10 * 60_000;
const NEGATIVE_MS = 60_000;
const RATE_LIMITED_RETRY_AFTER_S = 60;

interface Found<T> {
  readonly value: T | null;
}

export interface ResolverDeps {
  /** `null` when `SVC_SCHOLARLY_MAILTO` is unset: DOI resolution is unavailable. */
  readonly openalex: OpenAlexClient | null;
  readonly fetcher: PreprintFetcher;
  readonly clock: Clock;
}

export class Resolver {
  private readonly dois: LRUCache<string, Found<string>>;
  private readonly versions: LRUCache<string, Found<number>>;
  /** DOIs whose OpenAlex lookup is in flight: a caller joining one causes no request of its own. */
  private readonly doisInFlight = new Set<string>();
  /** OpenAlex lookups per caller (issue 20): a loop over DOIs cannot become a flood of upstream requests. */
  private readonly lookups: FixedWindowLimiter;

  constructor(private readonly deps: ResolverDeps) {
    this.lookups = new FixedWindowLimiter(() => deps.clock.now());
    // `ttlResolution: 0`: read the clock on every check (lru-cache otherwise reuses a reading for up to 1 ms).
    const perf = { now: () => deps.clock.now() };
    this.dois = new LRUCache<string, Found<string>>({
      max: CACHE_SIZE,
      ttl: DOI_POSITIVE_MS,
      perf,
      ttlResolution: 0,
      ignoreFetchAbort: true,
      fetchMethod: async (doi, _stale, { options }) => {
        const value = await this.deps.openalex!.arxivIdForDoi(doi);
        if (value === null) options.ttl = NEGATIVE_MS;
        return { value };
      },
    });
    this.versions = new LRUCache<string, Found<number>>({
      max: CACHE_SIZE,
      ttl: VERSION_POSITIVE_MS,
      perf,
      ttlResolution: 0,
      ignoreFetchAbort: true,
      fetchMethod: async (versionless, _stale, { options }) => {
        try {
          return { value: await this.deps.fetcher.latestVersion(parsePreprintId(versionless)!) };
        } catch (err) {
          if (err instanceof FetchFailure && err.code === 'not_found') {
            options.ttl = NEGATIVE_MS;
            return { value: null };
          }
          throw err;
        }
      },
    });
  }

  /**
   * Paper-access input: canonical, versionless or bare old-style id, or a DOI. `caller` keys the limit on DOI
   * lookups that reach OpenAlex (`RATE_RULES.doiLookup`: a DOI neither cached nor in flight counts); `null` is
   * not limited.
   */
  async resolve(raw: string, caller: string | null = null): Promise<ResolveOutcome> {
    if (!looksLikeDoi(raw)) return this.resolveArxivId(raw, `invalid preprint id or DOI: ${JSON.stringify(raw)}`);
    const normal = normaliseDoi(raw);
    if (!normal.ok) {
      return failed(
        new InvalidInputError(`invalid DOI: ${normal.reason}`, { fields: { requested_id: raw, doi: raw } }),
        raw,
      );
    }
    const doi = normal.doi;
    const fields = { requested_id: raw, doi };
    if (this.deps.openalex === null) {
      return failed(
        new UnavailableError('DOI resolution unavailable: SVC_SCHOLARLY_MAILTO is not configured on the server', {
          fields,
        }),
        raw,
      );
    }
    const asksOpenAlex = !this.dois.has(doi) && !this.doisInFlight.has(doi);
    if (asksOpenAlex && caller !== null) {
      try {
        this.lookups.hit(RATE_RULES.doiLookup, caller);
      } catch (err) {
        if (!(err instanceof RateLimitedError)) throw err;
        const retryAfterSeconds = err.retryAfterSeconds ?? 1;
        return failed(new RateLimitedError(err.message, { fields, retryAfterSeconds }), raw);
      }
    }
    let found: Found<string> | undefined;
    if (asksOpenAlex) this.doisInFlight.add(doi);
    try {
      found = await this.dois.fetch(doi);
    } catch (err) {
      const error = new UpstreamError('scholarly', `OpenAlex upstream error: ${(err as Error).message}`, {
        fields,
        cause: err,
      });
      return failed(error, raw);
    } finally {
      if (asksOpenAlex) this.doisInFlight.delete(doi);
    }
    const parsed = found?.value ? parsePreprintId(found.value) : null;
    if (!parsed) {
      return failed(
        new NotFoundError(`DOI ${doi} is not known to OpenAlex or has no arXiv identifier`, { fields }),
        raw,
      );
    }
    return this.finishVersion(parsed, raw, [DEFAULT_TEXTS.doi(parsed.versionless)], fields);
  }

  /**
   * Ingest input (§2.2): canonical, versionless or bare old-style id (no DOI). An invalid id is the caller's
   * 400; here it fails like any other resolution error.
   */
  resolveId(raw: string): Promise<ResolveOutcome> {
    return this.resolveArxivId(raw, `invalid preprint_id: ${JSON.stringify(raw)}`);
  }

  /** An arXiv id in any accepted spelling; `invalidText` is the message when `raw` is none. */
  private async resolveArxivId(raw: string, invalidText: string): Promise<ResolveOutcome> {
    const fields = { requested_id: raw };
    const parsed = parsePreprintId(raw);
    if (parsed === null) return failed(new InvalidInputError(invalidText, { fields }), raw);
    return this.finishVersion(parsed, raw, parsed.categoryDefaulted ? [DEFAULT_TEXTS.category] : [], fields);
  }

  private async finishVersion(
    id: PreprintId,
    raw: string,
    defaults: string[],
    fields: Record<string, string>,
  ): Promise<ResolveOutcome> {
    if (hasVersion(id)) return { ok: true, resolution: { id, requestedId: raw, defaults } };
    let found: Found<number> | undefined;
    try {
      found = await this.versions.fetch(id.versionless);
    } catch (cause) {
      if (cause instanceof FetchFailure && cause.code === 'rate_limited') {
        const error = new UnavailableError('arXiv version lookup rate-limited; retry later', {
          fields,
          retryAfterSeconds: RATE_LIMITED_RETRY_AFTER_S,
          cause,
        });
        return failed(error, raw, id.versionless, defaults);
      }
      const reason = (cause as Error).message;
      const error = new UpstreamError('preprint', `arXiv version lookup failed: ${reason}`, { fields, cause });
      return failed(error, raw, id.versionless, defaults);
    }
    if (!found || found.value === null) {
      return failed(
        new NotFoundError(`arXiv has no paper ${id.versionless}`, { fields }),
        raw,
        id.versionless,
        defaults,
      );
    }
    defaults.push(DEFAULT_TEXTS.version(found.value));
    return { ok: true, resolution: { id: withVersion(id, found.value), requestedId: raw, defaults } };
  }
}

/** A failed resolution; `resolvedId` and `defaults` say how far it got. */
const failed = (
  error: DomainError,
  requestedId: string,
  resolvedId: string | null = null,
  defaults: readonly string[] = [],
): ResolveOutcome => ({ ok: false, failure: { error, requestedId, resolvedId, defaults } });
