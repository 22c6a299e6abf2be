import { createBrowserRouter, redirect, type LoaderFunctionArgs } from 'react-router';
import { onUnauthorized } from '../api/client';
import { q, queryClient } from '../api/queries';
import { sessionToken } from '../auth/session';
import { Layout } from './Layout';
import { NotFound } from './NotFound';
import { RouteError } from './RouteError';

/** Where the sign-in page sends the user back to. */
const loginPath = (next: string): string => `/login?next=${encodeURIComponent(next)}`;

const here = (url: URL): string => url.pathname + url.search + url.hash;

/** Every data page needs a session: without one, sign in first and come back. */
function requireSession({ request }: LoaderFunctionArgs) {
  if (sessionToken()) return null;
  throw redirect(loginPath(here(new URL(request.url))));
}

/** Starts a page's data request while its code chunk downloads (both are needed before the first paint). */
const prefetch =
  (start: (args: LoaderFunctionArgs) => void) =>
  (args: LoaderFunctionArgs): null => {
    if (sessionToken()) start(args);
    return null;
  };

export const router = createBrowserRouter([
  {
    path: '/',
    Component: Layout,
    ErrorBoundary: RouteError,
    children: [
      { path: 'login', lazy: () => import('../pages/LoginPage') },
      { path: 'auth/callback', lazy: () => import('../pages/AuthCallbackPage') },
      {
        loader: requireSession,
        ErrorBoundary: RouteError,
        children: [
          { index: true, lazy: () => import('../pages/HomePage') },
          { path: 'pat', lazy: () => import('../pages/PatPage') },
          { path: 'device', lazy: () => import('../pages/DevicePage') },
          { path: 'wiki', lazy: () => import('../pages/wiki/WikiListPage') },
          {
            path: 'wiki/:id',
            loader: prefetch(({ params }) => {
              void queryClient.prefetchQuery(q.page(params['id'] ?? ''));
            }),
            lazy: () => import('../pages/wiki/WikiPage'),
          },
          { path: 'search', lazy: () => import('../pages/wiki/SearchPage') },
          { path: 'papers', lazy: () => import('../pages/papers/PapersPage') },
          { path: 'papers/*', lazy: () => import('../pages/papers/PaperPage') },
          { path: 'graph', lazy: () => import('../pages/graph/GraphPage') },
        ],
      },
      { path: '*', Component: NotFound },
    ],
  },
]);

onUnauthorized(() => {
  const { pathname, search, hash } = window.location;
  if (pathname === '/login' || pathname === '/auth/callback') return;
  queryClient.clear();
  void router.navigate(loginPath(pathname + search + hash), { replace: true });
});
