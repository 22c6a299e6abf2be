/**
 * Builds the paper-metadata module (CONTRACT §18.1) from the settings: the cache in the user database, the graph
 * when configured, the arXiv API client when paper access is on (through the shared preprint token bucket), and
 * the OpenAlex client of lookups when `SVC_SCHOLARLY_MAILTO` is set.
 */
import type { Logger } from 'pino';
import type { Config } from '../../config/types.js';
import type { GraphClient } from '../../graph/driver.js';
import { openAlexClientOf } from '../../access/openalex-client.js';
import type { TokenBucket } from '../../access/token-bucket.js';
import type { PaperIndex } from '../paper-index.js';
import { ArxivApiClient } from './arxiv-api.js';
import { PaperLookup } from './lookup.js';
import type { MetadataCache } from './metadata-cache.js';
import { PaperMetadataService } from './service.js';

export interface PaperMetadataModule {
  readonly service: PaperMetadataService;
  readonly lookup: PaperLookup;
}

export interface PaperMetadataDeps {
  /** The metadata cache of the user database (SQLite or PostgreSQL). */
  readonly cache: MetadataCache;
  readonly graph: GraphClient | null;
  /** The preprint token bucket (§11.5) the PDF downloads and abstract-page lookups take from. */
  readonly limiter: TokenBucket;
  readonly index: PaperIndex;
  /** Aborted when the server stops (ends fetches in progress). */
  readonly signal?: AbortSignal;
}

export function openPaperMetadata(config: Config, logger: Logger, deps: PaperMetadataDeps): PaperMetadataModule {
  const arxiv = config.paperAccessEnabled
    ? new ArxivApiClient({
        apiUrl: config.preprint.apiUrl,
        mailto: config.scholarly.mailto,
        limiter: deps.limiter,
        ...(deps.signal ? { signal: deps.signal } : {}),
      })
    : null;
  const service = new PaperMetadataService({
    cache: deps.cache,
    graph: deps.graph,
    arxiv,
    logger,
    // The list's titles and `q` (§18.2) read the index: every stored version takes the paper's title and authors.
    onKnown: (versionless, metadata) =>
      deps.index.describe(versionless, {
        title: metadata.title === '' ? null : metadata.title,
        authors: metadata.authors.length === 0 ? null : metadata.authors.join('; '),
        publication_date: metadata.published === '' ? null : metadata.published,
      }),
  });
  const openalex = openAlexClientOf(config.scholarly);
  const lookup = new PaperLookup({ index: deps.index, metadata: service, openalex, logger });
  return { service, lookup };
}
