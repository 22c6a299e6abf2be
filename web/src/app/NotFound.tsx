import { Link } from 'react-router';
import { useTitle } from '../lib/use-title';

export function NotFound() {
  useTitle('Not found');
  return (
    <section className="page narrow">
      <h1>Page not found</h1>
      <p>There is nothing at this address.</p>
      <p>
        <Link to="/">Go to the overview</Link> or <Link to="/search">search the wiki</Link>.
      </p>
    </section>
  );
}
