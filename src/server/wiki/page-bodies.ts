/**
 * The `GET /api/pages/{id}` bodies of the served snapshot, serialized once. A snapshot never changes, so a page's
 * body is the same bytes until the next snapshot: sending them as UTF-8 skips `JSON.stringify` and the socket's
 * UTF-8 encoding of the string, together ~27% of the route's CPU (docs/decisions.md, "page bodies"). Bounded by
 * bytes, the oldest entry first out; the snapshot is held weakly, so a replaced wiki is not kept alive by its bodies.
 */
import type { WikiSnapshot } from '../../wiki/index.js';

export class PageBodies {
  private snapshot: WeakRef<WikiSnapshot> | undefined;
  private readonly bodies = new Map<string, Buffer>();
  private bytes = 0;

  /** `maxBytes`: all bodies held; a body larger than `maxEntryBytes` is sent but not kept. */
  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes: number,
  ) {}

  /** The body of page `id` in `snapshot` as JSON bytes, or `null` when `render` finds no such page. */
  get(snapshot: WikiSnapshot, id: string, render: () => object | null): Buffer | null {
    if (this.snapshot?.deref() !== snapshot) {
      this.bodies.clear();
      this.bytes = 0;
      this.snapshot = new WeakRef(snapshot);
    }
    const held = this.bodies.get(id);
    if (held !== undefined) return held;
    const value = render();
    if (value === null) return null;
    const body = Buffer.from(JSON.stringify(value));
    if (body.length <= this.maxEntryBytes) {
      for (const [oldest, old] of this.bodies) {
        if (this.bytes + body.length <= this.maxBytes) break;
        this.bodies.delete(oldest);
        this.bytes -= old.length;
      }
      this.bodies.set(id, body);
      this.bytes += body.length;
    }
    return body;
  }

  /** Bytes held (tests). */
  get heldBytes(): number {
    return this.bytes;
  }
}
