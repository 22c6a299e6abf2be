/** The §4.2 merge: local pending row mutations re-applied on top of a remote index. */
import type { RowMutation } from './row.js';
import type { IndexTable } from './table.js';

/**
 * Re-applies pending mutations on top of `remote` (changed in place and returned): local values win for the
 * columns a mutation sets; a row missing remotely is taken from `local` with the mutation on top.
 */
export function applyPending(
  remote: IndexTable,
  pending: ReadonlyMap<string, RowMutation>,
  local: IndexTable,
): IndexTable {
  for (const [id, mutation] of pending) {
    const i = remote.indexOf(id);
    if (i !== undefined) {
      remote.set(i, mutation);
      continue;
    }
    const j = local.indexOf(id);
    if (j !== undefined) remote.upsert({ ...local.row(j), ...definedOnly(mutation), preprint_id: id });
  }
  return remote;
}

/** The mutation without its `undefined` entries (an absent column is not "set to undefined"). */
export function definedOnly(m: RowMutation): RowMutation {
  return Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as RowMutation;
}
