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

function makeClient(config: ObjectStoreConfig, endpoint: string, userAgent: string): S3Client {
  return new S3Client({
    endpoint,
    region: config.region,
    forcePathStyle: true,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    customUserAgent: userAgent,
    // Uploads and health checks must not hang forever on a dead store.
    maxAttempts: 3,
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
