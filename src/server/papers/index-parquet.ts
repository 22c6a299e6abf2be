/**
 * `index/papers.parquet` (CONTRACT §4.1): the store-backed persistence with compare-and-swap and the
 * re-apply-on-412 merge of §4.2. Encoding and decoding live in `./index/`.
 */
import type { Logger } from 'pino';
import { closeSync } from 'node:fs';
import type { ObjectStore } from '../storage/object-store.js';
import { TableEncoder, encodeTableSync } from './index/encoder.js';
import { decodeTable, openTable } from './index/parquet-read.js';
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
  /** The ETag of the object whose table was last installed (`accept`) or saved: what reloads and CAS compare. */
  private etag: string | null = null;
  /** The ETag of the table `load(true)`/`reload` last handed out, until `accept` (`undefined`: none). */
  private offered: string | null | undefined = undefined;
  /** The object whose table failed to decode after its load (`rejected`): not loaded again until it changes. */
  private rejectedEtag: string | null = null;
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

  /**
   * The stored index. `lazy` (the server's index): opened, the hot columns decoded now and the others read from the
   * open file on first use; else decoded whole before it resolves (tools that read every row, and must see a bad
   * file here, as before).
   */
  async load(lazy = false): Promise<IndexTable | null> {
    this.offered = undefined;
    const file = await this.store.openIndex(this.call);
    if (file === null) {
      this.took(lazy, null);
      return null;
    }
    if (file.etag === this.rejectedEtag) {
      closeSync(file.fd);
      throw new Error('index object does not decode (unchanged since it failed)');
    }
    const table = await openTable(file.fd, file.size, nextTurn);
    if (!lazy) await table.decodeAll(nextTurn); // on failure the table has closed its file
    this.took(lazy, file.etag);
    return table;
  }

  /**
   * A whole decode (tools) owns its table at once; a lazy one's ETag counts only once the index installed the table
   * (`accept`): a table it could not take (its pending writes hit a bad chunk) leaves the old ETag, so the next reload
   * opens the object again and the next flush's CAS cannot overwrite rows it never merged.
   */
  private took(lazy: boolean, etag: string | null): void {
    if (lazy) this.offered = etag;
    else this.etag = etag;
  }

  accept(): void {
    if (this.offered !== undefined) this.etag = this.offered;
    this.offered = undefined;
  }

  rejected(): void {
    this.rejectedEtag = this.etag;
  }

  async reload(): Promise<IndexTable | null | 'unchanged'> {
    this.offered = undefined;
    if ((await this.store.indexEtag(this.call)) === this.etag) return 'unchanged';
    const file = await this.store.openIndex(this.call);
    if ((file?.etag ?? null) === this.etag) {
      if (file !== null) closeSync(file.fd);
      return 'unchanged';
    }
    if (file === null) {
      this.offered = null;
      return null;
    }
    const table = await openTable(file.fd, file.size, nextTurn);
    this.offered = file.etag;
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
