import { ApiError } from '../api/client';

/** What went wrong, in words: a missing scope, a rate limit, an unreachable server or the server's own detail. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const scope = error.missingScope;
    if (scope) return `This needs the ${scope} scope, which your credential does not have. ${error.detail}`;
    if (error.status === 429) return `Too many requests: ${error.detail}`;
    if (error.status >= 500) return `The server could not answer (${error.status}): ${error.detail}`;
    return error.detail;
  }
  if (error instanceof TypeError) return 'Could not reach the server. Check your connection and try again.';
  return error instanceof Error ? error.message : String(error);
}

export function ErrorMessage({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  return (
    <div className="notice notice-error" role="alert">
      <strong>{title}.</strong> {errorText(error)}
    </div>
  );
}
