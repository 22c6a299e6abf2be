import { useQuery } from '@tanstack/react-query';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { q } from '../../api/queries';
import type { PageListItem } from '../../api/types';
import { Badge, statusTone } from '../../components/Badge';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { fmtNumber } from '../../lib/format';
import { useTitle } from '../../lib/use-title';
import { SyncPanel } from './SyncPanel';

const SORTS = { title: 'Title', id: 'Id', type: 'Type', category: 'Category', status: 'Status' } as const;
type SortKey = keyof typeof SORTS;
const STATUS_ORDER: Record<string, number> = { published: 0, review: 1, draft: 2 };

function compare(key: SortKey) {
  const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
  return (a: PageListItem, b: PageListItem): number => {
    const primary =
      key === 'status'
        ? (STATUS_ORDER[a.status] ?? 9) - (STATUS_ORDER[b.status] ?? 9)
        : collator.compare(a[key] ?? '', b[key] ?? '');
    return primary || collator.compare(a.title, b.title);
  };
}

/** Row height in px: one line of facts on wide screens, two on narrow ones (fixed, so scrolling never measures). */
function useRowHeight(): number {
  const narrow = () => window.matchMedia('(max-width: 640px)').matches;
  const [small, setSmall] = useState(narrow);
  useEffect(() => {
    const mq = window.matchMedia('(max-width: 640px)');
    const on = () => setSmall(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  return small ? 92 : 64;
}

function PageRows({ pages }: { pages: PageListItem[] }) {
  const list = useRef<HTMLUListElement>(null);
  const [margin, setMargin] = useState(0);
  const rowHeight = useRowHeight();
  // The list's distance from the document top (filters above it on narrow screens, the count line on wide ones).
  useLayoutEffect(() => {
    const top = Math.round((list.current?.getBoundingClientRect().top ?? 0) + window.scrollY);
    if (top !== margin) setMargin(top);
  });
  const virtual = useWindowVirtualizer({
    count: pages.length,
    estimateSize: () => rowHeight,
    overscan: 8,
    scrollMargin: margin,
  });
  useEffect(() => virtual.measure(), [rowHeight, virtual]);
  return (
    <ul
      ref={list}
      className="page-rows"
      aria-label="Wiki pages"
      style={{ height: virtual.getTotalSize(), ['--row-height' as string]: `${rowHeight}px` }}
    >
      {virtual.getVirtualItems().map((item) => {
        const p = pages[item.index]!;
        return (
          <li
            key={p.id}
            className="page-row"
            aria-setsize={pages.length}
            aria-posinset={item.index + 1}
            style={{ transform: `translateY(${item.start - margin}px)` }}
          >
            <Link to={`/wiki/${encodeURIComponent(p.id)}`} className="page-row-title">
              {p.title}
            </Link>
            <div className="page-row-meta">
              <code className="muted">{p.id}</code>
              <span className="muted">
                {p.type}
                {p.category && ` · ${p.category}`}
              </span>
              <Badge tone={statusTone(p.status)}>{p.status}</Badge>
              {p.tags.slice(0, 4).map((t) => (
                <span key={t} className="tag">
                  #{t}
                </span>
              ))}
            </div>
          </li>
        );
      })}
    </ul>
  );
}

export function Component() {
  useTitle('Wiki');
  const [params, setParams] = useSearchParams();
  const type = params.get('type') ?? '';
  const status = params.get('status') ?? '';
  const tags = params.get('tags') ?? '';
  const sort = (params.get('sort') ?? 'title') as SortKey;
  const desc = params.get('dir') === 'desc';
  const filter = params.get('filter') ?? '';
  const [tagText, setTagText] = useState(tags);
  useEffect(() => setTagText(tags), [tags]);

  const pages = useQuery(q.pages({ type, status, tags }));
  const stats = useQuery(q.wikiStats());
  const set = (key: string, value: string) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (value) next.set(key, value);
        else next.delete(key);
        return next;
      },
      { replace: true },
    );

  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const list = (pages.data?.pages ?? []).filter(
      (p) => !needle || p.title.toLowerCase().includes(needle) || p.id.includes(needle),
    );
    list.sort(compare(SORTS[sort] ? sort : 'title'));
    if (desc) list.reverse();
    return list;
  }, [pages.data, filter, sort, desc]);

  const applyTags = () =>
    set(
      'tags',
      tagText
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
        .join(','),
    );
  const submitTags = (e: FormEvent) => {
    e.preventDefault();
    applyTags();
  };

  return (
    <section className="page">
      <div className="page-head">
        <div>
          <h1>Wiki</h1>
          {stats.data && (
            <p className="lead">
              {fmtNumber(stats.data.entries)} entries and {fmtNumber(stats.data.sources)} source pages ·{' '}
              {fmtNumber(stats.data.by_status['published'] ?? 0)} published
            </p>
          )}
        </div>
      </div>
      <div className="wiki-list-layout">
        <div>
          <form className="filters card" onSubmit={submitTags} aria-label="Filter and sort pages">
            <div className="field">
              <label htmlFor="f-text">Title or id contains</label>
              <input id="f-text" type="search" value={filter} onChange={(e) => set('filter', e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="f-type">Type</label>
              <select id="f-type" value={type} onChange={(e) => set('type', e.target.value)}>
                <option value="">All but sources</option>
                <option value="concept">concept</option>
                <option value="entity">entity</option>
                <option value="comparison">comparison</option>
                <option value="source">source</option>
              </select>
            </div>
            <div className="field">
              <label htmlFor="f-status">Status</label>
              <select id="f-status" value={status} onChange={(e) => set('status', e.target.value)}>
                <option value="">Any</option>
                <option value="published">published</option>
                <option value="review">review</option>
                <option value="draft">draft</option>
              </select>
            </div>
            <div className="field">
              <label htmlFor="f-tags">Tags (any of, comma-separated)</label>
              <input
                id="f-tags"
                value={tagText}
                onChange={(e) => setTagText(e.target.value)}
                onBlur={() => tagText !== tags && applyTags()}
              />
            </div>
            <div className="field">
              <label htmlFor="f-sort">Sort by</label>
              <div className="sort-row">
                <select
                  id="f-sort"
                  value={sort}
                  onChange={(e) => set('sort', e.target.value === 'title' ? '' : e.target.value)}
                >
                  {Object.entries(SORTS).map(([k, label]) => (
                    <option key={k} value={k}>
                      {label}
                    </option>
                  ))}
                </select>
                <button
                  type="button"
                  className="button"
                  onClick={() => set('dir', desc ? '' : 'desc')}
                  aria-label={desc ? 'Sort ascending' : 'Sort descending'}
                  title={desc ? 'Descending' : 'Ascending'}
                >
                  {desc ? '↓' : '↑'}
                </button>
              </div>
            </div>
            <button type="submit" className="visually-hidden">
              Apply filters
            </button>
          </form>
          <SyncPanel />
        </div>
        <div>
          {pages.isPending && <Loading label="Loading pages…" />}
          {pages.isError && <ErrorMessage error={pages.error} title="Pages could not be listed" />}
          {pages.data && (
            <>
              <p className="muted" role="status" id="page-count">
                {fmtNumber(shown.length)} {shown.length === 1 ? 'page' : 'pages'}
                {shown.length !== pages.data.total && ` of ${fmtNumber(pages.data.total)}`}
              </p>
              {shown.length === 0 ? <p>No page matches these filters.</p> : <PageRows pages={shown} />}
            </>
          )}
        </div>
      </div>
    </section>
  );
}
