import type { Completion } from '@codemirror/autocomplete';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useCallback, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { readGraphAnswer, runGraphQuery } from '../../api/graph';
import { q } from '../../api/queries';
import type { GraphQueryResult } from '../../api/types';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { cellText, extractElements } from '../../lib/graph-elements';
import { fmtNumber } from '../../lib/format';
import { useTitle } from '../../lib/use-title';
import { CypherEditor, type CypherEditorHandle } from './CypherEditor';
import GraphView from './GraphView';

const EXAMPLES = [
  { label: 'Algorithms and what they depend on', query: 'MATCH (a:Algorithm)-[r:DEPENDS_ON]->(p)\nRETURN a, r, p' },
  {
    label: 'Most cited papers',
    query:
      'MATCH (p:Paper)\nWHERE p.cited_by_count IS NOT NULL\nRETURN p.preprint_id, p.title, p.cited_by_count\nORDER BY p.cited_by_count DESC',
  },
  {
    label: 'Concepts used by most pages',
    query: 'MATCH (n)-[:USES]->(c:Concept)\nRETURN c.title AS concept, count(n) AS uses\nORDER BY uses DESC',
  },
];

function Schema({ onInsert }: { onInsert: (text: string) => void }) {
  const stats = useQuery(q.graphStats());
  const schema = useQuery(q.graphSchema());
  const { failure: statsFailure, result: s } = readGraphAnswer(stats.data);
  const { failure: schemaFailure, result: sc } = readGraphAnswer(schema.data);
  const failure = statsFailure ?? schemaFailure;
  if (stats.isPending || schema.isPending) return <Loading label="Loading the schema…" />;
  if (stats.isError) return <ErrorMessage error={stats.error} title="Graph statistics unavailable" />;
  if (schema.isError) return <ErrorMessage error={schema.error} title="Graph schema unavailable" />;
  if (failure) return <p className="notice notice-warn">The graph is unavailable: {failure}</p>;
  return (
    <>
      <p className="muted">
        {fmtNumber(s!.nodes)} nodes · {fmtNumber(s!.relationships)} relationships
      </p>
      <h3 id="labels-title">Node labels</h3>
      <ul className="schema-list" aria-labelledby="labels-title">
        {sc!.labels.map((l) => (
          <li key={l}>
            <button type="button" className="chip-button" onClick={() => onInsert(`MATCH (n:${l})\nRETURN n`)}>
              :{l} <span className="muted">{fmtNumber(s!.label_counts[l] ?? 0)}</span>
            </button>
          </li>
        ))}
      </ul>
      <h3 id="types-title">Relationship types</h3>
      <ul className="schema-list" aria-labelledby="types-title">
        {sc!.relationship_types.map((t) => (
          <li key={t}>
            <button
              type="button"
              className="chip-button"
              onClick={() => onInsert(`MATCH (a)-[r:${t}]->(b)\nRETURN a, r, b`)}
            >
              [:{t}]
            </button>
          </li>
        ))}
      </ul>
      <h3 id="keys-title">Property keys</h3>
      <p className="schema-keys mono small" aria-labelledby="keys-title">
        {sc!.property_keys.join(' · ')}
      </p>
    </>
  );
}

function Results({ result }: { result: GraphQueryResult }) {
  const [view, setView] = useState<'table' | 'graph'>('table');
  const navigate = useNavigate();
  const elements = useMemo(() => extractElements(result.records), [result]);
  const open = useCallback(
    (props: Record<string, unknown>) => {
      if (typeof props['wiki_id'] === 'string') void navigate(`/wiki/${encodeURIComponent(props['wiki_id'])}`);
    },
    [navigate],
  );
  return (
    <section aria-labelledby="results-title" className="graph-results">
      <div className="results-head">
        <h2 id="results-title">
          {fmtNumber(result.records.length)} {result.records.length === 1 ? 'row' : 'rows'}
          {result.truncated && <span className="muted small"> (cut at the limit)</span>}
        </h2>
        <div role="tablist" aria-label="Result view" className="tabs">
          {(['table', 'graph'] as const).map((v) => (
            <button
              key={v}
              type="button"
              role="tab"
              id={`tab-${v}`}
              aria-selected={view === v}
              aria-controls={`panel-${v}`}
              className="tab"
              onClick={() => setView(v)}
            >
              {v === 'table' ? 'Table' : `Graph (${elements.nodes.length} nodes)`}
            </button>
          ))}
        </div>
      </div>
      {view === 'table' ? (
        <div role="tabpanel" id="panel-table" aria-labelledby="tab-table" className="table-wrap">
          <table className="table result-table">
            <thead>
              <tr>
                {result.columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {result.records.map((r, i) => (
                <tr key={i}>
                  {result.columns.map((c) => (
                    <td key={c} className="mono small">
                      {cellText(r[c])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <div role="tabpanel" id="panel-graph" aria-labelledby="tab-graph">
          {elements.nodes.length === 0 ? (
            <p className="muted">The result holds no nodes to draw; return nodes or paths (e.g. RETURN a, r, b).</p>
          ) : (
            <GraphView
              elements={elements}
              onOpen={open}
              label={`Query result drawn as ${elements.nodes.length} nodes and ${elements.edges.length} relationships`}
            />
          )}
        </div>
      )}
    </section>
  );
}

export function Component() {
  useTitle('Graph explorer');
  const info = useQuery(q.serverInfo());
  const [params, setParams] = useSearchParams();
  const [text, setText] = useState(params.get('query') ?? EXAMPLES[0]!.query);
  const [limit, setLimit] = useState(100);
  const editor = useRef<CypherEditorHandle>(null);
  const schema = useQuery(q.graphSchema());
  const words = useMemo<Completion[]>(() => {
    const sc = readGraphAnswer(schema.data).result;
    return sc
      ? [
          ...sc.labels.map((l) => ({ label: l, type: 'type', detail: 'label' })),
          ...sc.relationship_types.map((t) => ({ label: t, type: 'enum', detail: 'relationship' })),
          ...sc.property_keys.map((k) => ({ label: k, type: 'property' })),
        ]
      : [];
  }, [schema.data]);
  const run = useMutation({ mutationFn: (query: string) => runGraphQuery(query, limit) });
  const submit = () => {
    if (!text.trim()) return;
    setParams({ query: text }, { replace: true });
    run.mutate(text);
  };
  const insert = (query: string) => {
    editor.current?.setValue(query);
    setText(query);
    editor.current?.focus();
  };
  const { failure, result } = readGraphAnswer(run.data);

  if (info.data && !info.data.graph_configured) {
    return (
      <section className="page narrow">
        <h1>Graph explorer</h1>
        <p className="notice notice-info">
          The graph database is not configured on this server (GRAPHDB_URI is empty).
        </p>
      </section>
    );
  }
  return (
    <section className="page">
      <h1>Graph explorer</h1>
      <p className="lead">
        Read-only Cypher over papers, citations and wiki concepts: the server runs every query in a read transaction, so
        nothing here can change the graph.
      </p>
      <div className="graph-layout">
        <div>
          <form
            className="card"
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
          >
            <h2 className="label-like">Cypher query</h2>
            <CypherEditor
              ref={editor}
              value={text}
              onChange={setText}
              onRun={submit}
              words={words}
              label="Cypher query"
            />
            <div className="editor-bar">
              <div className="field inline">
                <label htmlFor="graph-limit">Row limit</label>
                <input
                  id="graph-limit"
                  type="number"
                  min={1}
                  max={10000}
                  value={limit}
                  onChange={(e) => setLimit(Math.max(1, Math.min(10000, Number(e.target.value) || 1)))}
                />
              </div>
              <span className="muted small">Ctrl + Enter runs the query</span>
              <button type="submit" className="button button-primary" disabled={run.isPending}>
                {run.isPending ? 'Running…' : 'Run query'}
              </button>
            </div>
            <div className="examples">
              <span className="muted small">Examples:</span>
              {EXAMPLES.map((ex) => (
                <button key={ex.label} type="button" className="chip-button" onClick={() => insert(ex.query)}>
                  {ex.label}
                </button>
              ))}
            </div>
          </form>
          {run.isError && <ErrorMessage error={run.error} title="The query was refused" />}
          {failure && (
            <div className="notice notice-error" role="alert">
              <strong>The graph reported an error.</strong> {failure}
            </div>
          )}
          {result && <Results result={result} />}
        </div>
        <aside className="card schema" aria-labelledby="schema-title">
          <h2 id="schema-title">Schema</h2>
          <Schema onInsert={insert} />
          <p className="muted small">
            Wiki pages appear as nodes with a <code>wiki_id</code>; <Link to="/wiki">browse the wiki</Link>.
          </p>
        </aside>
      </div>
    </section>
  );
}
