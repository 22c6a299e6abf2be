import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { readGraphAnswer } from '../api/graph';
import { q } from '../api/queries';
import { displayName, useSession } from '../auth/session';
import { ErrorMessage } from '../components/ErrorMessage';
import { Loading } from '../components/Loading';
import { Stat } from '../components/StatCard';
import { useSearchForm } from '../lib/use-search-form';
import { useTitle } from '../lib/use-title';
import { PaperStats } from './papers/PaperStats';

function WikiCard() {
  const stats = useQuery(q.wikiStats());
  return (
    <section className="card" aria-labelledby="wiki-card-title">
      <h2 id="wiki-card-title">
        <Link to="/wiki">Wiki</Link>
      </h2>
      {stats.isPending && <Loading />}
      {stats.isError && <ErrorMessage error={stats.error} title="Wiki statistics unavailable" />}
      {stats.data && (
        <dl className="stats">
          <Stat label="Entries" value={stats.data.entries} />
          <Stat label="Sources" value={stats.data.sources} />
          <Stat label="Published" value={stats.data.by_status['published'] ?? 0} />
          <Stat label="Drafts" value={stats.data.by_status['draft'] ?? 0} />
        </dl>
      )}
    </section>
  );
}

function GraphCard() {
  const info = useQuery(q.serverInfo());
  const stats = useQuery({ ...q.graphStats(), enabled: info.data?.graph_configured === true });
  if (!info.data?.graph_configured) return null;
  const { failure, result: s } = readGraphAnswer(stats.data);
  return (
    <section className="card" aria-labelledby="graph-card-title">
      <h2 id="graph-card-title">
        <Link to="/graph">Graph</Link>
      </h2>
      {stats.isPending && <Loading />}
      {stats.isError && <ErrorMessage error={stats.error} title="Graph statistics unavailable" />}
      {failure && <p className="muted">The graph is unavailable: {failure}</p>}
      {s && (
        <dl className="stats">
          <Stat label="Nodes" value={s.nodes} />
          <Stat label="Relationships" value={s.relationships} />
          <Stat label="Labels" value={s.labels.length} />
        </dl>
      )}
    </section>
  );
}

export function Component() {
  useTitle('Overview');
  const user = useSession();
  const { text, setText, submit } = useSearchForm();
  return (
    <section className="page">
      <h1>{user ? `Welcome, ${displayName(user)}` : 'Overview'}</h1>
      <form role="search" className="hero-search" onSubmit={submit}>
        <label htmlFor="home-search">Search concepts, algorithms and papers</label>
        <div className="search-row">
          <input
            id="home-search"
            type="search"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="e.g. phase estimation"
          />
          <button type="submit" className="button button-primary">
            Search
          </button>
        </div>
      </form>
      <div className="grid-2">
        <WikiCard />
        <section className="card" aria-labelledby="papers-card-title">
          <h2 id="papers-card-title">
            <Link to="/papers">Papers</Link>
          </h2>
          <PaperStats />
        </section>
        <GraphCard />
        <section className="card" aria-labelledby="cli-card-title">
          <h2 id="cli-card-title">Command line and scripts</h2>
          <p>
            Create a <Link to="/pat">personal access token</Link> for scripts, or run <code>pks auth login</code> and
            approve the request on the <Link to="/device">device page</Link>.
          </p>
        </section>
      </div>
    </section>
  );
}
