/**
 * `index/papers.parquet` (CONTRACT §4.1): encoding, decoding, and the store-backed persistence with
 * compare-and-swap and the re-apply-on-412 merge of §4.2.
 */
import { parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { Logger } from 'pino';
import type { ObjectStore } from '../storage/object-store.js';
import { applyPending, type IndexPersistence, type IndexRow, type RowMutation } from './catalog.js';

type ColumnType = 'STRING' | 'BOOLEAN' | 'INT32' | 'INT64' | 'TIMESTAMP';

interface ColumnSpec {
  readonly name: keyof IndexRow;
  readonly type: ColumnType;
  readonly nullable: boolean;
}

/** The §4.1 schema, in column order. */
export const INDEX_COLUMNS: readonly ColumnSpec[] = [
  { name: 'preprint_id', type: 'STRING', nullable: false },
  { name: 'key', type: 'STRING', nullable: true },
  { name: 'yymm', type: 'STRING', nullable: true },
  { name: 'has_pdf', type: 'BOOLEAN', nullable: true },
  { name: 'has_md', type: 'BOOLEAN', nullable: true },
  { name: 'has_json', type: 'BOOLEAN', nullable: true },
  { name: 'image_count', type: 'INT32', nullable: true },
  { name: 'pdf_size_bytes', type: 'INT64', nullable: true },
  { name: 'md_size_bytes', type: 'INT64', nullable: true },
  { name: 'images_size_bytes', type: 'INT64', nullable: true },
  { name: 'pdf_sha256', type: 'STRING', nullable: true },
  { name: 'md_sha256', type: 'STRING', nullable: true },
  { name: 'pdf_etag', type: 'STRING', nullable: true },
  { name: 'md_etag', type: 'STRING', nullable: true },
  { name: 'pdf_uploaded_at', type: 'TIMESTAMP', nullable: true },
  { name: 'md_uploaded_at', type: 'TIMESTAMP', nullable: true },
  { name: 'images_uploaded_at', type: 'TIMESTAMP', nullable: true },
  { name: 'updated_at', type: 'TIMESTAMP', nullable: false },
  { name: 'title', type: 'STRING', nullable: true },
  { name: 'authors', type: 'STRING', nullable: true },
  { name: 'categories', type: 'STRING', nullable: true },
  { name: 'doi', type: 'STRING', nullable: true },
  { name: 'openalex_id', type: 'STRING', nullable: true },
  { name: 'publication_date', type: 'STRING', nullable: true },
];

function encodeValue(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'INT64':
      return BigInt(Math.trunc(Number(value)));
    case 'INT32':
      return Math.trunc(Number(value));
    case 'TIMESTAMP':
      return value instanceof Date ? value : new Date(String(value));
    case 'BOOLEAN':
      return Boolean(value);
    case 'STRING':
      return String(value);
  }
}

/** Serialises the whole table (SNAPPY), rows sorted by `preprint_id`. */
export function encodeIndex(rows: readonly IndexRow[]): Buffer {
  const sorted = [...rows].sort((a, b) => (a.preprint_id < b.preprint_id ? -1 : a.preprint_id > b.preprint_id ? 1 : 0));
  const columnData = INDEX_COLUMNS.map((c) => ({
    name: c.name,
    type: c.type,
    nullable: c.nullable,
    data: sorted.map((r) => encodeValue(c.type, r[c.name])),
  }));
  const buffer = parquetWriteBuffer({ columnData: columnData as never, codec: 'SNAPPY' });
  return Buffer.from(buffer);
}

function decodeValue(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'INT64':
    case 'INT32':
      return Number(value);
    case 'TIMESTAMP':
      return value instanceof Date ? value : new Date(Number(value));
    case 'BOOLEAN':
      return Boolean(value);
    case 'STRING':
      return String(value);
  }
}

/** Parses the index; throws on a corrupt file. Missing columns read as null (older writers). */
export async function decodeIndex(bytes: Buffer): Promise<IndexRow[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const raw = await parquetReadObjects({ file });
  return raw.map((r) => {
    const row: Record<string, unknown> = {};
    for (const c of INDEX_COLUMNS) row[c.name] = decodeValue(c.type, r[c.name]);
    if (typeof row['preprint_id'] !== 'string') throw new Error('index row without preprint_id');
    for (const flag of ['has_pdf', 'has_md', 'has_json'] as const) row[flag] = row[flag] === true;
    row['image_count'] = (row['image_count'] as number | null) ?? 0;
    row['updated_at'] ??= new Date(0);
    return row as unknown as IndexRow;
  });
}

const MAX_FLUSH_ATTEMPTS = 5;

/** The index object on the store (S3 pdf bucket or `<raw>/index/`), written with CAS. */
/** Index calls that get no answer within this are failures (a dead store must not hang the start or the timers). */
const INDEX_CALL_TIMEOUT_MS = 10_000;

export class StoreIndexPersistence implements IndexPersistence {
  private etag: string | null = null;

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

  async load(): Promise<IndexRow[] | null> {
    const obj = await this.store.readIndex(this.call);
    if (obj === null) {
      this.etag = null;
      return null;
    }
    const rows = await decodeIndex(obj.bytes);
    this.etag = obj.etag;
    return rows;
  }

  async reload(): Promise<IndexRow[] | null | 'unchanged'> {
    if ((await this.store.indexEtag(this.call)) === this.etag) return 'unchanged';
    const obj = await this.store.readIndex(this.call);
    if ((obj?.etag ?? null) === this.etag) return 'unchanged';
    if (obj === null) {
      this.etag = null;
      return null;
    }
    const rows = await decodeIndex(obj.bytes);
    this.etag = obj.etag;
    return rows;
  }

  async save(
    rows: readonly IndexRow[],
    pending: ReadonlyMap<string, RowMutation>,
  ): Promise<readonly IndexRow[] | 'retry'> {
    let current: readonly IndexRow[] = rows;
    const local = new Map(rows.map((r) => [r.preprint_id, r]));
    for (let attempt = 1; attempt <= MAX_FLUSH_ATTEMPTS; attempt++) {
      const bytes = encodeIndex(current);
      // The answer comes after the whole body: allow 1 s per MiB on top of the base timeout.
      const etag = await this.store.writeIndex(bytes, this.etag, {
        timeoutMs: this.timeoutMs + Math.ceil(bytes.length / 1_048_576) * 1000,
      });
      if (etag !== null) {
        this.etag = etag;
        return current;
      }
      // Someone else wrote the index: take theirs and re-apply our pending mutations.
      this.logger.info({ attempt }, 'metadata index changed remotely; merging local changes');
      const remote = await this.store.readIndex(this.call);
      this.etag = remote?.etag ?? null;
      current = applyPending(remote ? await decodeIndex(remote.bytes) : [], pending, local);
    }
    return 'retry';
  }
}
