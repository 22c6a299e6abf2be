/**
 * Snappy decoding of metadata-index pages (run: `npx vitest run --config bench/support/vitest.config.ts snappy`).
 *
 * Encodes a generated 500,000-row index (`encodeTableSync`, the file the service writes), collects every SNAPPY
 * page of it, and decodes all pages with the service's decoder (`src/server/papers/index/snappy.ts`) and with
 * hyparquet's `snappyUncompress`, alternating, best of 7 rounds each. Both outputs are checked byte for byte. The
 * figure decides which decoder the index reader uses: hyparquet's unless it is slower.
 */
import { parquetMetadata, snappyUncompress as hyparquetUncompress } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { expect, test } from 'vitest';
import { encodeTableSync } from '../src/server/papers/index/encoder.js';
import { snappyUncompress as ownUncompress } from '../src/server/papers/index/snappy.js';
import { generateTable } from './support/papers-index-gen.js';
import { machine, mib, ms, report } from './support/papers-util.js';

const ROWS = 500_000;
const ROUNDS = 7;

interface Page {
  readonly column: string;
  readonly body: Uint8Array;
  readonly size: number;
}

/** Every data page of the file with its uncompressed size (all SNAPPY, as the service writes them). */
function pagesOf(file: Uint8Array): Page[] {
  const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(buffer);
  const view = new DataView(buffer);
  const pages: Page[] = [];
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const meta = chunk.meta_data!;
      expect(meta.codec).toBe('SNAPPY');
      const reader = { view, offset: Number(meta.data_page_offset) };
      const end = reader.offset + Number(meta.total_compressed_size);
      while (reader.offset < end) {
        const header = parquetHeader(reader);
        const body = new Uint8Array(buffer, reader.offset, header.compressed_page_size);
        reader.offset += header.compressed_page_size;
        pages.push({ column: meta.path_in_schema[0]!, body, size: header.uncompressed_page_size });
      }
    }
  }
  return pages;
}

function decodeAll(pages: readonly Page[], decode: (input: Uint8Array, output: Uint8Array) => void): number {
  const t0 = performance.now();
  for (const p of pages) decode(p.body, new Uint8Array(p.size));
  return performance.now() - t0;
}

test('snappy: own decoder vs hyparquet on index pages', () => {
  report(`snappy decode — ${machine()}`);
  const file = encodeTableSync(generateTable(ROWS));
  const pages = pagesOf(file);
  const compressed = pages.reduce((n, p) => n + p.body.length, 0);
  const uncompressed = pages.reduce((n, p) => n + p.size, 0);
  report(`index: ${ROWS} rows, ${mib(file.length)}, ${pages.length} pages, ${mib(compressed)} → ${mib(uncompressed)}`);

  for (const p of pages) {
    const own = new Uint8Array(p.size);
    const theirs = new Uint8Array(p.size);
    ownUncompress(p.body, own);
    hyparquetUncompress(p.body, theirs);
    expect(Buffer.from(own).equals(Buffer.from(theirs))).toBe(true);
  }

  let own = Infinity;
  let theirs = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    own = Math.min(own, decodeAll(pages, ownUncompress));
    theirs = Math.min(theirs, decodeAll(pages, hyparquetUncompress));
  }
  const rate = (t: number) => `${(uncompressed / 1024 / 1024 / (t / 1000)).toFixed(0)} MiB/s`;
  report(`own decoder:       ${ms(own)} (${rate(own)})`);
  report(`hyparquet decoder: ${ms(theirs)} (${rate(theirs)})`);
  report(`hyparquet / own time: ${(theirs / own).toFixed(2)} (> 1 means hyparquet is slower)`);

  // Per column family: the hex digests are long literals, the ids and timestamps compress.
  for (const column of ['preprint_id', 'pdf_sha256', 'updated_at']) {
    const subset = pages.filter((p) => p.column === column);
    let a = Infinity;
    let b = Infinity;
    for (let round = 0; round < ROUNDS; round++) {
      a = Math.min(a, decodeAll(subset, ownUncompress));
      b = Math.min(b, decodeAll(subset, hyparquetUncompress));
    }
    report(`  ${column}: own ${ms(a)}, hyparquet ${ms(b)}, ratio ${(b / a).toFixed(2)}`);
  }
  report(`peak RSS: ${mib(process.resourceUsage().maxRSS * 1024)}`);
});
