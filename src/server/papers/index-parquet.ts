/**
 * `index/papers.parquet` (CONTRACT §4.1): the store-backed persistence with compare-and-swap and the
 * re-apply-on-412 merge of §4.2. Encoding and decoding live in `./index/`.
 */
import type { Logger } from 'pino';
import type { ObjectStore } from '../storage/object-store.js';
import { TableEncoder, encodeTableSync } from './index/encoder.js';
import { decodeTable } from './index/parquet-read.js';
import { applyPending } from './index/pending.js';
import type { IndexRow, RowMutation } from './index/row.js';
import { IndexTable } from './index/table.js';
import type { IndexPersistence } from './paper-index.js';

export { INDEX_COLUMNS } from './index/columns.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Serialises rows (SNAPPY), sorted by `preprint_id`, in place. */
export function encodeIndex(rows: readonly IndexRow[]): Buffer {
  const bytes = encodeTableSync(IndexTable.fromRows(rows));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Parses the index into row objects; throws on a corrupt file. */
export async function decodeIndex(bytes: Buffer): Promise<IndexRow[]> {
  return [...(await decodeTable(bytes)).rows()];
}

const MAX_FLUSH_ATTEMPTS = 5;

/** Index calls that get no answer within this are failures (a dead store must not hang the start or the timers). */
const INDEX_CALL_TIMEOUT_MS = 10_000;

/** The index object on the store (S3 pdf bucket or `<raw>/index/`), written with CAS. */
export class StoreIndexPersistence implements IndexPersistence {
  private etag: string | null = null;
  /** Saves are serial (`PaperIndex`), so one encoder's buffers serve each in turn. */
  private readonly encoder = new TableEncoder();

  constructor(
    private readonly store: ObjectStore,
    private readonly logger: Logger,
    private readonly timeoutMs = INDEX_CALL_TIMEOUT_MS,
  ) {}

  private get call() {
    return { timeoutMs: this.timeoutMs };
  }

  get currentEtag(): string | null {
    return this.etag;
  }

  async load(): Promise<IndexTable | null> {
    const obj = await this.store.readIndex(this.call);
    if (obj === null) {
      this.etag = null;
      return null;
    }
    const table = await decodeTable(obj.bytes, nextTurn, true);
    this.etag = obj.etag;
    return table;
  }

  async reload(): Promise<IndexTable | null | 'unchanged'> {
    if ((await this.store.indexEtag(this.call)) === this.etag) return 'unchanged';
    const obj = await this.store.readIndex(this.call);
    if ((obj?.etag ?? null) === this.etag) return 'unchanged';
    if (obj === null) {
      this.etag = null;
      return null;
    }
    const table = await decodeTable(obj.bytes, nextTurn, true);
    this.etag = obj.etag;
    return table;
  }

  async save(table: IndexTable, pending: ReadonlyMap<string, RowMutation>): Promise<'stored' | IndexTable | 'retry'> {
    let current = table;
    for (let attempt = 1; attempt <= MAX_FLUSH_ATTEMPTS; attempt++) {
      // Encoded straight into a file of the store's temp area (removed on failure), which the store then
      // publishes (and removes): the file's bytes never pass through this heap.
      const file = await this.encoder.encode(current, await this.store.indexTempPath());
      // The answer comes after the whole body: allow 1 s per MiB on top of the base timeout.
      const etag = await this.store.writeIndexFile(file, this.etag, {
        timeoutMs: this.timeoutMs + Math.ceil(file.size / 1_048_576) * 1000,
      });
      if (etag !== null) {
        this.etag = etag;
        return current === table ? 'stored' : current;
      }
      // Someone else wrote the index: take theirs and re-apply our pending mutations.
      this.logger.info({ attempt }, 'metadata index changed remotely; merging local changes');
      const remote = await this.store.readIndex(this.call);
      this.etag = remote?.etag ?? null;
      const base = remote ? await decodeTable(remote.bytes, nextTurn, true) : new IndexTable();
      current = applyPending(base, pending, table);
    }
    return 'retry';
  }
}
