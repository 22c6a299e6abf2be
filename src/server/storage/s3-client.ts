import { S3Client } from '@aws-sdk/client-s3';
import { VERSION } from '../../shared/version.js';
import type { ObjectStoreConfig } from '../config/types.js';

export type AssetKind = 'pdf' | 'markdown' | 'images';

/** `pksd/<version>` or `pksd/<version>/<edge>` (SPEC: informational only). */
export function objectStoreUserAgent(edgeName: string | null): string {
  return edgeName ? `pksd/${VERSION}/${edgeName}` : `pksd/${VERSION}`;
}

export interface S3Clients {
  /** Server traffic, to `SVC_OBJ_ENDPOINT`. */
  readonly internal: S3Client;
  /** Signs URLs for outside parties with `SVC_OBJ_PUBLIC_ENDPOINT`; `null` when that is unset. */
  readonly publicSigner: S3Client | null;
  readonly buckets: ObjectStoreConfig['buckets'];
  destroy(): void;
}

const SILENT_SDK_LOGGER = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

function makeClient(config: ObjectStoreConfig, endpoint: string, userAgent: string): S3Client {
  return new S3Client({
    endpoint,
    region: config.region,
    forcePathStyle: true,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    customUserAgent: userAgent,
    // Uploads and health checks must not hang forever on a dead store.
    maxAttempts: 3,
    // A store that accepts connections and never answers must not hang callers forever: fail a connect after
    // 5 s and a request whose socket stays idle for 60 s (streaming uploads keep it busy).
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    // The SDK's default (WHEN_SUPPORTED) sends every streamed PutObject as `aws-chunked` with a CRC32 trailer.
    // S3-compatible stores vary in support for that encoding, and some decode it slowly (moto: ~2 MiB/s for a
    // 100 MiB PDF vs ~150 MiB/s plain). Objects carry their own sha256 metadata, so checksums are only sent (and
    // validated) where an operation requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // The SDK would otherwise print to the console (e.g. on every expected 412 of a streamed conditional PUT);
    // errors reach callers as exceptions and are logged there.
    logger: SILENT_SDK_LOGGER,
  });
}

/** One client for the three asset buckets (the router maps kinds to buckets), plus the public signer. */
export function createS3Clients(config: ObjectStoreConfig, edgeName: string | null): S3Clients {
  const userAgent = objectStoreUserAgent(edgeName);
  const internal = makeClient(config, config.endpoint, userAgent);
  const publicSigner = config.publicEndpoint ? makeClient(config, config.publicEndpoint, userAgent) : null;
  return {
    internal,
    publicSigner,
    buckets: config.buckets,
    destroy() {
      internal.destroy();
      publicSigner?.destroy();
    },
  };
}

export function bucketFor(buckets: ObjectStoreConfig['buckets'], kind: AssetKind): string {
  return buckets[kind];
}
