/** Milliseconds since the epoch; injected so tests control time without sleeping. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export { rfc3339 } from '../../shared/time.js';

/** PocketBase's timestamp format: `2026-05-01 12:00:00.000Z`. */
export function pbDate(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ');
}
