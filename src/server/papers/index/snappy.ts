/**
 * Snappy block format (the SNAPPY codec of Parquet pages), tuned for index pages that are mostly incompressible
 * hex: long literals are copied with `TypedArray.set`, and the compressor skips ahead faster the longer it finds
 * no match (as the reference implementation does). Kept instead of hyparquet's `snappyUncompress`, which copies
 * literals byte by byte: decoding a whole index is ~1.5× slower with it, digest pages ~11× (bench/snappy.bench.ts).
 */
const BLOCK = 1 << 16;
const HASH_BITS = 14;
/** Last position of each hash; stale entries (other blocks or calls) are rejected by the range check. */
const table = new Int32Array(1 << HASH_BITS);

const load32 = (a: Uint8Array, i: number) => a[i]! | (a[i + 1]! << 8) | (a[i + 2]! << 16) | (a[i + 3]! << 24);
const hash = (v: number) => Math.imul(v, 0x1e35a7bd) >>> (32 - HASH_BITS);

export function maxCompressedLength(n: number): number {
  return 32 + n + Math.ceil(n / 6);
}

/**
 * Compresses `input`. `store` writes it as literals only: valid Snappy at memcpy speed, for data known not to
 * compress (random hex digests, where chance 4-byte matches only cost time).
 */
export function snappyCompress(input: Uint8Array, store = false): Uint8Array {
  const out = new Uint8Array(maxCompressedLength(input.length));
  return out.subarray(0, snappyCompressInto(input, out, store));
}

/** `snappyCompress` into `out` (at least `maxCompressedLength(input.length)` bytes); returns the length written. */
export function snappyCompressInto(input: Uint8Array, out: Uint8Array, store = false): number {
  let op = writeVarint(out, input.length);

  const literal = (from: number, to: number) => {
    const len = to - from;
    if (len <= 0) return;
    const n = len - 1;
    if (n < 60) out[op++] = n << 2;
    else if (n < 0x100) {
      out[op++] = 60 << 2;
      out[op++] = n;
    } else if (n < 0x10000) {
      out[op++] = 61 << 2;
      out[op++] = n & 0xff;
      out[op++] = n >>> 8;
    } else {
      out[op++] = 62 << 2;
      out[op++] = n & 0xff;
      out[op++] = (n >>> 8) & 0xff;
      out[op++] = n >>> 16;
    }
    out.set(input.subarray(from, to), op);
    op += len;
  };
  const copy = (offset: number, len: number) => {
    while (len >= 68) {
      out[op++] = (63 << 2) | 2;
      out[op++] = offset & 0xff;
      out[op++] = offset >>> 8;
      len -= 64;
    }
    if (len > 64) {
      out[op++] = (59 << 2) | 2;
      out[op++] = offset & 0xff;
      out[op++] = offset >>> 8;
      len -= 60;
    }
    if (len < 12 && offset < 2048) {
      out[op++] = ((offset >>> 8) << 5) | ((len - 4) << 2) | 1;
      out[op++] = offset & 0xff;
    } else {
      out[op++] = ((len - 1) << 2) | 2;
      out[op++] = offset & 0xff;
      out[op++] = offset >>> 8;
    }
  };

  for (let bs = 0; bs < input.length; bs += BLOCK) {
    const be = Math.min(bs + BLOCK, input.length);
    let next = bs;
    if (!store && be - bs >= 15) {
      const limit = be - 15;
      let ip = bs + 1;
      let skip = 32;
      for (;;) {
        let candidate = -1;
        while (ip <= limit) {
          const v = load32(input, ip);
          const h = hash(v);
          const c = table[h]!;
          table[h] = ip;
          if (c >= bs && c < ip && load32(input, c) === v) {
            candidate = c;
            break;
          }
          ip += skip++ >> 5;
        }
        if (candidate < 0) break;
        skip = 32;
        literal(next, ip);
        let len = 4;
        while (ip + len < be && input[candidate + len] === input[ip + len]) len++;
        copy(ip - candidate, len);
        ip += len;
        next = ip;
        if (ip > limit) break;
        table[hash(load32(input, ip - 1))] = ip - 1;
      }
    }
    literal(next, be);
  }
  return op;
}

function writeVarint(out: Uint8Array, n: number): number {
  let op = 0;
  while (n > 0x7f) {
    out[op++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[op++] = n;
  return op;
}

export function snappyUncompress(input: Uint8Array, output: Uint8Array): void {
  let pos = 0;
  while (pos < input.length && input[pos]! >= 0x80) pos++;
  pos++;
  let op = 0;
  while (pos < input.length) {
    const c = input[pos++]!;
    const kind = c & 3;
    if (kind === 0) {
      let len = (c >>> 2) + 1;
      if (len > 60) {
        const bytes = len - 60;
        len = 0;
        for (let k = 0; k < bytes; k++) len += input[pos + k]! * 2 ** (8 * k);
        len += 1;
        pos += bytes;
      }
      if (pos + len > input.length || op + len > output.length) throw new Error('snappy: literal out of range');
      // Below ~64 bytes a plain loop beats creating a subarray view for `set`.
      if (len > 64) output.set(input.subarray(pos, pos + len), op);
      else for (let k = 0; k < len; k++) output[op + k] = input[pos + k]!;
      pos += len;
      op += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      len = ((c >>> 2) & 7) + 4;
      offset = ((c >>> 5) << 8) | input[pos++]!;
    } else if (kind === 2) {
      len = (c >>> 2) + 1;
      offset = input[pos]! | (input[pos + 1]! << 8);
      pos += 2;
    } else {
      len = (c >>> 2) + 1;
      offset = (input[pos]! | (input[pos + 1]! << 8) | (input[pos + 2]! << 16) | (input[pos + 3]! << 24)) >>> 0;
      pos += 4;
    }
    if (offset === 0 || offset > op || op + len > output.length) throw new Error('snappy: copy out of range');
    if (offset >= len && len > 64) output.copyWithin(op, op - offset, op - offset + len);
    else for (let k = 0; k < len; k++) output[op + k] = output[op - offset + k]!;
    op += len;
  }
  if (op !== output.length) throw new Error('snappy: length mismatch');
}
