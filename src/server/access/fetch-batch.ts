/**
 * Batch fetch (CONTRACT §18.2 `POST /api/papers/fetch`, §19 `POST /api/downloader/fetch`): each item is parsed
 * (an id, a DOI, an arxiv.org or doi.org URL), resolved (§11.1) and triggered as its `GET …/<kind>` would be. Every
 * failure — an invalid item, a resolution error, a failed or cooling-down job — belongs to its item; the batch
 * itself never fails for an item.
 */
import { isDomainError } from '../../shared/domain-errors.js';
import { parsePaperRef, type PaperRefKind } from '../../shared/paper-ref.js';
import type { AccessKind } from './engine.js';
import type { PaperAccess } from './service.js';
import type { SnapshotState } from './snapshot.js';

/** Items resolved at once: resolution waits on the arXiv limiter and OpenAlex, which pace the requests anyway. */
const RESOLVING_AT_ONCE = 8;

export interface FetchItemResult {
  /** The item as sent. */
  readonly input: string;
  readonly refKind: PaperRefKind;
  /** Canonical id with version once resolved, else `null`. */
  readonly resolvedId: string | null;
  /** The snapshot state of the trigger (`cached`, `queued`, `running`, `failed`, …), `null` when unresolved. */
  readonly state: SnapshotState | null;
  /** The item's failure text (the domain error's message, or the failed job's detail), else `null`. */
  readonly error: string | null;
  /** This item started a new job. */
  readonly created: boolean;
  /** This item started or joined a job in progress. */
  readonly enqueued: boolean;
}

export interface FetchBatchInput {
  readonly items: readonly string[];
  readonly kind: AccessKind;
  /** Whose DOI lookups these are (the resolver's per-caller limit). */
  readonly caller: string | null;
}

/** Runs every item; the results are in request order. */
export async function fetchBatch(access: PaperAccess, input: FetchBatchInput): Promise<FetchItemResult[]> {
  const results = new Array<FetchItemResult>(input.items.length);
  let next = 0;
  const worker = async () => {
    while (next < input.items.length) {
      const index = next++;
      results[index] = await fetchItem(access, input.items[index]!, input);
    }
  };
  await Promise.all(Array.from({ length: Math.min(RESOLVING_AT_ONCE, input.items.length) }, worker));
  return results;
}

async function fetchItem(access: PaperAccess, item: string, input: FetchBatchInput): Promise<FetchItemResult> {
  const ref = parsePaperRef(item);
  const failed = (error: string, resolvedId: string | null = null, state: SnapshotState | null = null) => ({
    input: item,
    refKind: ref.kind,
    resolvedId,
    state,
    error,
    created: false,
    enqueued: false,
  });
  if (ref.kind === 'invalid') return failed(ref.problem);
  const outcome = await access.resolver.resolve(ref.ref, input.caller);
  if (!outcome.ok) return failed(outcome.failure.error.message);
  const resolvedId = outcome.resolution.id.id;
  try {
    const result = await access.enqueue(outcome.resolution, input.kind);
    return {
      input: item,
      refKind: ref.kind,
      resolvedId,
      state: result.snapshot.state,
      error: result.error,
      created: result.created,
      enqueued: result.enqueued,
    };
  } catch (err) {
    // The store could not be asked (a 500 for a single GET): this item failed, the others stand.
    if (isDomainError(err)) return failed(err.message, resolvedId);
    throw err;
  }
}
