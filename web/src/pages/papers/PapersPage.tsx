import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { q } from '../../api/queries';
import { Badge } from '../../components/Badge';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { fmtDateTime, fmtNumber, fmtRelative } from '../../lib/format';
import { useTitle } from '../../lib/use-title';
import { PaperStats } from './PaperStats';

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
        <div className="table-wrap">
          <table className="table" aria-describedby="queue-summary">
            <thead>
              <tr>
                <th scope="col">Paper</th>
                <th scope="col">PDF uploaded</th>
                <th scope="col">Claim</th>
              </tr>
            </thead>
            <tbody>
              {d.papers.map((p) => (
                <tr key={p.preprint_id}>
                  <td data-label="Paper" className="nowrap">
                    <Link to={`/papers/${p.preprint_id}`}>{p.preprint_id}</Link>
                  </td>
                  <td data-label="PDF uploaded">{fmtDateTime(p.pdf_uploaded_at)}</td>
                  <td data-label="Claim">
                    {p.claimed ? (
                      <>
                        <Badge tone="info">claimed</Badge>{' '}
                        <span className="small">
                          {p.claim_requester ? `by ${p.claim_requester}, ` : ''}expires{' '}
                          {fmtRelative(p.claim_expires_at)}
                        </span>
                      </>
                    ) : (
                      <Badge tone="neutral">waiting</Badge>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function Lookup() {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const id = text
      .trim()
      .replace(/^https?:\/\/(dx\.)?doi\.org\//i, '')
      .replace(/^arxiv:/i, '');
    if (id) void navigate(`/papers/${id}`);
  };
  return (
    <form className="card inline-form" onSubmit={submit} aria-labelledby="lookup-title">
      <h2 id="lookup-title" className="visually-hidden">
        Open a paper
      </h2>
      <div className="field">
        <label htmlFor="paper-id">Open a paper by preprint id or DOI</label>
        <input
          id="paper-id"
          className="mono"
          placeholder="2501.00010v1 or a DOI"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
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
