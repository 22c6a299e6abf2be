/**
 * S3 backend (CONTRACT §3.4): a router over the three asset buckets; the kind prefix of an app key selects the
 * bucket and is stripped.
 */
import { close as closeFd, createReadStream, createWriteStream, fstat, open as openFd } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import {
  DeleteObjectCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Logger } from 'pino';
import { isObjectStoreError, type UpstreamError } from '../../shared/domain-errors.js';
import { ASSET_KINDS, type AssetKind } from '../../shared/ids.js';
import { INDEX_BUCKET_KEY, INDEX_CONTENT_TYPE, routeKey, routeObjectKey } from './keys.js';
import {
  objectStoreError,
  type ByteRange,
  type CallOptions,
  type GotObject,
  type IndexFile,
  type IndexObject,
  type ListedObject,
  type ObjectBody,
  type ObjectInfo,
  type ObjectStore,
  type ObjectVersion,
  type OpenedIndex,
  type PutOptions,
  type PutResult,
} from './object-store.js';
import type { S3Clients } from './s3-client.js';
import { ownedTempName, removeStaleTemps } from './temp-files.js';
import * as youngGarbage from './young-garbage.js';

interface S3ErrorShape {
  name?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

const statusOf = (err: unknown) => (err as S3ErrorShape | null)?.$metadata?.httpStatusCode;
const codeOf = (err: unknown) => (err as S3ErrorShape | null)?.Code ?? (err as S3ErrorShape | null)?.name;

function isNotFound(err: unknown): boolean {
  const code = codeOf(err);
  return statusOf(err) === 404 || code === 'NotFound' || code === 'NoSuchKey';
}

/** 412, or 409 `ConditionalRequestConflict` (CONTRACT §3.3 step 2). */
function isPreconditionFailure(err: unknown): boolean {
  const status = statusOf(err);
  if (status === 412 || codeOf(err) === 'PreconditionFailed') return true;
  return status === 409 && codeOf(err) === 'ConditionalRequestConflict';
}

function wrap(op: string, key: string, err: unknown): UpstreamError {
  if (isObjectStoreError(err)) return err;
  const e = err as S3ErrorShape;
  const status = statusOf(err);
  const code = codeOf(err);
  const message =
    e?.message && e.message !== 'UnknownError' ? e.message : `${code ?? 'error'}${status ? ` (HTTP ${status})` : ''}`;
  return objectStoreError(`${op} ${key}: ${message}`, err);
}

const START_TIMEOUT_MS = 5_000;
/** Index files being written for `writeIndexFile` (`<prefix><owner>`, temp-files.ts), removed at start when stale. */
const INDEX_TEMP_PREFIX = 'index-';
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Runs an SDK call with an abort after `timeoutMs` unless it has answered by then (the timer is cleared once the
 * response headers are in, so a long body download is not cut).
 */
async function answerWithin<T>(
  timeoutMs: number | undefined,
  call: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (timeoutMs === undefined) return call(undefined);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

function lowerKeys(metadata: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(metadata ?? {})) out[k.toLowerCase()] = v;
  return out;
}

type BodyInput = Pick<PutObjectCommandInput, 'Body' | 'ContentLength'>;

/**
 * Runs `send` with `body` as a PutObject's body. A file body streams (never buffered whole) with its known length,
 * in 1 MiB reads (fewer, larger socket writes than the 64 KiB default), and its stream is destroyed once `send`
 * settles: an answer that comes before the whole body was read (a 412 to `Expect: 100-continue`, an abort, a reset)
 * would otherwise leave the file open — and a removed file's space held — until the process exits.
 */
async function withBody<T>(body: ObjectBody, send: (input: BodyInput) => Promise<T>): Promise<T> {
  if (Buffer.isBuffer(body)) return send({ Body: body, ContentLength: body.length });
  const stream = Readable.from(counted(createReadStream(body.path, { highWaterMark: 1024 * 1024 })));
  try {
    return await send({ Body: stream, ContentLength: body.size });
  } finally {
    stream.destroy();
  }
}

/** Tries of an index PUT: the SDK never retries a streamed body, so `writeIndexFile` does (the SDK's own count). */
const INDEX_PUT_ATTEMPTS = 3;

/**
 * Whether a failed PutObject is one the SDK retries for a buffered body: a 5xx, throttling, a dropped or refused
 * connection. Never a caller's abort (its time is spent) nor a 4xx.
 */
function isTransient(err: unknown): boolean {
  const e = err as { name?: string; code?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number } };
  if (e.name === 'AbortError') return false;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429 || e.$retryable !== undefined;
  return ['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT'].includes(e.code ?? '') || e.name === 'TimeoutError';
}

/** The chunks of a file read, counted for `youngGarbage` (each is a new buffer, garbage once sent). */
async function* counted(file: Readable): AsyncGenerator<Buffer> {
  for await (const chunk of file as AsyncIterable<Buffer>) {
    youngGarbage.received(chunk.length);
    yield chunk;
  }
}

export class S3ObjectStore implements ObjectStore {
  readonly backend = 's3' as const;

  private readonly pageSize: number | undefined;
  /**
   * Where index files are written before they are sent: a directory of their own (start removes stale `index-*`
   * entries), `<SVC_DATA_DIR>/index-tmp/` in the server.
   */
  private readonly tempDir: string;

  constructor(
    private readonly clients: S3Clients,
    private readonly logger: Logger,
    options: { readonly listPageSize?: number; readonly tempDir?: string } = {},
  ) {
    this.pageSize = options.listPageSize;
    this.tempDir = options.tempDir ?? path.join(os.tmpdir(), 'pks-index-tmp');
  }

  private get client() {
    return this.clients.internal;
  }

  private bucket(kind: AssetKind): string {
    return this.clients.buckets[kind];
  }

  /**
   * Enables versioning on the three asset buckets when not `Enabled`; a failure (or no answer within 5 s) is a
   * warning. The buckets are handled in parallel so a dead store delays the start by at most the timeout. Index
   * files a crashed process left in the temp directory are removed.
   */
  async start(): Promise<void> {
    await mkdir(this.tempDir, { recursive: true });
    await removeStaleTemps(this.tempDir, { prefix: INDEX_TEMP_PREFIX, maxAgeMs: STALE_TEMP_MS });
    await Promise.all(
      ASSET_KINDS.map(async (kind) => {
        const Bucket = this.bucket(kind);
        const abortSignal = AbortSignal.timeout(START_TIMEOUT_MS);
        try {
          const current = await this.client.send(new GetBucketVersioningCommand({ Bucket }), { abortSignal });
          if (current.Status === 'Enabled') return;
          await this.client.send(
            new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }),
            { abortSignal },
          );
          this.logger.info({ bucket: Bucket }, `enabled versioning on bucket ${Bucket}`);
        } catch (err) {
          this.logger.warn(
            { bucket: Bucket, err: (err as Error).message },
            `could not enable versioning on bucket ${Bucket}; overwritten objects may not be recoverable`,
          );
        }
      }),
    );
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const { kind, bucketKey } = routeObjectKey(key);
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket(kind), Key: bucketKey }));
      return {
        key,
        size: r.ContentLength ?? 0,
        etag: r.ETag ?? null,
        lastModified: r.LastModified ?? null,
        contentType: r.ContentType ?? null,
        metadata: lowerKeys(r.Metadata),
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw wrap('head', key, err);
    }
  }

  async get(key: string, range?: ByteRange): Promise<GotObject | null> {
    const { kind, bucketKey } = routeObjectKey(key);
    try {
      const Range = range ? `bytes=${range.start}-${range.end ?? ''}` : undefined;
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket(kind), Key: bucketKey, Range }));
      const body = r.Body instanceof Readable ? r.Body : Readable.fromWeb(r.Body!.transformToWebStream() as never);
      // A ranged answer: `bytes <start>-<end>/<size>`; without it the store sent the whole object.
      const sent = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(r.ContentRange ?? '');
      return {
        ...(sent ? { range: { start: Number(sent[1]), end: Number(sent[2]) } } : {}),
        info: {
          key,
          size: sent ? Number(sent[3]) : (r.ContentLength ?? 0),
          etag: r.ETag ?? null,
          lastModified: r.LastModified ?? null,
          contentType: r.ContentType ?? null,
          metadata: lowerKeys(r.Metadata),
        },
        body,
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      if (range && statusOf(err) === 416) {
        const info = await this.head(key);
        return info && { info, body: Readable.from([]), range: 'unsatisfiable' };
      }
      throw wrap('get', key, err);
    }
  }

  async putIfAbsent(key: string, body: ObjectBody, options: PutOptions): Promise<PutResult | null> {
    const route = routeObjectKey(key);
    try {
      return await this.putObject(route, body, options, true);
    } catch (err) {
      if (isPreconditionFailure(err)) return null;
      throw wrap('put', key, err);
    }
  }

  async putStreamIfAbsent(
    key: string,
    body: Readable,
    size: number,
    options: PutOptions,
    signal: AbortSignal,
  ): Promise<PutResult | null> {
    const { kind, bucketKey } = routeObjectKey(key);
    try {
      // A streamed body is never retried by the SDK; the caller falls back to its staged copy.
      const r = await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket(kind),
          Key: bucketKey,
          Body: body,
          ContentLength: size,
          ContentType: options.contentType,
          Metadata: { ...options.metadata },
          IfNoneMatch: '*',
        }),
        { abortSignal: signal },
      );
      return { etag: r.ETag ?? null };
    } catch (err) {
      if (isPreconditionFailure(err)) return null;
      throw wrap('put', key, err);
    }
  }

  async put(key: string, body: ObjectBody, options: PutOptions): Promise<PutResult> {
    const route = routeObjectKey(key);
    try {
      return await this.putObject(route, body, options, false);
    } catch (err) {
      throw wrap('put', key, err);
    }
  }

  /** One PutObject; `ifAbsent` adds `If-None-Match: *` (create only). */
  private async putObject(
    route: ReturnType<typeof routeObjectKey>,
    body: ObjectBody,
    options: PutOptions,
    ifAbsent: boolean,
  ): Promise<PutResult> {
    const r = await withBody(body, (input) =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket(route.kind),
          Key: route.bucketKey,
          ...input,
          ContentType: options.contentType,
          Metadata: { ...options.metadata },
          ...(ifAbsent ? { IfNoneMatch: '*' } : {}),
        }),
      ),
    );
    return { etag: r.ETag ?? null };
  }

  async delete(key: string): Promise<void> {
    const { kind, bucketKey } = routeObjectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket(kind), Key: bucketKey }));
    } catch (err) {
      if (isNotFound(err)) return;
      throw wrap('delete', key, err);
    }
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    const { kind, bucketKey } = routeKey(prefix);
    const Bucket = this.bucket(kind);
    let ContinuationToken: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({
            Bucket,
            Prefix: bucketKey || undefined,
            ContinuationToken,
            MaxKeys: this.pageSize,
          }),
        );
      } catch (err) {
        throw wrap('list', prefix, err);
      }
      for (const o of page.Contents ?? []) {
        if (o.Key === undefined) continue;
        if (kind === 'pdf' && o.Key.startsWith('index/')) continue; // the metadata index is not an app key
        yield {
          key: `${kind}/${o.Key}`,
          size: o.Size ?? 0,
          etag: o.ETag ?? null,
          lastModified: o.LastModified ?? null,
        };
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async *listVersions(prefix: string): AsyncIterable<ObjectVersion> {
    const { kind, bucketKey } = routeKey(prefix);
    const Bucket = this.bucket(kind);
    let KeyMarker: string | undefined;
    let VersionIdMarker: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectVersionsCommand({
            Bucket,
            Prefix: bucketKey || undefined,
            KeyMarker,
            VersionIdMarker,
            MaxKeys: this.pageSize,
          }),
        );
      } catch (err) {
        throw wrap('list versions', prefix, err);
      }
      const items: ObjectVersion[] = [];
      for (const v of page.Versions ?? []) {
        if (v.Key === undefined || (kind === 'pdf' && v.Key.startsWith('index/'))) continue;
        items.push({
          key: `${kind}/${v.Key}`,
          versionId: v.VersionId ?? 'null',
          size: v.Size ?? 0,
          lastModified: v.LastModified ?? new Date(0),
          isLatest: v.IsLatest ?? false,
          deleteMarker: false,
        });
      }
      for (const m of page.DeleteMarkers ?? []) {
        if (m.Key === undefined || (kind === 'pdf' && m.Key.startsWith('index/'))) continue;
        items.push({
          key: `${kind}/${m.Key}`,
          versionId: m.VersionId ?? 'null',
          size: 0,
          lastModified: m.LastModified ?? new Date(0),
          isLatest: m.IsLatest ?? false,
          deleteMarker: true,
        });
      }
      yield* items;
      const more = page.IsTruncated === true;
      KeyMarker = more ? page.NextKeyMarker : undefined;
      VersionIdMarker = more ? page.NextVersionIdMarker : undefined;
      if (more && KeyMarker === undefined) break;
    } while (KeyMarker !== undefined);
  }

  async deleteVersion(key: string, versionId: string): Promise<void> {
    const { kind, bucketKey } = routeObjectKey(key);
    try {
      await this.client.send(
        new DeleteObjectCommand({ Bucket: this.bucket(kind), Key: bucketKey, VersionId: versionId }),
      );
    } catch (err) {
      throw wrap('delete version', key, err);
    }
  }

  async readIndex(options: CallOptions = {}): Promise<IndexObject | null> {
    try {
      const r = await answerWithin(options.timeoutMs, (abortSignal) =>
        this.client.send(new GetObjectCommand({ Bucket: this.bucket('pdf'), Key: INDEX_BUCKET_KEY }), { abortSignal }),
      );
      const bytes = Buffer.from(await r.Body!.transformToByteArray());
      return { bytes, etag: r.ETag ?? '' };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw wrap('read', INDEX_BUCKET_KEY, err);
    }
  }

  /** The index downloaded into the temp area, opened, and unlinked at once (the descriptor keeps the bytes). */
  async openIndex(options: CallOptions = {}): Promise<OpenedIndex | null> {
    const tmp = await this.indexTempPath();
    let fd: number | null = null;
    try {
      const r = await answerWithin(options.timeoutMs, (abortSignal) =>
        this.client.send(new GetObjectCommand({ Bucket: this.bucket('pdf'), Key: INDEX_BUCKET_KEY }), { abortSignal }),
      );
      await pipeline(r.Body as Readable, createWriteStream(tmp, { flags: 'wx' }));
      fd = await promisify(openFd)(tmp, 'r');
      const { size } = await promisify(fstat)(fd);
      return { fd, size, etag: r.ETag ?? '' };
    } catch (err) {
      if (fd !== null) await promisify(closeFd)(fd).catch(() => undefined);
      if (isNotFound(err)) return null;
      throw wrap('read', INDEX_BUCKET_KEY, err);
    } finally {
      await rm(tmp, { force: true }).catch(() => undefined);
    }
  }

  async indexEtag(options: CallOptions = {}): Promise<string | null> {
    try {
      const r = await answerWithin(options.timeoutMs, (abortSignal) =>
        this.client.send(new HeadObjectCommand({ Bucket: this.bucket('pdf'), Key: INDEX_BUCKET_KEY }), { abortSignal }),
      );
      return r.ETag ?? '';
    } catch (err) {
      if (isNotFound(err)) return null;
      throw wrap('head', INDEX_BUCKET_KEY, err);
    }
  }

  async indexTempPath(): Promise<string> {
    try {
      await mkdir(this.tempDir, { recursive: true });
    } catch (err) {
      throw wrap('write', INDEX_BUCKET_KEY, err);
    }
    return path.join(this.tempDir, ownedTempName(INDEX_TEMP_PREFIX));
  }

  /**
   * Streams the file in one conditional PutObject (`If-None-Match: *` / `If-Match`), tried again with a fresh stream
   * after a transient failure (`isTransient`) within the same time limit, then removes it.
   */
  async writeIndexFile(
    file: IndexFile,
    expectedEtag: string | null,
    options: CallOptions = {},
  ): Promise<string | null> {
    try {
      const r = await answerWithin(options.timeoutMs, async (abortSignal) => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await withBody(file, (input) =>
              this.client.send(
                new PutObjectCommand({
                  Bucket: this.bucket('pdf'),
                  Key: INDEX_BUCKET_KEY,
                  ...input,
                  ContentType: INDEX_CONTENT_TYPE,
                  ...(expectedEtag === null ? { IfNoneMatch: '*' } : { IfMatch: expectedEtag }),
                }),
                { abortSignal },
              ),
            );
          } catch (err) {
            if (attempt >= INDEX_PUT_ATTEMPTS || abortSignal?.aborted === true || !isTransient(err)) throw err;
            await sleep(100 * 2 ** attempt);
          }
        }
      });
      return r.ETag ?? '';
    } catch (err) {
      if (isPreconditionFailure(err)) return null;
      throw wrap('write', INDEX_BUCKET_KEY, err);
    } finally {
      await rm(file.path, { force: true }).catch(() => undefined);
    }
  }

  /** A GET URL signed by the public-endpoint client (§3.4), or `null` when `SVC_OBJ_PUBLIC_ENDPOINT` is unset. */
  async presignGet(key: string, ttlSeconds: number): Promise<string | null> {
    const { kind, bucketKey } = routeObjectKey(key);
    const signer = this.clients.publicSigner;
    if (signer === null) return null;
    try {
      return await getSignedUrl(signer, new GetObjectCommand({ Bucket: this.bucket(kind), Key: bucketKey }), {
        expiresIn: ttlSeconds,
      });
    } catch (err) {
      throw wrap('presign', key, err);
    }
  }
}
