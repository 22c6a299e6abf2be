/**
 * The filter phase of `pksd scholarly bootstrap` (CONTRACT §15.8): two streaming passes over the upstream works
 * snapshot, part by part. Pass 1 collects the seeds `S` and their references `R`; pass 2 keeps a line iff its work
 * is in `S`, or in `R` (references on), or cites a seed (citers on), and writes it byte for byte into a new gzip
 * part in the snapshot bucket. Then the manifest, then the `--entities` copies.
 *
 * Resumable: a part whose output object exists with the same `source_url` and filter fingerprint is not filtered
 * again (pass 1 always reads every part: `S` and `R` need all of them).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { createGzip, type Gzip } from 'node:zlib';
import { UpstreamError } from '../../shared/domain-errors.js';
import { rfc3339 } from '../../shared/time.js';
import type { SnapshotBucket } from './bucket.js';
import { IdSet } from './id-set.js';
import { GzipDecodeError, scanGzipLines } from './lines.js';
import { mayBeSeed, mentionsAny } from './prefilter.js';
import { readManifest, type ManifestEntry, type SnapshotSource } from './source.js';
import { arxivIdOf, isSeed, parseWork, referencedWorkIds, workIdOf, type SeedRules, type Work } from './works.js';

export const WORKS_MANIFEST_KEY = 'works/manifest';

export interface FilterOptions {
  readonly source: SnapshotSource;
  readonly bucket: SnapshotBucket;
  /** `--seed-pattern` as given. */
  readonly seedPattern: string;
  readonly inIndex: SeedRules['inIndex'];
  readonly references: boolean;
  readonly citers: boolean;
  /** `--limit-parts`: only the first N parts of each manifest. */
  readonly limitParts: number | null;
  /** `--entities`: entities whose parts are copied unmodified. */
  readonly entities: readonly string[];
  readonly dryRun: boolean;
  /** Where finished parts wait for their upload. */
  readonly tempDir: string;
  readonly progress: (line: string) => void;
  readonly now?: () => Date;
}

export interface FilterReport {
  readonly partsRead: number;
  readonly worksRead: number;
  readonly seeds: number;
  readonly worksKept: number;
  readonly partsWritten: number;
  /** Parts already in the bucket from an earlier run with the same source and filter. */
  readonly partsPresent: number;
  readonly bytesWritten: number;
  readonly entityPartsCopied: number;
}

interface OutputEntry {
  readonly url: string;
  readonly meta: { readonly content_length: number; readonly record_count: number };
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** `works/updated_date=<date>/part_<NNNN>.jsonl.gz` for a source part `…/updated_date=<date>/part_<N>.gz`. */
export function outputKey(entry: ManifestEntry): string {
  const m = /updated_date=([^/]+)\/part_(\d+)\.gz$/.exec(entry.path);
  if (!m) throw new UpstreamError('scholarly', `manifest entry ${entry.url} is not an updated_date=…/part_N.gz part`);
  return `works/updated_date=${m[1]!}/part_${m[2]!.padStart(4, '0')}.jsonl.gz`;
}

/** Identifies the filter settings a part was written with (object metadata `filter`). */
function fingerprint(options: FilterOptions): string {
  const settings = JSON.stringify([options.seedPattern, options.references, options.citers]);
  return createHash('sha256').update(settings).digest('hex').slice(0, 16);
}

/** A line that is not a JSON object at all is a decode error even when its content would not be looked at. */
function looksLikeObject(line: Buffer): boolean {
  let start = 0;
  let end = line.length - 1;
  while (start <= end && (line[start] === 0x20 || line[start] === 0x09)) start++;
  while (end >= start && (line[end] === 0x20 || line[end] === 0x09 || line[end] === 0x0d)) end--;
  return line[start] === OPEN_BRACE && line[end] === CLOSE_BRACE;
}

/** Decode errors name the part and the line (§15.8: fatal). */
function decodeError(entry: ManifestEntry, line: number, reason: string): UpstreamError {
  return new UpstreamError('scholarly', `decode error in part ${entry.url}, line ${line}: ${reason}`);
}

/** Streams one source part through `onLine`, turning gzip and JSON failures into decode errors. */
async function scanPart(
  source: SnapshotSource,
  entry: ManifestEntry,
  onWork: (line: Buffer, parse: () => Work) => void,
  afterChunk?: () => Promise<void> | void,
): Promise<number> {
  let current = 0;
  try {
    const scan = await scanGzipLines(
      await source.open(entry.path),
      (line, lineNumber) => {
        current = lineNumber;
        if (!looksLikeObject(line)) throw decodeError(entry, lineNumber, 'not a JSON object');
        onWork(line, () => {
          try {
            return parseWork(line);
          } catch (err) {
            throw decodeError(entry, lineNumber, (err as Error).message);
          }
        });
      },
      afterChunk,
    );
    return scan.lines;
  } catch (err) {
    if (err instanceof GzipDecodeError) throw decodeError(entry, err.lines + 1, `gzip: ${err.reason}`);
    if (err instanceof UpstreamError) throw err;
    throw new UpstreamError('scholarly', `reading part ${entry.url} (line ${current}): ${(err as Error).message}`, {
      cause: err,
    });
  }
}

const NEWLINE = Buffer.from('\n');

/**
 * A gzip writer into a temp file. Lines are gathered per inflated chunk and handed to zlib in one write: a zlib
 * stream runs one thread-pool job per write, which per line would cost more than the compression.
 */
class PartWriter {
  private readonly gzip: Gzip;
  private readonly done: Promise<void>;
  private batch: Buffer[] = [];

  constructor(readonly file: string) {
    this.gzip = createGzip();
    const out = createWriteStream(file);
    this.gzip.pipe(out);
    this.done = finished(out);
    this.done.catch(() => undefined);
  }

  /** Queues a line (its buffer must stay valid until the next `flush`). */
  write(line: Buffer): void {
    this.batch.push(line, NEWLINE);
  }

  async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const ok = this.gzip.write(Buffer.concat(this.batch));
    this.batch = [];
    if (!ok) await new Promise((resolve) => this.gzip.once('drain', resolve));
  }

  async close(): Promise<number> {
    await this.flush();
    this.gzip.end();
    await this.done;
    return (await stat(this.file)).size;
  }

  abort(): void {
    this.gzip.destroy();
  }
}

export async function filterSnapshot(options: FilterOptions): Promise<FilterReport> {
  const { source, bucket, progress } = options;
  const manifest = await readManifest(source, 'works');
  const entries = options.limitParts === null ? manifest.entries : manifest.entries.slice(0, options.limitParts);
  const rules: SeedRules = { pattern: new RegExp(options.seedPattern, 'i'), inIndex: options.inIndex };

  // Pass 1: seeds and their references.
  const seeds = new IdSet();
  const refs = new IdSet();
  let worksRead = 0;
  for (const [i, entry] of entries.entries()) {
    const before = seeds.size;
    const lines = await scanPart(source, entry, (line, parse) => {
      if (!mayBeSeed(line)) return;
      const work = parse();
      const id = workIdOf(work['id']);
      if (id === null || !isSeed(work, arxivIdOf(work), rules)) return;
      seeds.add(id);
      for (const ref of referencedWorkIds(work)) refs.add(ref);
    });
    worksRead += lines;
    progress(`pass 1: part ${i + 1}/${entries.length} ${entry.path}: ${lines} works, ${seeds.size - before} seeds`);
  }
  progress(`pass 1: ${seeds.size} seeds, ${refs.size} referenced works`);

  // Pass 2: the kept lines, byte for byte.
  const filter = fingerprint(options);
  const candidates = options.references ? [seeds, refs] : [seeds];
  const keep = (work: Work): boolean => {
    const id = workIdOf(work['id']);
    if (id !== null && (seeds.has(id) || (options.references && refs.has(id)))) return true;
    return options.citers && referencedWorkIds(work).some((ref) => seeds.has(ref));
  };
  if (!options.dryRun) await mkdir(options.tempDir, { recursive: true });
  const written: OutputEntry[] = [];
  let worksKept = 0;
  let partsWritten = 0;
  let partsPresent = 0;
  let bytesWritten = 0;
  for (const [i, entry] of entries.entries()) {
    const key = outputKey(entry);
    const label = `pass 2: part ${i + 1}/${entries.length} ${entry.path}`;
    const existing = options.dryRun ? null : await bucket.head(key);
    if (existing && existing.metadata['source_url'] === entry.url && existing.metadata['filter'] === filter) {
      const records = Number(existing.metadata['record_count'] ?? 0);
      written.push({ url: key, meta: { content_length: existing.size, record_count: records } });
      worksKept += records;
      partsPresent++;
      progress(`${label}: already in the bucket (${records} works)`);
      continue;
    }
    const tmp = path.join(options.tempDir, `part-${randomBytes(6).toString('hex')}.jsonl.gz`);
    const writer = options.dryRun ? null : new PartWriter(tmp);
    let kept = 0;
    try {
      await scanPart(
        source,
        entry,
        (line, parse) => {
          if (!mentionsAny(line, candidates) || !keep(parse())) return;
          kept++;
          writer?.write(line);
        },
        () => writer?.flush(),
      );
      worksKept += kept;
      if (writer === null || kept === 0) {
        writer?.abort();
        progress(`${label}: ${kept} works kept${kept === 0 ? ' (no part written)' : ''}`);
        continue;
      }
      const size = await writer.close();
      await bucket.putFile(key, tmp, { record_count: String(kept), source_url: entry.url, filter });
      written.push({ url: key, meta: { content_length: size, record_count: kept } });
      partsWritten++;
      bytesWritten += size;
      progress(`${label}: ${kept} works kept → ${key} (${size} bytes)`);
    } catch (err) {
      writer?.abort();
      throw err;
    } finally {
      if (writer !== null) await rm(tmp, { force: true });
    }
  }

  if (!options.dryRun) {
    const now = (options.now ?? (() => new Date()))();
    const body = {
      entries: written,
      meta: {
        content_length: written.reduce((n, e) => n + e.meta.content_length, 0),
        record_count: written.reduce((n, e) => n + e.meta.record_count, 0),
      },
      filter: {
        source: source.root,
        seed_pattern: options.seedPattern,
        references: options.references,
        citers: options.citers,
        filtered_at: rfc3339(now),
      },
    };
    await putText(bucket, options.tempDir, WORKS_MANIFEST_KEY, JSON.stringify(body, null, 2) + '\n');
    progress(`manifest: ${WORKS_MANIFEST_KEY} (${written.length} parts)`);
  }

  let entityPartsCopied = 0;
  for (const entity of options.entities) {
    entityPartsCopied += await copyEntity(entity, options);
  }

  return {
    partsRead: entries.length,
    worksRead,
    seeds: seeds.size,
    worksKept,
    partsWritten,
    partsPresent,
    bytesWritten,
    entityPartsCopied,
  };
}

/** Stores `text` under `key` (through a temp file, like every object). */
async function putText(bucket: SnapshotBucket, tempDir: string, key: string, text: string | Buffer): Promise<void> {
  const tmp = path.join(tempDir, `text-${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(tmp, text);
    await bucket.putFile(key, tmp, {});
  } finally {
    await rm(tmp, { force: true });
  }
}

/**
 * `--entities`: copies the entity's parts unmodified (same gzip bytes) to `data/<entity>/<path below the entity
 * dir>`, then its manifest. A part already there with the same source URL and size is not copied again.
 */
async function copyEntity(entity: string, options: FilterOptions): Promise<number> {
  const { source, bucket, progress } = options;
  const manifest = await readManifest(source, entity);
  const entries = options.limitParts === null ? manifest.entries : manifest.entries.slice(0, options.limitParts);
  let copied = 0;
  for (const [i, entry] of entries.entries()) {
    if (!entry.path.startsWith(`data/${entity}/`)) {
      throw new UpstreamError('scholarly', `data/${entity}/manifest lists ${entry.url} outside data/${entity}/`);
    }
    const label = `${entity}: part ${i + 1}/${entries.length} ${entry.path}`;
    if (options.dryRun) {
      progress(`${label}: would be copied`);
      continue;
    }
    const existing = await bucket.head(entry.path);
    if (
      existing &&
      existing.metadata['source_url'] === entry.url &&
      (entry.contentLength === null || existing.size === entry.contentLength)
    ) {
      progress(`${label}: already in the bucket`);
      continue;
    }
    const tmp = path.join(options.tempDir, `entity-${randomBytes(6).toString('hex')}.gz`);
    try {
      await pipeline(await source.open(entry.path), createWriteStream(tmp));
      await bucket.putFile(entry.path, tmp, {
        source_url: entry.url,
        ...(entry.recordCount !== null ? { record_count: String(entry.recordCount) } : {}),
      });
      copied++;
      progress(`${label}: copied`);
    } finally {
      await rm(tmp, { force: true });
    }
  }
  if (!options.dryRun) await putText(bucket, options.tempDir, `data/${entity}/manifest`, manifest.raw);
  return copied;
}
