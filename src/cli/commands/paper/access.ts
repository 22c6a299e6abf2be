/** Shared pieces of `paper get` / `paper status` (CONTRACT §16.6): id encoding, notes, eta line, error rendering. */
import type { JobSnapshot } from '../../../shared/api/jobs.js';
import type { TransportResponse } from '../../http/transport.js';

export const ASSET_KINDS = ['markdown', 'pdf'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];

/** Trimmed, a leading `/` removed, percent-encoded except `/` and `:`. */
export function encodePaperId(raw: string): string {
  return encodeURIComponent(raw.trim().replace(/^\/+/, '')).replace(/%2F/gi, '/').replace(/%3A/gi, ':');
}

/** JSON with sorted keys at every level, indented by 2. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, sortKeys(record[key])]),
    );
  }
  return value;
}

/** A body for stderr: sorted, indented JSON when it parses, else the raw text. */
export function renderBody(text: string): string {
  try {
    return sortedJson(JSON.parse(text));
  } catch {
    return text;
  }
}

/** `<title>: HTTP <code> <reason>` and the body. */
export function renderHttpError(title: string, status: number, reason: string, body: string): string {
  const rendered = renderBody(body).trimEnd();
  return `${title}: HTTP ${status} ${reason}`.trimEnd() + '\n' + (rendered === '' ? '' : `${rendered}\n`);
}

/** Prints `Note (server applied defaults): …` for responses carrying the resolution headers, once per text. */
export class DefaultsNotes {
  private readonly printed = new Set<string>();

  constructor(
    private readonly write: (text: string) => void,
    private readonly quiet: boolean,
    private readonly requested: string,
  ) {}

  observe(res: Pick<TransportResponse, 'header'>): void {
    const resolved = res.header('x-svc-resolved-id');
    const defaults = res.header('x-svc-defaults-applied');
    if (this.quiet || (resolved === undefined && defaults === undefined)) return;
    const requested = res.header('x-svc-requested-id') ?? this.requested;
    const text =
      `Note (server applied defaults): ${requested} -> ${resolved ?? requested}; ${defaults ?? ''}`.trimEnd();
    if (this.printed.has(text)) return;
    this.printed.add(text);
    this.write(`${text}\n`);
  }
}

/**
 * `queued converting_md fetch=100/500B convert.submitting polls=7 queue=#3(2ahead,4/4slot) eta=240s`; empty and
 * zero parts are left out.
 */
export function etaLine(s: JobSnapshot): string {
  const parts: string[] = [];
  if (s.state) parts.push(s.state);
  if (s.phase) parts.push(s.phase);
  const got = s.fetch?.bytes_received;
  if (got) parts.push(s.fetch?.bytes_total ? `fetch=${got}/${s.fetch.bytes_total}B` : `fetch=${got}B`);
  if (s.convert?.stage) parts.push(`convert.${s.convert.stage}`);
  if (s.convert?.polled_count) parts.push(`polls=${s.convert.polled_count}`);
  const q = s.queue;
  if (q?.position) {
    parts.push(`queue=#${q.position}(${q.ahead_of_me ?? 0}ahead,${q.running_count ?? 0}/${q.max_concurrent ?? 0}slot)`);
  }
  if (q?.eta_seconds) parts.push(`eta=${q.eta_seconds}s`);
  return parts.join(' ');
}
