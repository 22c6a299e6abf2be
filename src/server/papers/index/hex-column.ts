/**
 * A string column of hex digests (sha256) or ETags, packed: values of the usual shape (`digits` lowercase hex
 * digits, optionally double-quoted) take `digits / 2` bytes; others are kept as strings on the side.
 */
const HEX = '0123456789abcdef';
/** A hex digit's value by its character code (every byte value: no read out of bounds), else -1. */
const NIBBLE = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) NIBBLE[HEX.charCodeAt(i)] = i;

/** Per-row state. */
const NULL = 0;
const PACKED = 1;
const OTHER = 2;

export interface HexShape {
  readonly digits: number;
  readonly quoted: boolean;
}

export class HexColumn {
  readonly width: number;
  bytes: Uint8Array;
  state: Uint8Array;
  /** Values not of the packed shape, by row. */
  other = new Map<number, string>();

  constructor(
    readonly shape: HexShape,
    capacity: number,
  ) {
    this.width = shape.digits / 2;
    this.bytes = new Uint8Array(capacity * this.width);
    this.state = new Uint8Array(capacity);
  }

  grow(capacity: number): void {
    const bytes = new Uint8Array(capacity * this.width);
    bytes.set(this.bytes.subarray(0, Math.min(this.bytes.length, bytes.length)));
    const state = new Uint8Array(capacity);
    state.set(this.state.subarray(0, Math.min(this.state.length, capacity)));
    this.bytes = bytes;
    this.state = state;
  }

  get(row: number): string | null {
    const s = this.state[row];
    if (s === PACKED) {
      let out = this.shape.quoted ? '"' : '';
      const base = row * this.width;
      for (let i = 0; i < this.width; i++) {
        const b = this.bytes[base + i]!;
        out += HEX[b >> 4]! + HEX[b & 15]!;
      }
      return this.shape.quoted ? out + '"' : out;
    }
    return s === OTHER ? (this.other.get(row) ?? null) : null;
  }

  set(row: number, value: string | null): void {
    if (this.state[row] === OTHER) this.other.delete(row);
    if (value === null) {
      this.state[row] = NULL;
      return;
    }
    const q = this.shape.quoted ? 1 : 0;
    if (value.length === this.shape.digits + 2 * q && (!q || (value[0] === '"' && value.at(-1) === '"'))) {
      const base = row * this.width;
      let ok = true;
      for (let i = 0; i < this.width && ok; i++) {
        const hi = NIBBLE[value.charCodeAt(q + 2 * i)] ?? -1;
        const lo = NIBBLE[value.charCodeAt(q + 2 * i + 1)] ?? -1;
        if (hi < 0 || lo < 0) ok = false;
        else this.bytes[base + i] = (hi << 4) | lo;
      }
      if (ok) {
        this.state[row] = PACKED;
        return;
      }
    }
    this.state[row] = OTHER;
    this.other.set(row, value);
  }

  /**
   * Sets a row from UTF-8 bytes (`src[start, end)`) without making a string when they have the packed shape; as
   * their string otherwise.
   */
  setBytes(row: number, src: Buffer, start: number, end: number): void {
    const q = this.shape.quoted ? 1 : 0;
    if (end - start === this.shape.digits + 2 * q && (!q || (src[start] === 0x22 && src[end - 1] === 0x22))) {
      const base = row * this.width;
      let p = start + q;
      let ok = true;
      for (let i = 0; i < this.width; i++, p += 2) {
        const hi = NIBBLE[src[p]!]!;
        const lo = NIBBLE[src[p + 1]!]!;
        if (hi < 0 || lo < 0) {
          ok = false;
          break;
        }
        this.bytes[base + i] = (hi << 4) | lo;
      }
      if (ok) {
        if (this.state[row] === OTHER) this.other.delete(row);
        this.state[row] = PACKED;
        return;
      }
    }
    this.set(row, src.toString('utf8', start, end));
  }
}
