/**
 * How a paper-access job (or an ingest step running the same machinery) failed (CONTRACT §11.2–11.3).
 */
import { isDomainError } from '../../shared/domain-errors.js';
import { ObjectStoreError } from '../storage/object-store.js';

export type FailureKind = 'fatal' | 'retryable' | 'daily_limit';
export type FailureStage = 'fetch' | 'convert';

export class JobFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly stage: FailureStage,
    message: string,
    readonly extra: {
      /** arXiv does not have the paper: the trigger answers 404. */
      readonly notFound?: boolean;
      /** `daily_limit`: when the earliest parser token recovers (epoch ms). */
      readonly retryAt?: number;
    } = {},
  ) {
    super(message);
    this.name = 'JobFailure';
  }
}

/** What an error of the upload path (`src/server/papers`) means for a server-side write. */
export type PapersErrorClass = 'rejected' | 'conflict' | 'no_pdf' | 'store';

/**
 * Classifies an error thrown by the papers upload functions: the payload was refused (`rejected`), different
 * content is stored (`conflict`), the PDF is missing (`no_pdf`), anything else is a store or internal failure.
 */
export function classifyPapersError(err: unknown): PapersErrorClass {
  if (!isDomainError(err)) return 'store';
  switch (err.kind) {
    case 'invalid_input':
    case 'too_large':
      return 'rejected';
    case 'conflict':
      return 'conflict';
    case 'not_found':
      return 'no_pdf';
    default:
      return 'store';
  }
}

/** The message of a store failure, whichever layer wrapped it. */
export function storeErrorText(err: unknown): string {
  const message = (err as Error).message ?? String(err);
  if (err instanceof ObjectStoreError) return `object store error: ${message}`;
  return message.startsWith('object store error') ? message : `object store error: ${message}`;
}
