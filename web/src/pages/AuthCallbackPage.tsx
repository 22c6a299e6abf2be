import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { finishSignIn, takePendingSignIn, type PendingSignIn } from '../auth/oauth';
import { Loading } from '../components/Loading';
import { useTitle } from '../lib/use-title';

/** Taken once per page load: a re-render (or React's development double effect) must see the same value. */
let pendingOnce: PendingSignIn | null | undefined;

function failureText(err: unknown): string {
  const status = (err as { status?: number }).status;
  if (status === 403) {
    return 'This account is not authorized to sign in. Ask an administrator to add your login to the allow-list.';
  }
  if (status === 400) return 'The identity provider did not confirm the sign-in. Please try again.';
  return 'The sign-in could not be completed because the server could not be reached. Please try again.';
}

export function Component() {
  useTitle('Signing in');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    pendingOnce ??= takePendingSignIn();
    const pending = pendingOnce;
    const code = params.get('code');
    if (params.get('error')) {
      setError(`The identity provider refused the sign-in: ${params.get('error_description') ?? params.get('error')}.`);
      return;
    }
    if (!pending || !code) {
      setError('This sign-in link is incomplete or was already used. Start again from the sign-in page.');
      return;
    }
    if (params.get('state') !== pending.state) {
      setError('The sign-in answer does not match the request this browser made. Start again from the sign-in page.');
      return;
    }
    finishSignIn(pending, code).then(
      () => void navigate(pending.next, { replace: true }),
      (err: unknown) => setError(failureText(err)),
    );
  }, [params, navigate]);

  return (
    <section className="page narrow">
      <h1>Signing in</h1>
      {error ? (
        <>
          <div className="notice notice-error" role="alert">
            {error}
          </div>
          <p>
            <Link to="/login" className="button">
              Back to sign-in
            </Link>
          </p>
        </>
      ) : (
        <Loading label="Finishing sign-in…" />
      )}
    </section>
  );
}
