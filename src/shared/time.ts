/** RFC 3339 UTC with second precision (CONTRACT §0.2): `2026-05-01T12:00:00Z`. Takes a Date or epoch ms. */
export function rfc3339(at: Date | number): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
