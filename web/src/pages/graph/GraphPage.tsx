import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { graphQuery, readGraphAnswer, runGraphQuery } from '../../api/graph';
import { q } from '../../api/queries';
import type { GraphQueryResult } from '../../api/types';
import { ErrorMessage, errorText } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { fmtNumber } from '../../lib/format';
import {
  capElements,
  cellText,
  DRAW_CAP,
  extractElements,
  mergeElements,
  neighboursQuery,
  nodeCaption,
  type GNode,
  type GraphElements,
} from '../../lib/graph-elements';
import { paperPath } from '../../lib/paper-ref';
import { useTitle } from '../../lib/use-title';
import { CypherEditor, type CypherEditorHandle, type SchemaNames } from './CypherEditor';
import GraphView, { type Selection } from './GraphView';

const DEFAULT_LIMIT = 100;
/** Relationships fetched when a node is expanded. */
const EXPAND_LIMIT = 100;

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

/** The properties of the selected node or relationship, with what can be done with it. */
function ElementPanel({
  selection,
  captionOf,
  onExpand,
  expanding,
}: {
  selection: Selection | null;
  captionOf: (id: string) => string;
  onExpand: (node: GNode) => void;
  expanding: boolean;
}) {
  if (!selection) {
    return (
      <aside className="element-panel" aria-labelledby="element-title">
        <h3 id="element-title">Details</h3>
        <p className="muted small">
          Click a node or relationship to see its properties here; double-click a node to expand its neighbours. Drag to
          pan, scroll to zoom.
        </p>
      </aside>
    );
  }
  const properties = selection.kind === 'node' ? selection.node.properties : selection.edge.properties;
  const keys = Object.keys(properties).sort();
  return (
    <aside className="element-panel" aria-labelledby="element-title">
      {selection.kind === 'node' ? (
        <>
          <h3 id="element-title">{nodeCaption(selection.node)}</h3>
          <p className="element-kind">
            Node{' '}
            {selection.node.labels.map((l) => (
              <code key={l}>:{l}</code>
            ))}
          </p>
          <NodeActions node={selection.node} onExpand={onExpand} expanding={expanding} />
        </>
      ) : (
        <>
          <h3 id="element-title">
            <code>[:{selection.edge.type}]</code>
          </h3>
          <p className="element-kind">
            Relationship from <strong>{captionOf(selection.edge.start_node)}</strong> to{' '}
            <strong>{captionOf(selection.edge.end_node)}</strong>
          </p>
        </>
      )}
      {keys.length === 0 ? (
        <p className="muted small">No properties.</p>
      ) : (
        <dl className="element-properties">
          {keys.map((k) => (
            <div key={k}>
              <dt className="mono">{k}</dt>
              <dd className="mono">{cellText(properties[k])}</dd>
            </div>
          ))}
        </dl>
      )}
    </aside>
  );
}

function NodeActions({
  node,
  onExpand,
  expanding,
}: {
  node: GNode;
  onExpand: (node: GNode) => void;
  expanding: boolean;
}) {
  const wikiId = node.properties['wiki_id'];
  const preprintId = node.properties['preprint_id'];
  return (
    <div className="element-actions">
      <button type="button" className="button" onClick={() => onExpand(node)} disabled={expanding}>
        {expanding ? 'Expanding…' : 'Expand neighbours'}
      </button>
      {typeof wikiId === 'string' && wikiId && (
        <Link className="button" to={`/wiki/${encodeURIComponent(wikiId)}`}>
          Open wiki page
        </Link>
      )}
      {node.labels.includes('Paper') && typeof preprintId === 'string' && preprintId && (
        <Link className="button" to={paperPath(preprintId)}>
          Open paper
        </Link>
      )}
    </div>
  );
}

/** A query's neighbours added to the drawing (double-click or "Expand neighbours"). */
function useExpansion() {
  const [extra, setExtra] = useState<GraphElements>({ nodes: [], edges: [] });
  const [status, setStatus] = useState('');
  const expand = useMutation({
    mutationFn: (node: GNode) => runGraphQuery(neighboursQuery(node.id, EXPAND_LIMIT), EXPAND_LIMIT),
    onSuccess: (answer, node) => {
      const { failure, result } = readGraphAnswer(answer);
      if (failure || !result) {
        setStatus(`Could not expand ${nodeCaption(node)}: ${failure ?? 'no answer'}`);
        return;
      }
      const found = extractElements(result.records);
      setExtra((before) => mergeElements(before, found));
      const others = found.nodes.filter((n) => n.id !== node.id).length;
      setStatus(`Expanded ${nodeCaption(node)}: ${others} ${others === 1 ? 'neighbour' : 'neighbours'}.`);
    },
    onError: (error, node) => setStatus(`Could not expand ${nodeCaption(node)}: ${errorText(error)}`),
  });
  return { extra, status, expand };
}

function Results({ result }: { result: GraphQueryResult }) {
  const elements = useMemo(() => extractElements(result.records), [result]);
  const [view, setView] = useState<'table' | 'graph'>(elements.nodes.length > 0 ? 'graph' : 'table');
  const [selection, setSelection] = useState<Selection | null>(null);
  const { extra, status, expand } = useExpansion();
  const all = useMemo(() => mergeElements(elements, extra), [elements, extra]);
  const { drawn, hidden } = useMemo(() => capElements(all), [all]);
  const captionOf = useCallback(
    (id: string) => {
      const n = all.nodes.find((x) => x.id === id);
      return n ? nodeCaption(n) : id;
    },
    [all],
  );
  const onExpand = useCallback((node: GNode) => expand.mutate(node), [expand]);
  return (
    <section aria-labelledby="results-title" className="graph-results">
      <div className="results-head">
        <h2 id="results-title">
          {fmtNumber(result.records.length)} {result.records.length === 1 ? 'row' : 'rows'}
          {result.truncated && <span className="muted small"> (cut at the limit)</span>}
        </h2>
        <div role="tablist" aria-label="Result view" className="tabs">
          {(['graph', 'table'] as const).map((v) => (
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
              {v === 'table' ? 'Table' : `Graph (${all.nodes.length} nodes)`}
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
          {all.nodes.length === 0 ? (
            <p className="muted">The result holds no nodes to draw; return nodes or paths (e.g. RETURN a, r, b).</p>
          ) : (
            <>
              {hidden > 0 && (
                <p className="notice notice-info drawing-cap">
                  The drawing shows the first {fmtNumber(DRAW_CAP)} of {fmtNumber(all.nodes.length)} nodes (
                  {fmtNumber(hidden)} not drawn); the table lists every row.
                </p>
              )}
              <div className="explorer-graph">
                <GraphView
                  elements={drawn}
                  onSelect={setSelection}
                  onExpand={onExpand}
                  label={`Query result drawn as ${drawn.nodes.length} nodes and ${drawn.edges.length} relationships`}
                />
                <ElementPanel
                  selection={selection}
                  captionOf={captionOf}
                  onExpand={onExpand}
                  expanding={expand.isPending}
                />
              </div>
              <p className="muted small" role="status">
                {status}
              </p>
            </>
          )}
        </div>
      )}
    </section>
  );
}

/** The query and limit in the address: each run is a history entry, and Back shows its result again. */
function useQueryInAddress(): { query: string | null; limit: number; go: (query: string, limit: number) => void } {
  const [params, setParams] = useSearchParams();
  const query = params.get('query');
  const limit = clampLimit(Number(params.get('limit') ?? DEFAULT_LIMIT));
  const go = useCallback((q: string, l: number) => setParams({ query: q, limit: String(l) }), [setParams]);
  return { query, limit, go };
}

const clampLimit = (n: number): number => (Number.isFinite(n) ? Math.max(1, Math.min(10000, Math.trunc(n))) : 1);

export function Component() {
  useTitle('Graph explorer');
  const info = useQuery(q.serverInfo());
  const address = useQueryInAddress();
  const [text, setText] = useState(address.query ?? EXAMPLES[0]!.query);
  const [limit, setLimit] = useState(address.limit);
  const [cancelled, setCancelled] = useState(false);
  const editor = useRef<CypherEditorHandle>(null);
  const queryClient = useQueryClient();
  const schema = useQuery(q.graphSchema());
  const names = useMemo<SchemaNames>(() => {
    const sc = readGraphAnswer(schema.data).result;
    return {
      labels: sc?.labels ?? [],
      relationshipTypes: sc?.relationship_types ?? [],
      propertyKeys: sc?.property_keys ?? [],
    };
  }, [schema.data]);
  const options = graphQuery(address.query, address.limit);
  const run = useQuery(options);
  const running = run.fetchStatus === 'fetching';

  // Back and Forward bring another query into the address: the editor shows it.
  const textNow = useRef(text);
  textNow.current = text;
  useEffect(() => {
    if (address.query === null) return;
    if (textNow.current !== address.query) {
      editor.current?.setValue(address.query);
      setText(address.query);
    }
    setLimit(address.limit);
    setCancelled(false);
  }, [address.query, address.limit]);

  // The Cancel button is gone once the query has stopped: focus goes back to Run.
  const runButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (cancelled && !running) runButton.current?.focus();
  }, [cancelled, running]);

  const submit = () => {
    if (!text.trim() || running) return;
    setCancelled(false);
    if (text === address.query && limit === address.limit) void run.refetch();
    else address.go(text, limit);
  };
  const cancel = () => {
    setCancelled(true);
    void queryClient.cancelQueries({ queryKey: options.queryKey });
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
              names={names}
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
                  onChange={(e) => setLimit(clampLimit(Number(e.target.value) || 1))}
                />
              </div>
              <span className="muted small">Ctrl + Enter runs the query</span>
              <div className="run-buttons">
                {running && (
                  <button type="button" className="button" onClick={cancel}>
                    Cancel
                  </button>
                )}
                <button ref={runButton} type="submit" className="button button-primary" disabled={running}>
                  {running ? 'Running…' : 'Run query'}
                </button>
              </div>
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
          {cancelled && !running && (
            <p className="notice notice-info" role="status">
              The query was cancelled; the server stopped it.
            </p>
          )}
          {run.isError && !running && <ErrorMessage error={run.error} title="The query was refused" />}
          {failure && !running && (
            <div className="notice notice-error" role="alert">
              <strong>The graph reported an error.</strong> {failure}
            </div>
          )}
          {running && <Loading label="Running the query…" />}
          {result && !running && <Results key={run.dataUpdatedAt} result={result} />}
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
