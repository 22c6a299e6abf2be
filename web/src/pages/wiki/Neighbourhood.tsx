import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { readGraphAnswer, runGraphQuery } from '../../api/graph';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { extractElements, nodeCaption } from '../../lib/graph-elements';

const GraphView = lazy(() => import('../graph/GraphView'));

const cypherString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Renders its children once scrolled near, so pages that are only read never load the graph library. */
function useNearViewport<T extends Element>(): [React.RefObject<T | null>, boolean] {
  const ref = useRef<T>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || near) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), {
      rootMargin: '300px',
    });
    io.observe(el);
    return () => io.disconnect();
  }, [near]);
  return [ref, near];
}

/** The page's node in the graph and its direct neighbours (shown when the graph is configured). */
export default function Neighbourhood({ pageId }: { pageId: string }) {
  const [ref, near] = useNearViewport<HTMLElement>();
  const navigate = useNavigate();
  const query = `MATCH (n) WHERE n.wiki_id = ${cypherString(pageId)}\nOPTIONAL MATCH (n)-[r]-(m)\nRETURN n, r, m LIMIT 80`;
  const result = useQuery({
    queryKey: ['graph', 'neighbourhood', pageId],
    queryFn: () => runGraphQuery(query, 80),
    enabled: near,
  });
  const { failure, result: answer } = readGraphAnswer(result.data);
  const elements = useMemo(() => (answer ? extractElements(answer.records) : null), [answer]);
  const focus = elements?.nodes.find((n) => n.properties['wiki_id'] === pageId);
  const neighbours = elements?.nodes.filter((n) => n !== focus) ?? [];
  const open = useCallback(
    (props: Record<string, unknown>) => {
      if (typeof props['wiki_id'] === 'string') void navigate(`/wiki/${encodeURIComponent(props['wiki_id'])}`);
    },
    [navigate],
  );
  return (
    <section ref={ref} className="neighbourhood card" aria-labelledby="neighbourhood-title">
      <h2 id="neighbourhood-title">In the graph</h2>
      {!near || result.isPending ? (
        <Loading label="Loading the neighbourhood…" />
      ) : result.isError ? (
        <ErrorMessage error={result.error} title="The graph could not be read" />
      ) : failure ? (
        <p className="muted">The graph is unavailable: {failure}</p>
      ) : !focus ? (
        <p className="muted">This page has no node in the graph yet (it appears after the next wiki sync).</p>
      ) : (
        <>
          <p className="muted small">
            {neighbours.length} neighbour{neighbours.length === 1 ? '' : 's'} ·{' '}
            <Link to="/graph">open the graph explorer</Link>
          </p>
          <Suspense fallback={<Loading label="Drawing…" />}>
            <GraphView
              elements={elements!}
              focusId={focus.id}
              onOpen={open}
              label={`Graph neighbourhood of ${pageId}: ${neighbours.map(nodeCaption).join(', ') || 'no neighbours'}`}
            />
          </Suspense>
        </>
      )}
    </section>
  );
}
