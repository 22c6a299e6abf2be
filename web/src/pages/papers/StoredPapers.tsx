import { useQuery } from '@tanstack/react-query';
import { useRef } from 'react';
import { Link, useSearchParams } from 'react-router';
import { q } from '../../api/queries';
import type { PaperListItem } from '../../api/types';
import { Badge } from '../../components/Badge';
import { DataTable } from '../../components/DataTable';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { fmtDateTime, fmtNumber, fmtRelative } from '../../lib/format';
import { filtersFrom, pageCount, rangeText, type PaperListFilters } from '../../lib/paper-list';
import { paperPath, parsePaperRef } from '../../lib/paper-ref';

/** The address parameter of each filter (the API's own names). */
const PARAM: Record<Exclude<keyof PaperListFilters, 'page'>, string> = {
  q: 'q',
  hasPdf: 'has_pdf',
  hasMd: 'has_md',
  sort: 'sort',
};

function Flags({ p }: { p: PaperListItem }) {
  return (
    <span className="chips">
      {p.has_pdf ? <Badge tone="good">PDF</Badge> : <Badge tone="neutral">no PDF</Badge>}
      {p.has_md ? <Badge tone="good">markdown</Badge> : <Badge tone="neutral">no markdown</Badge>}
      {p.image_count > 0 && (
        <Badge tone="info">
          {fmtNumber(p.image_count)} {p.image_count === 1 ? 'image' : 'images'}
        </Badge>
      )}
    </span>
  );
}

function FlagSelect({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Either</option>
        <option value="true">Yes</option>
        <option value="false">No</option>
      </select>
    </div>
  );
}

/**
 * The stored papers (CONTRACT §18.2 `GET /api/papers`): searched by id or title, filtered by what is stored,
 * sorted and paged on the server; every choice lives in the address, so a view can be shared and reloaded.
 */
export function StoredPapers() {
  const [params, setParams] = useSearchParams();
  const filters = filtersFrom(params);
  const list = useQuery(q.papers(filters));
  // React Router hands a functional update the params of the last render, so two changes made before the next render
  // (clear the search, then pick a sort) would lose the first: each change builds on the last one made instead.
  const rendered = useRef(params);
  const latest = useRef(params);
  if (rendered.current !== params) {
    rendered.current = params;
    latest.current = params;
  }
  const change = (edit: (next: URLSearchParams) => void, replace: boolean) => {
    const next = new URLSearchParams(latest.current);
    edit(next);
    latest.current = next;
    setParams(next, { replace });
  };
  /** Sets one filter and goes back to the first page (a page number means nothing for another selection). */
  const set = (key: keyof typeof PARAM, value: string) =>
    change((next) => {
      if (value && !(key === 'sort' && value === 'updated_at')) next.set(PARAM[key], value);
      else next.delete(PARAM[key]);
      next.delete('page');
    }, true);
  const goTo = (page: number) =>
    change((next) => {
      if (page > 1) next.set('page', String(page));
      else next.delete('page');
    }, false);
  const ref = parsePaperRef(filters.q);
  const d = list.data;
  const pages = d ? pageCount(d.total, d.per_page) : 1;
  const range = d ? rangeText(d.page, d.per_page, d.items.length, d.total) : null;
  return (
    <>
      <form
        className="filters paper-filters card"
        aria-label="Search and filter papers"
        onSubmit={(e) => e.preventDefault()}
      >
        <div className="field paper-search">
          <label htmlFor="paper-q">Title or id contains</label>
          <input id="paper-q" type="search" value={filters.q} onChange={(e) => set('q', e.target.value)} />
        </div>
        <FlagSelect id="paper-has-pdf" label="Has PDF" value={filters.hasPdf} onChange={(v) => set('hasPdf', v)} />
        <FlagSelect id="paper-has-md" label="Has markdown" value={filters.hasMd} onChange={(v) => set('hasMd', v)} />
        <div className="field paper-sort">
          <label htmlFor="paper-sort">Sort by</label>
          <select id="paper-sort" value={filters.sort} onChange={(e) => set('sort', e.target.value)}>
            <option value="updated_at">Recently updated</option>
            <option value="id">Id</option>
          </select>
        </div>
      </form>
      {ref && (
        <p className="notice notice-info">
          “{filters.q.trim()}” names a paper:{' '}
          <Link to={paperPath(ref)}>open {ref.kind === 'id' ? ref.id : ref.doi}</Link>.
        </p>
      )}
      {list.isPending && <Loading label="Loading papers…" />}
      {list.isError && <ErrorMessage error={list.error} title="The papers could not be listed" />}
      {d && (
        <div aria-busy={list.isPlaceholderData}>
          <p className="muted" role="status" id="paper-count">
            {d.total === 0
              ? 'No stored paper matches.'
              : range
                ? `${range} ${d.total === 1 ? 'paper' : 'papers'}${list.isPlaceholderData ? ' · updating…' : ''}`
                : `Page ${fmtNumber(d.page)} is past the last page (${fmtNumber(pages)}).`}
          </p>
          {d.items.length > 0 && (
            <DataTable
              stacked
              className="paper-table"
              describedBy="paper-count"
              columns={['Paper', 'Stored', 'Updated']}
            >
              {d.items.map((p) => (
                <tr key={p.preprint_id}>
                  <td data-label="Paper">
                    <Link to={paperPath(p.preprint_id)} className="paper-row-title">
                      {p.title ?? p.preprint_id}
                    </Link>
                    {p.title && <span className="mono small muted paper-row-id">{p.preprint_id}</span>}
                  </td>
                  <td data-label="Stored">
                    <Flags p={p} />
                  </td>
                  <td data-label="Updated" className="nowrap">
                    <time dateTime={p.updated_at} title={fmtDateTime(p.updated_at)}>
                      {fmtRelative(p.updated_at)}
                    </time>
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
          {pages > 1 && (
            <nav className="pager" aria-label="Pages of papers">
              <button type="button" className="button" disabled={d.page <= 1} onClick={() => goTo(d.page - 1)}>
                Previous
              </button>
              <span>
                Page {fmtNumber(d.page)} of {fmtNumber(pages)}
              </span>
              <button type="button" className="button" disabled={d.page >= pages} onClick={() => goTo(d.page + 1)}>
                Next
              </button>
            </nav>
          )}
        </div>
      )}
    </>
  );
}
