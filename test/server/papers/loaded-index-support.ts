/**
 * A paper index "loaded" from rows in bulk, as a load of a file in id order gives, and the plain sorts its orders are
 * checked against (the index property tests).
 */
import { IndexTable } from '../../../src/server/papers/index/table.js';
import type { IndexRow } from '../../../src/server/papers/index/row.js';
import type { IndexPersistence } from '../../../src/server/papers/paper-index.js';

/** `rows` decoded in bulk into a table, its id lookups built as after a load. */
export function bulkTable(rows: readonly IndexRow[]): IndexTable {
  const table = new IndexTable(1);
  table.allocate(rows.length);
  rows.forEach((r, i) => {
    table.ids[i] = r.preprint_id;
    for (const [column, value] of Object.entries(r)) if (column !== 'preprint_id') table.setCell(i, column, value);
  });
  table.indexRows();
  return table;
}

/** A persistence whose object is `rows` decoded in bulk; reloads find it unchanged, saves store. */
export const loadedFrom = (rows: readonly IndexRow[]): IndexPersistence => ({
  load: () => Promise.resolve(bulkTable(rows)),
  reload: () => Promise.resolve('unchanged'),
  save: () => Promise.resolve('stored'),
});

/** Rows in id order. */
export const byId = (a: IndexRow, b: IndexRow): number => (a.preprint_id < b.preprint_id ? -1 : 1);

const time = (d: Date | null) => (d === null ? -Infinity : d.getTime());

/** The ids the parser queue holds, by a plain sort: a PDF and no markdown, newest upload first (none last), by id. */
export const plainNeedsParser = (rows: readonly IndexRow[]): string[] =>
  rows
    .filter((r) => r.has_pdf && !r.has_md)
    .sort((a, b) => time(b.pdf_uploaded_at) - time(a.pdf_uploaded_at) || byId(a, b))
    .map((r) => r.preprint_id);

/** The ids in the `updated_at` listing order, by a plain sort: newest first, then by id. */
export const plainByUpdated = (rows: readonly IndexRow[]): string[] =>
  [...rows].sort((a, b) => b.updated_at.getTime() - a.updated_at.getTime() || byId(a, b)).map((r) => r.preprint_id);
