import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { errorText } from '../components/ErrorMessage';
import { useTitle } from '../lib/use-title';

/** A route's code chunk or data failed: say what happened and offer a way on. */
export function RouteError() {
  const error = useRouteError();
  useTitle('Error');
  const chunk = error instanceof TypeError && /import|module/i.test(error.message);
  return (
    <section className="page narrow">
      <h1>This page could not be shown</h1>
      <div className="notice notice-error" role="alert">
        {isRouteErrorResponse(error)
          ? `${error.status} ${error.statusText}`
          : chunk
            ? 'Part of the application could not be loaded; the server may have been updated.'
            : errorText(error)}
      </div>
      <p>
        <button type="button" className="button" onClick={() => window.location.reload()}>
          Reload
        </button>{' '}
        <Link to="/">Go to the overview</Link>
      </p>
    </section>
  );
}
