import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useMemo } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { q } from '../../api/queries';
import type { ExternalLink, PageDetailResponse, PageListItem } from '../../api/types';
import { Badge, statusTone } from '../../components/Badge';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { KnownPages, Markdown } from '../../components/markdown/Markdown';
import { fmtDate } from '../../lib/format';
import { useTitle } from '../../lib/use-title';
import { preprintIdOfPage } from '../../lib/wikilinks';
import { Contents } from './Contents';
import { PageLink } from './PageLink';

const Neighbourhood = lazy(() => import('./Neighbourhood'));

const listOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const externalLinks = (v: unknown): ExternalLink[] =>
  Array.isArray(v)
    ? v.filter(
        (x): x is ExternalLink =>
          typeof x === 'object' && x !== null && typeof x.label === 'string' && typeof x.url === 'string',
      )
    : [];

function Facts({ page, index }: { page: PageDetailResponse; index: Map<string, PageListItem> | undefined }) {
  const fm = page.frontmatter;
  const prerequisites = listOf(fm['prerequisites']);
  const links = externalLinks(fm['external_links']).filter((l) => /^https?:\/\//i.test(l.url));
  const preprint = preprintIdOfPage(page.id);
  const synced = fm['graph_synced'] ?? fm['neo4j_synced'];
  return (
    <section className="aside-section" aria-labelledby="facts-title">
      <h2 id="facts-title">About this page</h2>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{page.id}</code>
        </dd>
        <dt>Type</dt>
        <dd>
          {page.type}
          {page.category && ` · ${page.category}`}
        </dd>
        <dt>Status</dt>
        <dd>
          <Badge tone={statusTone(page.status)}>{page.status}</Badge>
        </dd>
        <dt>Created</dt>
        <dd>{fmtDate(page.created_at)}</dd>
        {page.updated_at && (
          <>
            <dt>Updated</dt>
            <dd>{fmtDate(page.updated_at)}</dd>
          </>
        )}
        {page.doi && (
          <>
            <dt>DOI</dt>
            <dd>
              <a href={`https://doi.org/${page.doi}`} rel="noopener noreferrer">
                {page.doi}
              </a>
            </dd>
          </>
        )}
        {preprint && (
          <>
            <dt>Paper</dt>
            <dd>
              <Link to={`/papers/${preprint}`}>{preprint}</Link>
            </dd>
          </>
        )}
        {typeof synced === 'boolean' && (
          <>
            <dt>In the graph</dt>
            <dd>{synced ? 'synced' : 'not synced'}</dd>
          </>
        )}
        {prerequisites.length > 0 && (
          <>
            <dt>Prerequisites</dt>
            <dd>
              <ul className="plain">
                {prerequisites.map((id) => (
                  <li key={id}>
                    <PageLink id={id} index={index} />
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
      {links.length > 0 && (
        <>
          <h3>External links</h3>
          <ul className="plain">
            {links.map((l) => (
              <li key={l.url}>
                <a href={l.url} rel="noopener noreferrer">
                  {l.label}
                </a>
                {l.note && <span className="muted small"> — {l.note}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function IdList({
  title,
  id,
  ids,
  index,
  empty,
}: {
  title: string;
  id: string;
  ids: string[];
  index?: Map<string, PageListItem>;
  empty: string;
}) {
  return (
    <section className="aside-section" aria-labelledby={id}>
      <h2 id={id}>
        {title} <span className="count">{ids.length}</span>
      </h2>
      {ids.length === 0 ? (
        <p className="muted small">{empty}</p>
      ) : (
        <ul className="plain link-list" id={`${id}-list`}>
          {ids.map((pid) => (
            <li key={pid}>
              <PageLink id={pid} index={index} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Scrolls to the `#section` of the URL once the article exists (the browser tried before it was rendered). */
function useScrollToHash(ready: boolean) {
  const { hash } = useLocation();
  useEffect(() => {
    if (!ready || !hash) return;
    const el = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (el) {
      el.scrollIntoView();
      el.setAttribute('tabindex', '-1');
      el.focus({ preventScroll: true });
    }
  }, [ready, hash]);
}

export function Component() {
  const id = useParams()['id'] ?? '';
  const page = useQuery(q.page(id));
  // The id list is large on a big wiki: it is asked for once the page itself is there.
  const index = useQuery({ ...q.pageIndex(), enabled: page.isSuccess });
  const info = useQuery(q.serverInfo());
  const known = useMemo(
    () => (index.data ? new Map([...index.data.values()].map((s) => [s.id, s.title])) : null),
    [index.data],
  );
  useTitle(page.data?.title ?? id);
  useScrollToHash(page.isSuccess);

  if (page.isPending) return <Loading label="Loading the page…" />;
  if (page.isError) {
    if (page.error instanceof ApiError && page.error.status === 404) {
      return (
        <section className="page narrow">
          <h1>No page “{id}”</h1>
          <p>The wiki has no page with this id. Links to it are shown as broken links.</p>
          <p>
            <Link to={`/search?q=${encodeURIComponent(id.replace(/-/g, ' '))}`}>Search for similar pages</Link> or{' '}
            <Link to="/wiki">browse the wiki</Link>.
          </p>
        </section>
      );
    }
    return <ErrorMessage error={page.error} title="The page could not be loaded" />;
  }
  const p = page.data;
  return (
    <article className="wiki-page" aria-labelledby="page-title">
      <header className="wiki-header">
        <nav aria-label="Breadcrumb" className="breadcrumb">
          <Link to="/wiki">Wiki</Link> <span aria-hidden="true">/</span>{' '}
          <Link to={`/wiki?type=${p.type}`}>{p.type}</Link>
          {p.category && (
            <>
              {' '}
              <span aria-hidden="true">/</span> <span>{p.category}</span>
            </>
          )}
        </nav>
        <h1 id="page-title">{p.title}</h1>
        <div className="page-meta">
          <Badge tone={statusTone(p.status)}>{p.status}</Badge>
          {p.tags.map((t) => (
            <Link key={t} className="tag" to={`/wiki?tags=${encodeURIComponent(t)}`}>
              #{t}
            </Link>
          ))}
          <span className="muted small">updated {fmtDate(p.updated_at ?? p.created_at)}</span>
        </div>
      </header>
      <div className="wiki-layout">
        <div className="wiki-body" id="wiki-body">
          <KnownPages value={known}>
            <Markdown content={p.content} title={p.title} />
          </KnownPages>
        </div>
        <aside className="wiki-aside" aria-label="Page information">
          <Contents articleId="wiki-body" version={p.content} />
          <IdList
            title="Linked from"
            id="backlinks"
            ids={p.backlinks}
            index={index.data}
            empty="No page links here yet."
          />
          <IdList title="Related" id="related" ids={p.related} index={index.data} empty="No related pages listed." />
          <Facts page={p} index={index.data} />
        </aside>
      </div>
      {info.data?.graph_configured && (
        <Suspense fallback={<Loading label="Loading the graph view…" />}>
          <Neighbourhood pageId={p.id} />
        </Suspense>
      )}
    </article>
  );
}
