/**
 * The upstream OpenAlex snapshot (CONTRACT §12.3): an `https://…` base (default the public OpenAlex bucket) or a
 * local directory with the same layout. `data/<entity>/manifest` lists the entity's parts as `s3://openalex/…`
 * URLs, which map to the source root.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { InvalidInputError, UpstreamError } from '../../shared/domain-errors.js';

export const DEFAULT_SOURCE = 'https://openalex.s3.amazonaws.com';
const S3_ROOT = 's3://openalex/';

export interface ManifestEntry {
  /** As listed (`s3://openalex/data/works/updated_date=…/part_000.gz`): the part's identity. */
  readonly url: string;
  /** Below the source root (`data/works/updated_date=…/part_000.gz`). */
  readonly path: string;
  readonly contentLength: number | null;
  readonly recordCount: number | null;
}

export interface Manifest {
  readonly entries: readonly ManifestEntry[];
  /** The manifest's own bytes. */
  readonly raw: Buffer;
}

export interface SnapshotSource {
  /** The root as given, for messages and the manifest's `filter.source`. */
  readonly root: string;
  /** Bytes of a file below the root. */
  read(relPath: string): Promise<Buffer>;
  /** A stream of a file below the root. */
  open(relPath: string): Promise<Readable>;
}

class DirectorySource implements SnapshotSource {
  constructor(readonly root: string) {}

  private file(relPath: string): string {
    return path.join(this.root, ...relPath.split('/'));
  }

  async read(relPath: string): Promise<Buffer> {
    try {
      return await readFile(this.file(relPath));
    } catch (err) {
      throw new UpstreamError('scholarly', `cannot read ${this.file(relPath)}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  async open(relPath: string): Promise<Readable> {
    const file = this.file(relPath);
    try {
      await stat(file);
    } catch (err) {
      throw new UpstreamError('scholarly', `cannot read ${file}: ${(err as Error).message}`, { cause: err });
    }
    return createReadStream(file, { highWaterMark: 1024 * 1024 });
  }
}

class HttpSource implements SnapshotSource {
  readonly root: string;
  constructor(root: string) {
    this.root = root.replace(/\/+$/, '');
  }

  private async fetch(relPath: string): Promise<Response> {
    const url = `${this.root}/${relPath}`;
    let res: Response;
    try {
      res = await fetch(url);
    } catch (err) {
      throw new UpstreamError('scholarly', `GET ${url}: ${(err as Error).message}`, { cause: err });
    }
    if (!res.ok || res.body === null) {
      await res.body?.cancel();
      throw new UpstreamError('scholarly', `GET ${url}: HTTP ${res.status}`);
    }
    return res;
  }

  async read(relPath: string): Promise<Buffer> {
    return Buffer.from(await (await this.fetch(relPath)).arrayBuffer());
  }

  async open(relPath: string): Promise<Readable> {
    const res = await this.fetch(relPath);
    return Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  }
}

/** `--source`: an `http(s)://` base or a local directory. */
export function openSource(root: string): SnapshotSource {
  if (/^https?:\/\//i.test(root)) return new HttpSource(root);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(root)) {
    throw new InvalidInputError(`--source must be an http(s):// base or a directory, not ${root}`);
  }
  return new DirectorySource(path.resolve(root));
}

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** The entity's manifest (`data/<entity>/manifest`); parts outside the source root are refused. */
export async function readManifest(source: SnapshotSource, entity: string): Promise<Manifest> {
  const relPath = `data/${entity}/manifest`;
  const raw = await source.read(relPath);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new UpstreamError('scholarly', `${relPath}: invalid JSON: ${(err as Error).message}`);
  }
  const entries = (parsed as { entries?: unknown } | null)?.entries;
  if (!Array.isArray(entries)) throw new UpstreamError('scholarly', `${relPath}: no "entries" list`);
  return {
    raw,
    entries: entries.map((entry: unknown, i) => {
      const url = (entry as { url?: unknown } | null)?.url;
      if (typeof url !== 'string' || !url.startsWith(S3_ROOT) || url.includes('..')) {
        throw new UpstreamError('scholarly', `${relPath}: entry ${i + 1} has no s3://openalex/ url`);
      }
      const meta = (entry as { meta?: Record<string, unknown> }).meta ?? {};
      return {
        url,
        path: url.slice(S3_ROOT.length),
        contentLength: numberOrNull(meta['content_length']),
        recordCount: numberOrNull(meta['record_count']),
      };
    }),
  };
}
