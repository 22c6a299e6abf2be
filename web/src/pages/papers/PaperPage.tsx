import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef } from 'react';
import { Link, Navigate, useParams } from 'react-router';
import { pathId } from '../../api/client';
import { fetchStatus, isActive, saveBlob, trigger, type Kind } from '../../api/papers';
import { q } from '../../api/queries';
import type { JobSnapshot, PaperDetail } from '../../api/types';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { defaultWords } from '../../lib/job-words';
import { paperPath, readPaperRef, type PaperRef } from '../../lib/paper-ref';
import { useTitle } from '../../lib/use-title';
import { FiguresGallery } from './FiguresGallery';
import { JobProgress } from './JobProgress';
import { PaperFacts, Versions } from './PaperRecord';
import './papers.css';

const Markdown = lazy(() => import('../../components/markdown/Markdown'));

const POLL_MS = 1000;

/** Status of one asset kind, polled every second while its job works. */
function useStatus(id: string, kind: Kind, enabled: boolean) {
  return useQuery({
    queryKey: ['paper', id, kind, 'status'],
    queryFn: () => fetchStatus(id, kind),
    enabled,
    staleTime: 0,
    refetchInterval: (query) => (isActive(query.state.data) ? POLL_MS : false),
  });
}

/** Starts a job (or fetches the bytes when they are stored) and feeds its answer into the status. */
function useTrigger(id: string, kind: Kind, onBytes: (b: Blob) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => trigger(id, kind),
    onSuccess: (result) => {
      if (result.bytes) onBytes(result.bytes);
      else queryClient.setQueryData(['paper', id, kind, 'status'], result.snapshot);
      if (result.bytes) void queryClient.invalidateQueries({ queryKey: ['paper', id, kind, 'status'] });
    },
  });
}

function Resolution({ s }: { s: JobSnapshot }) {
  if (!s.resolved_id) return null;
  return (
    <p className="notice notice-info">
      “{s.requested_id}” is <strong>{s.resolved_id}</strong>: {(s.defaults_applied ?? []).map(defaultWords).join('; ')}.
    </p>
  );
}

/**
 * The PDF's side of a snapshot. A markdown job fetches the PDF first and both kinds report that one job; once it
 * has stored the PDF and converts it, the PDF is ready to download whatever the conversion does.
 */
function pdfView(s: JobSnapshot | undefined): JobSnapshot | undefined {
  if (!s || !s.pdf_ready || s.phase !== 'converting_md') return s;
  return { preprint_id: s.preprint_id, state: 'cached', phase: 'ready', pdf_ready: true, md_ready: s.md_ready };
}

function PdfPanel({ id, status }: { id: string; status: ReturnType<typeof useStatus> }) {
  const stem = (status.data?.preprint_id ?? id).replace(/\//g, '_');
  const download = useTrigger(id, 'pdf', (blob) => saveBlob(blob, `${stem}.pdf`));
  const s = pdfView(status.data);
  return (
    <section className="card" aria-labelledby="pdf-title">
      <h2 id="pdf-title">PDF</h2>
      {status.isPending && <Loading />}
      {status.isError && <ErrorMessage error={status.error} title="PDF status unavailable" />}
      {s && <JobProgress snapshot={s} kind="pdf" />}
      {download.isError && <ErrorMessage error={download.error} title="The PDF could not be fetched" />}
      {s && !isActive(s) && (
        <button type="button" className="button" onClick={() => download.mutate()} disabled={download.isPending}>
          {s.state === 'cached' || s.pdf_ready ? 'Download PDF' : 'Fetch the PDF from arXiv'}
        </button>
      )}
    </section>
  );
}

function MarkdownPanel({ id, status }: { id: string; status: ReturnType<typeof useStatus> }) {
  const queryClient = useQueryClient();
  const s = status.data;
  const cached = s?.state === 'cached';
  const canonical = s?.preprint_id ?? id;
  const text = useQuery({
    queryKey: ['paper', id, 'markdown', 'text'],
    queryFn: async () => {
      const result = await trigger(id, 'markdown');
      if (result.bytes) return result.bytes.text();
      queryClient.setQueryData(['paper', id, 'markdown', 'status'], result.snapshot);
      return null;
    },
    enabled: cached,
    staleTime: Infinity,
  });
  const convert = useTrigger(id, 'markdown', (blob) => {
    void blob.text().then((t) => queryClient.setQueryData(['paper', id, 'markdown', 'text'], t));
  });
  return (
    <section className="paper-markdown" aria-labelledby="md-title">
      <div className="card">
        <h2 id="md-title">Markdown</h2>
        {status.isPending && <Loading />}
        {status.isError && <ErrorMessage error={status.error} title="Markdown status unavailable" />}
        {s && <JobProgress snapshot={s} kind="markdown" />}
        {convert.isError && <ErrorMessage error={convert.error} title="The conversion could not be started" />}
        {s && (s.state === 'none' || s.state === 'failed') && (
          <button
            type="button"
            className="button button-primary"
            onClick={() => convert.mutate()}
            disabled={convert.isPending}
          >
            {s.state === 'failed' ? 'Try again' : 'Convert to markdown'}
          </button>
        )}
      </div>
      {cached && text.isPending && <Loading label="Loading the markdown…" />}
      {text.isError && <ErrorMessage error={text.error} title="The markdown could not be loaded" />}
      {typeof text.data === 'string' && (
        <article className="card paper-text" aria-label={`Markdown of ${canonical}`}>
          <Suspense fallback={<Loading label="Typesetting…" />}>
            <Markdown content={text.data} imageBase={`/api/papers/${pathId(canonical)}/images/`} />
          </Suspense>
        </article>
      )}
    </section>
  );
}

/** The record, the abstract, the versions and the figures of a stored paper (CONTRACT §18.2). */
function Registry({ id, paper }: { id: string; paper: PaperDetail }) {
  const abstract = paper.metadata?.abstract.trim();
  return (
    <>
      {abstract && (
        <section className="card" aria-labelledby="abstract-title">
          <h2 id="abstract-title">Abstract</h2>
          <p className="abstract">{abstract}</p>
        </section>
      )}
      <Versions paper={paper} />
      {paper.versions.some((v) => v.has_md || v.image_count > 0) && <FiguresGallery id={id} />}
    </>
  );
}

/** An address that names no paper: said in words, with what would work, instead of the API's 400. */
function NotAPaper({ text, problem }: { text: string; problem: string }) {
  useTitle('Not a paper');
  return (
    <section className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/papers">Papers</Link>
      </nav>
      <h1>This address names no paper</h1>
      <p className="notice notice-warn">
        “{text}” is not a preprint id or DOI ({problem}).
      </p>
      <p>
        A paper opens by its arXiv id (<span className="mono">2501.00010v1</span>,{' '}
        <span className="mono">quant-ph/9508027</span>), its DOI (<span className="mono">10.1103/…</span>) or its
        arxiv.org or doi.org link. <Link to="/papers">Open a paper</Link> from the papers page.
      </p>
    </section>
  );
}

/**
 * `/papers/<anything>`: an id or DOI in any accepted form, or a pasted arxiv.org / doi.org link, goes to the paper's
 * canonical address (so `arXiv:2501.00010` and `https://arxiv.org/abs/2501.00010` open the same page).
 */
export function Component() {
  const text = (useParams()['*'] ?? '').replace(/\/+$/, '');
  const read = readPaperRef(text);
  if ('problem' in read) return <NotAPaper text={text} problem={read.problem} />;
  const path = paperPath(read.ref);
  if (path !== paperPath(text)) return <Navigate to={path} replace />;
  return <Paper id={text} paperRef={read.ref} />;
}

function Paper({ id, paperRef: ref }: { id: string; paperRef: PaperRef }) {
  const info = useQuery(q.serverInfo());
  const on = info.data?.paper_access === true;
  const detail = useQuery(q.paper(id));
  const md = useStatus(id, 'markdown', on);
  const pdf = useStatus(id, 'pdf', on);
  const canonical = md.data?.preprint_id ?? pdf.data?.preprint_id;
  // A markdown job fetches the PDF first and both kinds report that job: each step of the markdown job (started,
  // PDF stored, finished) is a step for the PDF panel too, whose own status is only polled while it looks active.
  const mdStep = md.data ? `${md.data.state} ${md.data.phase} ${md.data.pdf_ready}` : null;
  const lastMdStep = useRef(mdStep);
  const refetchPdf = pdf.refetch;
  const queryClient = useQueryClient();
  useEffect(() => {
    if (lastMdStep.current !== null && mdStep !== lastMdStep.current) {
      void refetchPdf();
      // A step may have stored a PDF or markdown: the record's versions and figures follow.
      void queryClient.invalidateQueries({ queryKey: q.paper(id).queryKey });
      void queryClient.invalidateQueries({ queryKey: q.figures(id).queryKey });
    }
    lastMdStep.current = mdStep;
  }, [mdStep, refetchPdf, queryClient, id]);
  const index = useQuery(q.pageIndex());
  const paper = detail.data ?? null;
  const versionless = paper?.preprint_id ?? (ref.kind === 'id' ? ref.id.replace(/v\d+$/, '') : null);
  const wikiKey = canonical ?? (ref.kind === 'id' ? ref.id : null);
  const wikiId = wikiKey ? `paper-preprint-${wikiKey.replace(/\//g, '-')}` : null;
  const wikiPage = wikiId ? index.data?.get(wikiId) : undefined;
  const title = paper?.metadata?.title ?? wikiPage?.title;
  const shownId = canonical ?? id;
  useTitle(title ?? id);
  return (
    <section className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/papers">Papers</Link> <span aria-hidden="true">/</span> <span>{id}</span>
      </nav>
      <header className="paper-head">
        <h1 className="paper-title">
          {title ?? shownId}
          {title && <span className="paper-id mono">{shownId}</span>}
        </h1>
        {versionless && <PaperFacts id={versionless} metadata={paper?.metadata ?? null} />}
        {wikiPage && (
          <p>
            Wiki page: <Link to={`/wiki/${encodeURIComponent(wikiPage.id)}`}>{wikiPage.title}</Link>
          </p>
        )}
      </header>
      {(detail.isPending || info.isPending) && <Loading />}
      {detail.isError && <ErrorMessage error={detail.error} title="The paper's record is unavailable" />}
      {detail.data === null && (
        <p className="notice notice-info">
          This server stores nothing for {id} yet
          {on ? ': converting it below fetches it from arXiv.' : '.'}
        </p>
      )}
      {paper && <Registry id={id} paper={paper} />}
      {info.data && !on && (
        <p className="notice notice-info">
          Paper access is off on this server, so it serves no PDF or markdown. The paper statistics and the parser queue
          are on the <Link to="/papers">papers page</Link>.
        </p>
      )}
      {on && md.data && <Resolution s={md.data} />}
      {on && (
        <div className="paper-layout">
          <MarkdownPanel id={id} status={md} />
          <PdfPanel id={id} status={pdf} />
        </div>
      )}
    </section>
  );
}
