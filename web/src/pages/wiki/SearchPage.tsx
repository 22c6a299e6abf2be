import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { q } from '../../api/queries';
import { Badge } from '../../components/Badge';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { fmtNumber } from '../../lib/format';
import { highlight, queryTerms } from '../../lib/highlight';
import { plainText } from '../../lib/plain-text';
import { useTitle } from '../../lib/use-title';

const DEBOUNCE_MS = 150;

export function Component() {
  const [params, setParams] = useSearchParams();
  const urlQuery = params.get('q') ?? '';
  const sources = params.get('sources') === '1';
  const [text, setText] = useState(urlQuery);
  useTitle(urlQuery ? `Search: ${urlQuery}` : 'Search');

  // Typing updates the address after a short pause; the address drives the request (shareable, back button works).
  useEffect(() => {
    const t = setTimeout(() => {
      if (text.trim() !== urlQuery) {
        setParams(
          (prev) => {
            const next = new URLSearchParams(prev);
            if (text.trim()) next.set('q', text.trim());
            else next.delete('q');
            return next;
          },
          { replace: true },
        );
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [text, urlQuery, setParams]);
  useEffect(() => setText((t) => (t.trim() === urlQuery ? t : urlQuery)), [urlQuery]);

  const search = useQuery({
    ...q.search(urlQuery, sources),
    enabled: urlQuery !== '',
    placeholderData: keepPreviousData,
  });
  // Linked pages are named by their titles in the snippets (their ids in words until the index arrives).
  const index = useQuery(q.pageIndex());
  const titleOf = (id: string) => index.data?.get(id)?.title;
  const terms = queryTerms(urlQuery);
  const data = urlQuery ? search.data : undefined;

  return (
    <section className="page narrow-wide">
      <h1>Search the wiki</h1>
      <form role="search" className="search-form" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="search-input" className="visually-hidden">
          Search terms
        </label>
        <input
          id="search-input"
          type="search"
          className="search-input"
          placeholder="e.g. phase estimation"
          autoFocus
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-describedby="search-count"
        />
        <div className="check">
          <input
            id="search-sources"
            type="checkbox"
            checked={sources}
            onChange={(e) =>
              setParams((prev) => {
                const next = new URLSearchParams(prev);
                if (e.target.checked) next.set('sources', '1');
                else next.delete('sources');
                return next;
              })
            }
          />
          <label htmlFor="search-sources">Include source (paper) pages</label>
        </div>
      </form>
      <p id="search-count" role="status" className="muted">
        {!urlQuery
          ? 'Results appear as you type. Titles count most, then ids and tags, then the text.'
          : data
            ? `${fmtNumber(data.total)} ${data.total === 1 ? 'page matches' : 'pages match'}${data.total > data.results.length ? `; the best ${data.results.length} are shown` : ''}.`
            : ''}
      </p>
      {search.isPending && urlQuery && <Loading label="Searching…" />}
      {search.isError && <ErrorMessage error={search.error} title="Search failed" />}
      {data && (
        <ol className={`results${search.isPlaceholderData ? ' stale' : ''}`}>
          {data.results.map((r) => (
            <li key={r.id} className="result">
              <Link to={`/wiki/${encodeURIComponent(r.id)}`} className="result-title">
                {highlight(r.title, terms)}
              </Link>
              <div className="result-meta">
                <code className="muted">{r.id}</code>
                <Badge>{r.type}</Badge>
                {r.category && <span className="muted">{r.category}</span>}
              </div>
              <p className="snippet">{highlight(plainText(r.snippet, titleOf), terms)}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
