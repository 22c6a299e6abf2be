/** Display helpers: numbers, dates, durations, byte sizes. */

const number = new Intl.NumberFormat('en');
export const fmtNumber = (n: number): string => number.format(n);

const dateFmt = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric' });
const dateTimeFmt = new Intl.DateTimeFormat('en', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** Accepts RFC 3339 and PocketBase's `2026-05-01 12:00:00.000Z`. */
function parseTime(s: string | null | undefined): Date | null {
  if (!s) return null;
  const d = new Date(s.includes('T') ? s : s.replace(' ', 'T'));
  return Number.isNaN(d.getTime()) ? null : d;
}

export const fmtDate = (s: string | null | undefined): string => {
  const d = parseTime(s);
  return d ? dateFmt.format(d) : '—';
};
export const fmtDateTime = (s: string | null | undefined): string => {
  const d = parseTime(s);
  return d ? dateTimeFmt.format(d) : '—';
};

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 days ago", "in 2 months". */
export function fmtRelative(s: string | null | undefined, now = Date.now()): string {
  const d = parseTime(s);
  if (!d) return '—';
  const seconds = Math.round((d.getTime() - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') return relative.format(Math.round(seconds / size), unit);
  }
  return relative.format(0, 'second');
}

export function fmtBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '?';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function fmtDuration(seconds: number): string {
  const total = Math.round(seconds);
  if (total < 60) return `${total} s`;
  const m = Math.floor(total / 60);
  const s = total % 60;
  if (m < 60) return s ? `${m} min ${s} s` : `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** A countdown: "9:05" for 545 s, "1:02:03" past an hour; never negative. */
export function fmtCountdown(seconds: number): string {
  const total = Math.max(0, Math.ceil(seconds));
  const s = String(total % 60).padStart(2, '0');
  const m = Math.floor(total / 60);
  return m < 60 ? `${m}:${s}` : `${Math.floor(m / 60)}:${String(m % 60).padStart(2, '0')}:${s}`;
}
