/** Milliseconds since the epoch; injected so tests control time without sleeping. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** RFC 3339 UTC with second precision (CONTRACT §0.2): `2026-05-01T12:00:00Z`. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** PocketBase's timestamp format: `2026-05-01 12:00:00.000Z`. */
export function pbDate(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ');
}
