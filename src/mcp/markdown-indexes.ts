/**
 * The `TextIndex` of the markdowns `paper_markdown` read lately, by route path and ETag: with it a piece is read
 * as a byte range (a 40,000-character piece of a 2 MB paper is at most 160 KB) instead of the whole markdown. An
 * index only says where to cut: every piece is read from the store, and the range's answer must carry the indexed
 * ETag and size, so a changed markdown is never cut with a stale index. Bounded by an estimate of its memory,
 * least recently used out first.
 */
import type { ApiReply } from './caller.js';
import { indexText, type TextIndex } from './text-window.js';

/** An index of the markdown that the answer with `etag` held. */
export interface KnownMarkdown {
  readonly etag: string;
  readonly index: TextIndex;
}

/** Bytes an entry is counted as: the path, the ETag and the map's own, plus 8 a checkpoint. */
const entryBytes = (path: string, known: KnownMarkdown): number =>
  200 + 2 * (path.length + known.etag.length) + 8 * known.index.checkpoints.length;

/** What the indexes of one server may hold (a 2 MB paper's entry is about 500 bytes). */
export const MARKDOWN_INDEXES_BYTES = 4 * 1024 * 1024;

export class MarkdownIndexes {
  private readonly entries = new Map<string, KnownMarkdown>();
  private bytes = 0;

  constructor(private readonly maxBytes = MARKDOWN_INDEXES_BYTES) {}

  get(path: string): KnownMarkdown | undefined {
    const known = this.entries.get(path);
    if (known !== undefined) {
      this.entries.delete(path);
      this.entries.set(path, known);
    }
    return known;
  }

  /** Indexes the whole markdown of a 200 answer that has a strong ETag (else forgets the path). */
  remember(path: string, reply: ApiReply): void {
    this.forget(path);
    const etag = reply.header('etag');
    if (etag === undefined || etag.startsWith('W/')) return;
    const index = indexText(reply.body);
    if (index === null) return;
    const known = { etag, index };
    this.entries.set(path, known);
    this.bytes += entryBytes(path, known);
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entryBytes(oldest, entry);
    }
  }

  private forget(path: string): void {
    const known = this.entries.get(path);
    if (known === undefined) return;
    this.entries.delete(path);
    this.bytes -= entryBytes(path, known);
  }

  /** The whole text's bytes `start`.. of a 206 answer, when it is a range of the indexed markdown. */
  static slice(reply: ApiReply, known: KnownMarkdown, start: number): { bytes: Buffer; toEnd: boolean } | null {
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(reply.header('content-range') ?? '');
    if (range === null || reply.header('etag') !== known.etag) return null;
    const [first, last, size] = [Number(range[1]), Number(range[2]), Number(range[3])];
    if (first !== start || size !== known.index.size || reply.body.length !== last - first + 1) return null;
    return { bytes: reply.body, toEnd: last + 1 === size };
  }
}
