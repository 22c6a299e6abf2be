/**
 * Gives typed arrays' memory back at once: their buffers are detached (`ArrayBuffer.prototype.transfer(0)`), not
 * left for the collector, which frees a buffer only when it collects its last view — large transient arrays would
 * otherwise stay resident for a while after a load or a decode. The arrays (and every view of their buffers) are
 * empty afterwards; the caller must not read them.
 */
export function freeNow(...arrays: readonly ArrayBufferView[]): void {
  for (const a of arrays) (a.buffer as Detachable).transfer(0);
}

/** `ArrayBuffer.prototype.transfer` (ES2024, in Node 24; the project's `lib` is ES2023). */
type Detachable = ArrayBuffer & { transfer(length: number): ArrayBuffer };
