/**
 * The scholarly snapshot bucket (SPEC: a source of truth): `SVC_OBJ_BUCKET_SCHOLARLY_SNAPSHOT` on the object store,
 * or `<SVC_RAW_DIR>/scholarly-snapshot/` with the local backend (metadata in `<file>.meta.json`, as the asset store
 * keeps it). Objects are written whole from a finished local file, so an interrupted run leaves no partial object.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { UpstreamError } from '../../shared/domain-errors.js';
import { objectStoreError } from '../storage/object-store.js';

export interface StoredObject {
  readonly size: number;
  /** User metadata, lower-case names. */
  readonly metadata: Readonly<Record<string, string>>;
}

export interface SnapshotBucket {
  /** Where it is, for messages (`s3://bucket` or the directory). */
  readonly location: string;
  head(key: string): Promise<StoredObject | null>;
  /** Stores the file at `file` under `key`, replacing any object there. */
  putFile(key: string, file: string, metadata: Readonly<Record<string, string>>): Promise<void>;
  /** `null` when absent. */
  get(key: string): Promise<Readable | null>;
}

const SIDECAR = '.meta.json';

const storeError = (op: string, key: string, err: unknown): UpstreamError =>
  objectStoreError(`${op} ${key}: ${(err as Error).message}`, err);

export class LocalSnapshotBucket implements SnapshotBucket {
  constructor(readonly root: string) {}

  get location(): string {
    return this.root;
  }

  private file(key: string): string {
    const file = path.resolve(this.root, key);
    if (!file.startsWith(this.root + path.sep)) throw new Error(`snapshot key outside the bucket: ${key}`);
    return file;
  }

  async head(key: string): Promise<StoredObject | null> {
    const file = this.file(key);
    try {
      const { size } = await stat(file);
      let metadata: Record<string, string> = {};
      try {
        metadata =
          (JSON.parse(await readFile(file + SIDECAR, 'utf8')) as { metadata?: Record<string, string> }).metadata ?? {};
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      return { size, metadata };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw storeError('head', key, err);
    }
  }

  async putFile(key: string, source: string, metadata: Readonly<Record<string, string>>): Promise<void> {
    const file = this.file(key);
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(path.dirname(file), { recursive: true });
      // The sidecar first, the content last: content present means the object is complete.
      await writeAtomically(file + SIDECAR, JSON.stringify({ metadata }));
      await copyFile(source, tmp);
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw storeError('put', key, err);
    }
  }

  async get(key: string): Promise<Readable | null> {
    const file = this.file(key);
    try {
      await stat(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw storeError('get', key, err);
    }
    return createReadStream(file, { highWaterMark: 1024 * 1024 });
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

const isNotFound = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.$metadata?.httpStatusCode === 404 || e?.name === 'NotFound' || e?.name === 'NoSuchKey';
};

export class S3SnapshotBucket implements SnapshotBucket {
  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
  ) {}

  get location(): string {
    return `s3://${this.bucket}`;
  }

  async head(key: string): Promise<StoredObject | null> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: r.ContentLength ?? 0, metadata: r.Metadata ?? {} };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw storeError('head', key, err);
    }
  }

  async putFile(key: string, file: string, metadata: Readonly<Record<string, string>>): Promise<void> {
    try {
      const { size } = await stat(file);
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: createReadStream(file, { highWaterMark: 1024 * 1024 }),
          ContentLength: size,
          ContentType: key.endsWith('.gz') ? 'application/gzip' : 'application/json',
          Metadata: { ...metadata },
        }),
      );
    } catch (err) {
      throw storeError('put', key, err);
    }
  }

  async get(key: string): Promise<Readable | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return r.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw storeError('get', key, err);
    }
  }
}
