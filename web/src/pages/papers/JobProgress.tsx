import { useId } from 'react';
import type { JobSnapshot } from '../../api/types';
import { Badge, type Tone } from '../../components/Badge';
import { fmtBytes, fmtDateTime, fmtDuration, fmtRelative } from '../../lib/format';

const STATE: Record<JobSnapshot['state'], { label: string; tone: Tone }> = {
  cached: { label: 'Ready', tone: 'good' },
  queued: { label: 'Queued', tone: 'info' },
  running: { label: 'Running', tone: 'info' },
  failed: { label: 'Failed', tone: 'bad' },
  cooldown: { label: 'Paused', tone: 'warn' },
  none: { label: 'Not in the store', tone: 'neutral' },
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

/** The live state of a paper-access job (CONTRACT §11.2), in words and progress bars. */
export function JobProgress({ snapshot: s }: { snapshot: JobSnapshot }) {
  // Both panels may show the same job (a markdown job fetches the PDF first): ids must differ per instance.
  const id = useId();
  const state = STATE[s.state];
  const fetch = s.fetch;
  const convert = s.convert;
  const queue = s.queue;
  const waitingForSlot = queue?.position !== undefined;
  return (
    <div className="job" data-state={s.state} data-phase={s.phase}>
      <p role="status" className="job-summary">
        <Badge tone={state.tone}>{state.label}</Badge>
        {PHASE[s.phase] && <span className="job-phase">{PHASE[s.phase]}</span>}
        {s.state === 'queued' && waitingForSlot && ' · waiting for a parser slot'}
      </p>
      {s.detail && s.state !== 'cached' && <p className="job-detail">{s.detail}</p>}
      {s.kind && <p className="muted small">{KIND[s.kind]}</p>}
      {s.retry_after_iso && (
        <p className="small">
          Retry after {fmtDateTime(s.retry_after_iso)} ({fmtRelative(s.retry_after_iso)}).
        </p>
      )}
      {fetch && s.phase === 'fetching_pdf' && (
        <div className="progress-line">
          <label htmlFor={`${id}-fetch`}>PDF download</label>
          <progress
            id={`${id}-fetch`}
            max={fetch.bytes_total ?? undefined}
            value={fetch.bytes_total ? (fetch.bytes_received ?? 0) : undefined}
          />
          <span className="small mono">
            {fmtBytes(fetch.bytes_received ?? 0)}
            {fetch.bytes_total ? ` of ${fmtBytes(fetch.bytes_total)}` : ''}
            {fetch.attempts && fetch.attempts > 1 ? ` · attempt ${fetch.attempts}` : ''}
          </span>
        </div>
      )}
      {convert && s.phase === 'converting_md' && (
        <div className="progress-line">
          <label htmlFor={`${id}-convert`}>
            Conversion{convert.stage ? ` (${convert.stage.replace(/_/g, ' ')})` : ''}
          </label>
          <progress
            id={`${id}-convert`}
            max={convert.total_pages || undefined}
            value={convert.total_pages ? (convert.extracted_pages ?? 0) : undefined}
          />
          <span className="small mono">
            {convert.total_pages ? `${convert.extracted_pages ?? 0} of ${convert.total_pages} pages` : 'working'}
          </span>
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
