/**
 * Daily-limit recovery times (CONTRACT §11.5–11.6): 00:01 of the next calendar day in the server's local time
 * zone (`TZ`), and its RFC 3339 spelling with the local offset.
 */

/** Epoch ms of 00:01 local time on the calendar day after `nowMs`. */
export function nextLocalDayAt0001(nowMs: number): number {
  const d = new Date(nowMs);
  d.setHours(24, 1, 0, 0);
  return d.getTime();
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `2026-05-02T00:01:00+08:00`: local wall time with its UTC offset, second precision. */
export function rfc3339Local(ms: number): string {
  const d = new Date(ms);
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` +
    `T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}
