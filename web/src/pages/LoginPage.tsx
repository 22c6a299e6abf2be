import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { beginSignIn, safeNext } from '../auth/oauth';
import { pb } from '../auth/pb';
import { displayName, useSession } from '../auth/session';
import { ErrorMessage } from '../components/ErrorMessage';
import { Loading } from '../components/Loading';
import { useTitle } from '../lib/use-title';

export function Component() {
  useTitle('Sign in');
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const user = useSession();
  const methods = useQuery({
    queryKey: ['auth-methods'],
    // Each visit gets a fresh state and PKCE verifier from the server.
    queryFn: () => pb.collection('users').listAuthMethods(),
    staleTime: 0,
    gcTime: 0,
  });
  const providers = methods.data?.oauth2.enabled ? methods.data.oauth2.providers : [];

  return (
    <section className="page narrow login">
      <h1>Sign in</h1>
      {user ? (
        <div className="notice notice-info">
          You are signed in as <strong>{displayName(user)}</strong>. <Link to={next}>Continue</Link>
        </div>
      ) : (
        params.get('next') && <p className="lead">Sign in to continue to the page you asked for.</p>
      )}
      <div className="card">
        <p>
          Sign in with your account at the identity provider. Only accounts on this server's allow-list can sign in.
        </p>
        {methods.isPending && <Loading label="Loading sign-in methods…" />}
        {methods.isError && <ErrorMessage error={methods.error} title="Sign-in methods are unavailable" />}
        {methods.isSuccess && providers.length === 0 && (
          <p className="notice notice-warn">Sign-in through an identity provider is not configured on this server.</p>
        )}
        <ul className="provider-list">
          {providers.map((p) => (
            <li key={p.name}>
              <button type="button" className="button button-primary button-large" onClick={() => beginSignIn(p, next)}>
                Sign in with {p.displayName}
              </button>
            </li>
          ))}
        </ul>
      </div>
      <p className="muted">
        Administrators with a superuser account sign in at the <a href="/_/">admin UI</a>. Command-line clients sign in
        with <code>pks auth login</code>, which sends you to the device approval page.
      </p>
    </section>
  );
}
