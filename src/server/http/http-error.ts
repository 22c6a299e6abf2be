/**
 * An answer only the HTTP layer can give (a wiring fault of the route table, say): a status and a `detail`.
 * Domain code never throws it; it throws the domain errors of `src/shared/domain-errors.ts`.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}
