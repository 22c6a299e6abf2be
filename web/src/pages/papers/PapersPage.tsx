import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { q } from '../../api/queries';
import { Badge } from '../../components/Badge';
import { DataTable } from '../../components/DataTable';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { fmtDateTime, fmtNumber, fmtRelative } from '../../lib/format';
import { paperPath, readPaperRef } from '../../lib/paper-ref';
import { useTitle } from '../../lib/use-title';
import { StoredPapers } from './StoredPapers';
import { PaperStats } from './PaperStats';
import './papers.css';

function Queue() {
  const queue = useQuery(q.needsParser());
  if (queue.isPending) return <Loading label="Loading the parser queue…" />;
  if (queue.isError) return <ErrorMessage error={queue.error} title="The parser queue is unavailable" />;
  const d = queue.data;
  if (!d.available)
    return <p className="notice notice-warn">The metadata index is not available on the server right now.</p>;
  return (
    <>
      <p className="muted" id="queue-summary">
        {fmtNumber(d.total_unclaimed)} waiting, {fmtNumber(d.total_claimed)} claimed by a contributor
        {d.returned < d.total_unclaimed + d.total_claimed && ` · newest ${d.returned} shown`}.
      </p>
      {d.papers.length === 0 ? (
        <p>Nothing waits for parsing: every paper with a PDF has markdown.</p>
      ) : (
        <DataTable describedBy="queue-summary" columns={['Paper', 'PDF uploaded', 'Claim']}>
          {d.papers.map((p) => (
            <tr key={p.preprint_id}>
              <td data-label="Paper" className="nowrap">
                <Link to={paperPath(p.preprint_id)}>{p.preprint_id}</Link>
              </td>
              <td data-label="PDF uploaded">{fmtDateTime(p.pdf_uploaded_at)}</td>
              <td data-label="Claim">
                {p.claimed ? (
                  <>
                    <Badge tone="info">claimed</Badge>{' '}
                    <span className="small">
                      {p.claim_requester ? `by ${p.claim_requester}, ` : ''}expires {fmtRelative(p.claim_expires_at)}
                    </span>
                  </>
                ) : (
                  <Badge tone="neutral">waiting</Badge>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

/** Opens a paper from an id, a DOI or an arxiv.org / doi.org link; anything else is refused here, with the reason. */
function Lookup() {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [refused, setRefused] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    const read = readPaperRef(text);
    if ('ref' in read) void navigate(paperPath(read.ref));
    else setRefused(read.problem);
  };
  return (
    <form className="card inline-form" onSubmit={submit} aria-labelledby="lookup-title" noValidate>
      <h2 id="lookup-title" className="visually-hidden">
        Open a paper
      </h2>
      <div className="field">
        <label htmlFor="paper-id">Open a paper by preprint id, DOI or arXiv / doi.org link</label>
        <input
          id="paper-id"
          className="mono"
          placeholder="2501.00010v1, 10.1103/… or https://arxiv.org/abs/…"
          value={text}
          aria-invalid={refused !== null}
          aria-describedby={refused !== null ? 'paper-id-error' : undefined}
          onChange={(e) => {
            setText(e.target.value);
            setRefused(null);
          }}
        />
        {refused !== null && (
          <p id="paper-id-error" className="field-error" role="alert">
            This opens no paper: {refused}.
          </p>
        )}
      </div>
      <button type="submit" className="button button-primary">
        Open
      </button>
    </form>
  );
}

export function Component() {
  useTitle('Papers');
  return (
    <section className="page">
      <h1>Papers</h1>
      <Lookup />
      <section aria-labelledby="list-title">
        <h2 id="list-title">Stored papers</h2>
        <StoredPapers />
      </section>
      <section className="card" aria-labelledby="stats-title">
        <h2 id="stats-title">Assets</h2>
        <PaperStats />
      </section>
      <section aria-labelledby="queue-title">
        <h2 id="queue-title">Waiting for the parser</h2>
        <Queue />
      </section>
    </section>
  );
}
