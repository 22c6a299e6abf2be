/**
 * A string column of one row group as the file holds it — its PLAIN values, UTF-8 bytes behind a 4-byte length —
 * read without making a string: what a flush posts to the encoder for rows still as the file has them (issue 25:
 * making those strings first cost the flush ~280 MiB and its longest stalls).
 */
export interface PlainText {
  /** The values one after the other, each a little-endian 4-byte length, then its bytes. */
  readonly bytes: Uint8Array;
  /** Row `r`'s value is `bytes[offsets[r] + 4, offsets[r + 1])`; a null value takes no bytes. */
  readonly offsets: Int32Array;
  /** 1 where the row's value is null. */
  readonly nulls: Uint8Array;
}
