/** A paper index "loaded" from rows in bulk, as a load of a file in id order gives (the index property tests). */
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
