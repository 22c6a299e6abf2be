import { useId } from 'react';
import type { JobSnapshot, JobState } from '../../api/types';
import { Badge, type Tone } from '../../components/Badge';
import { fmtBytes, fmtDateTime, fmtDuration, fmtRelative } from '../../lib/format';
import { jobWords, type AssetKind } from '../../lib/job-words';

const STATE: Record<JobState, { label: string; tone: Tone }> = {
  cached: { label: 'Ready', tone: 'good' },
  queued: { label: 'Queued', tone: 'info' },
  running: { label: 'Running', tone: 'info' },
  failed: { label: 'Failed', tone: 'bad' },
  cooldown: { label: 'Paused', tone: 'warn' },
  none: { label: 'Not stored yet', tone: 'neutral' },
  unavailable: { label: 'Conversion unavailable', tone: 'warn' },
};

const PHASE: Record<string, string> = {
  fetching_pdf: 'Downloading the PDF from arXiv',
  converting_md: 'Converting the PDF to markdown',
  ready: 'Stored',
  error_fetching: 'Fetching the PDF failed',
  error_converting: 'Converting failed',
};

const KIND: Record<string, string> = {
  fatal: 'This will not succeed by retrying.',
  retryable: 'This may succeed later.',
  daily_limit: 'The parser quota for today is used up.',
  quota_exhausted: 'The parser quota for today is used up.',
};

/** A field of the snapshot's `fetch` or `convert` progress (open objects on the wire) when it is a number. */
const num = (progress: Record<string, unknown> | undefined, field: string): number | null => {
  const v = progress?.[field];
  return typeof v === 'number' ? v : null;
};

/** The live state of a paper-access job (CONTRACT §11.2) for the `kind` panel, in words and progress bars. */
export function JobProgress({ snapshot: s, kind }: { snapshot: JobSnapshot; kind: AssetKind }) {
  // Both panels may show the same job (a markdown job fetches the PDF first): ids must differ per instance.
  const id = useId();
  const state = (STATE as Partial<Record<string, { label: string; tone: Tone }>>)[s.state] ?? {
    label: s.state,
    tone: 'neutral' as const,
  };
  const fetch: Record<string, unknown> | undefined = s.fetch;
  const convert: Record<string, unknown> | undefined = s.convert;
  const bytesTotal = num(fetch, 'bytes_total');
  const bytesReceived = num(fetch, 'bytes_received') ?? 0;
  const attempts = num(fetch, 'attempts') ?? 0;
  const totalPages = num(convert, 'total_pages');
  const extractedPages = num(convert, 'extracted_pages') ?? 0;
  const stage = typeof convert?.['stage'] === 'string' ? convert['stage'] : '';
  const queue = s.queue;
  const waitingForSlot = queue?.position !== undefined;
  const words = jobWords(s, kind);
  return (
    <div className="job" data-state={s.state} data-phase={s.phase}>
      <p role="status" className="job-summary">
        <Badge tone={state.tone}>{state.label}</Badge>
        {PHASE[s.phase] && <span className="job-phase">{PHASE[s.phase]}</span>}
        {s.state === 'queued' && waitingForSlot && ' · waiting for a parser slot'}
      </p>
      {words.text && <p className="job-detail">{words.text}</p>}
      {words.technical && (
        <details className="job-technical small">
          <summary>Technical details</summary>
          <p className="mono">{words.technical}</p>
        </details>
      )}
      {s.kind && KIND[s.kind] && <p className="muted small">{KIND[s.kind]}</p>}
      {s.retry_after_iso && (
        <p className="small">
          Retry after {fmtDateTime(s.retry_after_iso)} ({fmtRelative(s.retry_after_iso)}).
        </p>
      )}
      {fetch && s.phase === 'fetching_pdf' && (
        <div className="progress-line">
          <label htmlFor={`${id}-fetch`}>PDF download</label>
          <progress id={`${id}-fetch`} max={bytesTotal ?? undefined} value={bytesTotal ? bytesReceived : undefined} />
          <span className="small mono">
            {fmtBytes(bytesReceived)}
            {bytesTotal ? ` of ${fmtBytes(bytesTotal)}` : ''}
            {attempts > 1 ? ` · attempt ${attempts}` : ''}
          </span>
        </div>
      )}
      {convert && s.phase === 'converting_md' && (
        <div className="progress-line">
          <label htmlFor={`${id}-convert`}>Conversion{stage ? ` (${stage.replace(/_/g, ' ')})` : ''}</label>
          <progress
            id={`${id}-convert`}
            max={totalPages || undefined}
            value={totalPages ? extractedPages : undefined}
          />
          <span className="small mono">{totalPages ? `${extractedPages} of ${totalPages} pages` : 'working'}</span>
        </div>
      )}
      {queue && (
        <dl className="facts compact job-queue">
          {waitingForSlot && (
            <>
              <dt>Queue position</dt>
              <dd>
                {queue.position} ({queue.ahead_of_me ?? 0} ahead)
              </dd>
            </>
          )}
          <dt>Parser slots</dt>
          <dd>
            {queue.running_count} of {queue.max_concurrent} busy
          </dd>
          {queue.eta_seconds !== undefined && (
            <>
              <dt>Estimated wait</dt>
              <dd>about {fmtDuration(queue.eta_seconds)}</dd>
            </>
          )}
          <dt>Typical conversion</dt>
          <dd>
            {fmtDuration(queue.avg_duration_seconds)}{' '}
            <span className="muted small">
              ({queue.eta_basis.startsWith('observed') ? queue.eta_basis.replace(/_/g, ' ') : 'no history yet'})
            </span>
          </dd>
        </dl>
      )}
      {(s.submitted_at || s.started_at) && (
        <p className="muted small">
          {s.submitted_at && `Requested ${fmtRelative(s.submitted_at)}`}
          {s.started_at && ` · started ${fmtRelative(s.started_at)}`}
        </p>
      )}
    </div>
  );
}
