/**
 * How a paper-access job (or an ingest step running the same machinery) failed (CONTRACT §11.2–11.3).
 */
import { isDomainError, isObjectStoreError } from '../../shared/domain-errors.js';

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

/** The message of a store failure: the store's own (`object store error: …`), any other error's prefixed alike. */
export function storeErrorText(err: unknown): string {
  if (isObjectStoreError(err)) return err.message;
  return `object store error: ${(err as Error).message ?? String(err)}`;
}
