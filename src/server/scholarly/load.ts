/**
 * The load phase of `pksd scholarly bootstrap` (CONTRACT §15.8): the filtered works of the snapshot bucket into the
 * graph, then their metadata into the metadata index.
 *
 * Pass 1 maps every work id to its paper (works with an arXiv id) and MERGEs the `Paper` nodes with their scholarly
 * properties; pass 2 MERGEs `CITES` for references between two such works (from the reference lists pass 1 kept, or
 * by reading the bucket again when they were too many to keep), the papers found by the `elementId`s pass 1's
 * writes returned (a first load, into a graph without `Paper` and `CITES`, creates both instead: the same graph);
 * then the derived citation counts are recomputed for every loaded paper, and the index rows of those papers get
 * their metadata columns (CAS write).
 * Works without an arXiv id stay only in the bucket. When several works name the same paper, the first in bucket
 * order gives its properties (their citations all count).
 */
import type { Logger } from 'pino';
import { ConflictError, UpstreamError } from '../../shared/domain-errors.js';
import type { BatchWriterOptions } from '../graph/batch-writer.js';
import type { GraphClient } from '../graph/driver.js';
import {
  CitationWriter,
  derivedCountWriter,
  paperRow,
  paperWriter,
  scholarlyGraphCounts,
  type PaperNode,
  type ScholarlyPaper,
} from '../graph/scholarly.js';
import { StoreIndexPersistence } from '../papers/index-parquet.js';
import type { RowMutation } from '../papers/index/row.js';
import type { IndexTable } from '../papers/index/table.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { SnapshotBucket } from './bucket.js';
import { WORKS_MANIFEST_KEY } from './filter.js';
import { GzipDecodeError, scanGzipLines } from './lines.js';
import { ReferenceLists } from './reference-lists.js';
import { arxivIdOf, paperMetadata, parseWork, referencedWorkIds, workIdOf } from './works.js';

export interface LoadOptions {
  readonly bucket: SnapshotBucket;
  readonly graph: GraphClient;
  /** The asset store holding the metadata index. */
  readonly store: ObjectStore;
  readonly logger: Logger;
  readonly progress: (line: string) => void;
  readonly dryRun: boolean;
  readonly writer?: BatchWriterOptions;
  /** References kept from pass 1 for the citation pass (default 16M, 128 MiB); beyond, the bucket is read again. */
  readonly referenceBudget?: number;
}

const DEFAULT_REFERENCE_BUDGET = 16 * 1024 * 1024;

export interface LoadReport {
  readonly worksRead: number;
  readonly papersMerged: number;
  readonly citationsMerged: number;
  readonly indexRowsUpdated: number;
}

/** The part keys of the bucket's works manifest. */
async function manifestParts(bucket: SnapshotBucket): Promise<string[]> {
  const stream = await bucket.get(WORKS_MANIFEST_KEY);
  if (stream === null) {
    throw new UpstreamError(
      'scholarly',
      `no ${WORKS_MANIFEST_KEY} in the snapshot bucket ${bucket.location}: run the filter first (--source)`,
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  const entries = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { entries?: { url?: unknown }[] }).entries;
  if (!Array.isArray(entries)) throw new UpstreamError('scholarly', `${WORKS_MANIFEST_KEY}: no "entries" list`);
  return entries.map((e) => {
    if (typeof e.url !== 'string') throw new UpstreamError('scholarly', `${WORKS_MANIFEST_KEY}: an entry has no url`);
    return e.url;
  });
}

/** Streams every work of the bucket's parts; decode errors name the part and line (fatal). */
async function forEachWork(
  bucket: SnapshotBucket,
  keys: readonly string[],
  onWork: (work: Record<string, unknown>) => void,
  afterChunk: () => Promise<void>,
): Promise<number> {
  let works = 0;
  for (const key of keys) {
    const stream = await bucket.get(key);
    if (stream === null) throw new UpstreamError('scholarly', `${key} is in the manifest but not in the bucket`);
    try {
      const scan = await scanGzipLines(
        stream,
        (line, lineNumber) => {
          let work: Record<string, unknown>;
          try {
            work = parseWork(line);
          } catch (err) {
            throw new UpstreamError(
              'scholarly',
              `decode error in part ${key}, line ${lineNumber}: ${(err as Error).message}`,
            );
          }
          onWork(work);
        },
        afterChunk,
      );
      works += scan.lines;
    } catch (err) {
      if (err instanceof GzipDecodeError) {
        throw new UpstreamError('scholarly', `decode error in part ${key}, line ${err.lines + 1}: gzip: ${err.reason}`);
      }
      throw err;
    }
  }
  return works;
}

/** A queue of pending graph writes, awaited between chunks (the writer's back-pressure). */
class Pending {
  private queue: Promise<void>[] = [];
  push(p: Promise<void>): void {
    p.catch(() => undefined); // observed by settle(); unsettled when a phase fails first
    this.queue.push(p);
  }
  async settle(): Promise<void> {
    const queue = this.queue;
    this.queue = [];
    await Promise.all(queue);
  }
}

/**
 * Runs a phase that feeds `writer`, then closes it; when the phase fails, the writer is abandoned first, so the
 * load never ends (and its caller never closes the driver) with transactions still running.
 */
async function writing<W extends { close(): Promise<void>; abandon(): Promise<void> }, T>(
  writer: W,
  phase: (writer: W) => Promise<T>,
): Promise<T> {
  try {
    const result = await phase(writer);
    await writer.close();
    return result;
  } catch (err) {
    await writer.abandon();
    throw err;
  }
}

export async function loadSnapshot(options: LoadOptions): Promise<LoadReport> {
  const { bucket, graph, progress } = options;
  const keys = await manifestParts(bucket);
  const persistence = new StoreIndexPersistence(options.store, options.logger);
  const index = await persistence.load();

  // A first load (no Paper, no CITES yet) creates what it writes instead of merging it: each paper and each pair
  // is sent once, so none can exist already (one load at a time; a paper another writer creates meanwhile makes
  // its batch fall back to MERGE).
  const before = options.dryRun ? null : await scholarlyGraphCounts(graph);

  // Pass 1: work → paper, and the Paper nodes.
  const paperOf = new Map<number, string>();
  const references = new ReferenceLists(options.referenceBudget ?? DEFAULT_REFERENCE_BUDGET);
  const firstWork = new Set<string>();
  /**
   * Papers that can cite twice — a paper of several works, or of a work id the bucket repeats — and the papers their
   * citations were sent to (each pair is sent once).
   */
  const citedBy = new Map<string, Set<string>>();
  const citesTwice = (paper: string): void => {
    if (!citedBy.has(paper)) citedBy.set(paper, new Set());
  };
  const indexed = new Map<string, ScholarlyPaper>();
  /** Each paper's node, as its batch returned it (what the citation pass and the derived counts find it by). */
  const nodeOf = new Map<string, PaperNode>();
  const pending = new Pending();
  const paperWrites = { allNew: before?.papers === 0, onNode: (id: string, node: PaperNode) => nodeOf.set(id, node) };
  const worksRead = await writing(paperWriter(graph, options.writer, paperWrites), async (papers) => {
    const works = await forEachWork(
      bucket,
      keys,
      (work) => {
        const id = workIdOf(work['id']);
        const arxivId = arxivIdOf(work);
        // A repeated work id: its lines all cite from the paper its last line with an arXiv id names.
        const earlier = id === null ? undefined : paperOf.get(id);
        if (earlier !== undefined) citesTwice(earlier);
        if (id === null || arxivId === null) return;
        if (earlier !== undefined) citesTwice(arxivId);
        paperOf.set(id, arxivId);
        if (references.complete) references.add(id, referencedWorkIds(work));
        if (firstWork.has(arxivId)) {
          citesTwice(arxivId);
          return;
        }
        firstWork.add(arxivId);
        const metadata = paperMetadata(work, id, arxivId);
        if (index !== null && index.versionsOf(arxivId).length > 0) indexed.set(arxivId, metadata);
        if (!options.dryRun) pending.push(papers.add(paperRow(metadata)));
      },
      () => pending.settle(),
    );
    await pending.settle();
    return works;
  });
  progress(`load: ${worksRead} works, ${firstWork.size} papers merged`);

  // Pass 2: CITES between loaded papers, which the writer finds by their nodes.
  let citationsMerged = 0;
  // Created only from kept reference lists: reading the bucket again also cites from a work id's lines without an
  // arXiv id, which pass 1 does not track (a line before the one that names the paper would send its pairs twice).
  const citationsNew = before?.citations === 0 && references.complete;
  await writing(new CitationWriter(graph, options.writer, citationsNew), async (citations) => {
    const cite = (from: string, refs: Iterable<number>): void => {
      const targets = new Set<string>();
      for (const ref of refs) {
        const to = paperOf.get(ref);
        if (to !== undefined && to !== from) targets.add(to);
      }
      citationsMerged += targets.size;
      if (options.dryRun || targets.size === 0) return;
      const fromNode = nodeOf.get(from);
      const sent = citedBy.get(from);
      const toNodes = [...targets].flatMap((to) => {
        if (sent !== undefined) {
          if (sent.has(to)) return [];
          sent.add(to);
        }
        return nodeOf.get(to) ?? [];
      });
      if (fromNode !== undefined && toNodes.length > 0) pending.push(citations.add(fromNode, toNodes));
    };
    if (references.complete) {
      for (const { work, refs } of references) {
        cite(paperOf.get(work)!, refs);
        await pending.settle();
      }
    } else {
      progress(`load: more than ${references.budget} references; reading the bucket again for the citations`);
      await forEachWork(
        bucket,
        keys,
        (work) => {
          const id = workIdOf(work['id']);
          const from = id === null ? undefined : paperOf.get(id);
          if (from !== undefined) cite(from, referencedWorkIds(work));
        },
        () => pending.settle(),
      );
    }
    await pending.settle();
  });
  progress(`load: ${citationsMerged} citations merged`);

  // Derived counts of every loaded paper.
  if (!options.dryRun) {
    await writing(derivedCountWriter(graph, options.writer), async (derived) => {
      for (const id of firstWork) {
        const node = nodeOf.get(id);
        if (node !== undefined) await derived.add(node);
      }
    });
    progress(`load: citation counts recomputed for ${firstWork.size} papers`);
  }

  const indexRowsUpdated = index === null ? 0 : await updateIndex(persistence, index, indexed, options);
  return { worksRead, papersMerged: firstWork.size, citationsMerged, indexRowsUpdated };
}

const sameText = (a: string | null | undefined, b: string | null): boolean => (a ?? null) === b;

/** The metadata columns of every version's row (§4.1: authors joined by `; `), CAS-written; rows unchanged skip. */
async function updateIndex(
  persistence: StoreIndexPersistence,
  table: IndexTable,
  metadata: ReadonlyMap<string, ScholarlyPaper>,
  options: LoadOptions,
): Promise<number> {
  const pending = new Map<string, RowMutation>();
  const now = new Date();
  for (const [versionless, m] of metadata) {
    const mutation = {
      title: m.title,
      authors: m.authors.length > 0 ? m.authors.join('; ') : null,
      doi: m.doi,
      openalex_id: m.openalex_id,
      publication_date: m.publication_date,
    };
    for (const i of table.versionsOf(versionless)) {
      const row = table.row(i);
      const same = (Object.keys(mutation) as (keyof typeof mutation)[]).every((k) => sameText(row[k], mutation[k]));
      if (same) continue;
      const change: RowMutation = { ...mutation, updated_at: now };
      table.set(i, change);
      pending.set(row.preprint_id, change);
    }
  }
  if (pending.size === 0 || options.dryRun) return pending.size;
  const result = await persistence.save(table, pending);
  if (result === 'retry')
    throw new ConflictError('the metadata index kept changing during the write; run the load again');
  options.progress(`index: ${pending.size} rows updated`);
  return pending.size;
}
