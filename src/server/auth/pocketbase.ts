/**
 * PocketBase's error texts (CONTRACT §7.2, §7.9). The routes under `/api/collections/` and `/api/admin/` answer
 * errors in PocketBase's shape `{status, message, data: {}}`; the message is the domain error's.
 */
export const PB_AUTH_FAILED = 'Failed to authenticate.';
export const PB_NOT_ALLOWED = 'This account is not authorized to sign in.';
export const PB_TOKEN_REQUIRED = 'The request requires valid record authorization token.';
export const PB_NOT_FOUND = "The requested resource wasn't found.";
export const PB_SUPERUSER_REQUIRED = 'The request requires valid superuser authorization token.';

/** The token of a PocketBase-compatible route: `Bearer <t>` or the raw token (the PocketBase SDK sends it raw). */
export function pbToken(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const value = authorization.trim();
  const match = /^Bearer\s+(.+)$/i.exec(value);
  const token = match ? match[1]!.trim() : value;
  return token === '' ? null : token;
}
