/**
 * Builds the paper-access machinery from the settings (CONTRACT §1.4 step 6, §11). It is built whether or not
 * the feature switch is on: ingest tasks (§10) fetch through the same limiter, slots and jobs. Conversion runs
 * only with the switch on and at least one `PARSER_API_TOKENS` entry.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import type { PaperService } from '../papers/service.js';
import { systemClock, type Clock } from './clock.js';
import { Converter } from './converter.js';
import { DurationRing } from './duration-ring.js';
import { AccessEngine, type ConversionAvailability } from './engine.js';
import { JobLeases } from './job-lease.js';
import type { JobLeaseStore } from '../db/job-lease-store.js';
import { openAlexClientOf } from './openalex-client.js';
import { ParserApiClient } from '../../parser-api/client.js';
import { fetchTransport } from '../../parser-api/fetch-transport.js';
import { PreprintFetcher } from './preprint-fetcher.js';
import { Resolver } from './resolver.js';
import { PaperAccess } from './service.js';
import { Slots } from './slots.js';
import { TokenBucket } from './token-bucket.js';
import { TokenRing } from '../../parser-api/token-ring.js';

export const PREPRINT_BURST = 2;
const DEFAULT_PARSER_SLOTS = 4;
const DEFAULT_PARSER_TIMEOUT_S = 1800;

/** Test hooks; production uses the defaults. */
export interface PaperAccessOptions {
  readonly clock?: Clock;
  /** Wait before the second submission after a retryable parser failure (default 10 s). */
  readonly resubmitDelayMs?: number;
  /** Cooldown after a `fatal`/`retryable` job failure (default 60 s). */
  readonly failureCooldownMs?: number;
  /** The preprint token bucket, when the caller shares it with the metadata fetcher (§18.1); else a new one. */
  readonly limiter?: TokenBucket;
  /**
   * Cluster mode (§21): the job leases in the shared user database, held under `SVC_INSTANCE_ID`; absent or
   * `null` (SQLite), jobs live in this process only.
   */
  readonly leases?: JobLeaseStore | null;
}

export function conversionAvailability(config: Config): ConversionAvailability {
  if (!config.paperAccessEnabled) {
    return { enabled: false, reason: 'paper access is disabled (SVC_PAPER_ACCESS_ENABLED=false)' };
  }
  if (!config.parser || config.parser.apiTokens.length === 0) {
    return { enabled: false, reason: 'PARSER_API_TOKENS unset; cache-only mode' };
  }
  return { enabled: true, reason: null };
}

export function openPaperAccess(
  config: Config,
  logger: Logger,
  papers: PaperService,
  options: PaperAccessOptions = {},
): PaperAccess {
  const clock = options.clock ?? systemClock;
  // The machinery's lifetime: `PaperAccess.close()` aborts it, ending every download, parser call and wait.
  const lifetime = new AbortController();
  const { signal } = lifetime;
  const limiter = options.limiter ?? new TokenBucket(config.preprint.fetchRps, PREPRINT_BURST, clock);
  const fetcher = new PreprintFetcher({
    baseUrl: config.preprint.baseUrl,
    mailto: config.scholarly.mailto,
    limiter,
    clock,
    stager: papers,
    signal,
  });
  const openalex = openAlexClientOf(config.scholarly);
  const resolver = new Resolver({ openalex, fetcher, clock });
  const conversion = conversionAvailability(config);
  const parserSlots = new Slots(config.parser?.maxConcurrentJobs ?? DEFAULT_PARSER_SLOTS);
  const durations = new DurationRing();
  const ring = new TokenRing(config.parser?.apiTokens ?? [], clock);
  const converter =
    conversion.enabled && config.parser
      ? new Converter({
          parser: config.parser,
          client: new ParserApiClient(config.parser.baseUrl, fetchTransport),
          ring,
          slots: parserSlots,
          durations,
          papers,
          clock,
          logger,
          preprintPdfUrl: (id) => fetcher.pdfUrl(id),
          signal,
          ...(options.resubmitDelayMs !== undefined ? { resubmitDelayMs: options.resubmitDelayMs } : {}),
        })
      : null;
  const engine = new AccessEngine({
    logger,
    papers,
    clock,
    fetcher,
    fetchSlots: new Slots(config.preprint.fetchConcurrent),
    converter,
    conversion,
    parserSlots,
    durations,
    parserTimeoutSeconds: config.parser?.timeoutSeconds ?? DEFAULT_PARSER_TIMEOUT_S,
    signal,
    leases: options.leases ? new JobLeases({ store: options.leases, holder: config.instanceId, clock, logger }) : null,
    ...(options.failureCooldownMs !== undefined ? { failureCooldownMs: options.failureCooldownMs } : {}),
  });
  return new PaperAccess(resolver, engine, papers, { converter, ring, lifetime });
}
