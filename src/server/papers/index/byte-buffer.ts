/** A growable little-endian byte buffer for page encoding. */
export class ByteBuffer {
  bytes: Uint8Array;
  private view: DataView;
  offset = 0;

  constructor(capacity = 1 << 16) {
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
  }

  reset(): void {
    this.offset = 0;
  }

  ensure(extra: number): void {
    const needed = this.offset + extra;
    if (needed <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(needed, this.bytes.length * 2));
    next.set(this.bytes.subarray(0, this.offset));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.ensure(1);
    this.bytes[this.offset++] = v;
  }

  u32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.offset, v, true);
    this.offset += 4;
  }

  /** A non-negative or negative safe integer as int64. */
  i64(v: number): void {
    this.ensure(8);
    const hi = Math.floor(v / 4294967296);
    this.view.setUint32(this.offset, v - hi * 4294967296, true);
    this.view.setInt32(this.offset + 4, hi, true);
    this.offset += 8;
  }

  varint(v: number): void {
    while (v > 0x7f) {
      this.u8((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    this.u8(v);
  }

  append(src: Uint8Array): void {
    this.ensure(src.length);
    this.bytes.set(src, this.offset);
    this.offset += src.length;
  }

  data(): Uint8Array {
    return this.bytes.subarray(0, this.offset);
  }
}
