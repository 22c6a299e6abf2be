import { useEffect, useRef } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate, useNavigation } from 'react-router';
import { queryClient } from '../api/queries';
import { displayName, logout, useSession } from '../auth/session';
import { useSearchForm } from '../lib/use-search-form';

const NAV = [
  { to: '/', label: 'Home', end: true },
  { to: '/wiki', label: 'Wiki', end: false },
  { to: '/search', label: 'Search', end: false },
  { to: '/papers', label: 'Papers', end: false },
  { to: '/graph', label: 'Graph', end: false },
  { to: '/pat', label: 'Tokens', end: false },
];

function HeaderSearch() {
  const { text, setText, submit } = useSearchForm();
  return (
    <form role="search" className="header-search" onSubmit={submit}>
      <label htmlFor="header-search-input" className="visually-hidden">
        Search the wiki
      </label>
      <input
        id="header-search-input"
        type="search"
        placeholder="Search the wiki…"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
    </form>
  );
}

function UserMenu() {
  const user = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  if (!user) {
    if (location.pathname === '/login') return null;
    return (
      <Link
        className="button button-primary"
        to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`}
      >
        Sign in
      </Link>
    );
  }
  const signOut = async () => {
    await logout();
    queryClient.clear();
    void navigate('/login', { replace: true });
  };
  return (
    <div className="user-menu">
      <span className="avatar" aria-hidden="true">
        {displayName(user).slice(0, 1).toUpperCase()}
      </span>
      <span className="user-name" title={user.email}>
        {displayName(user)}
      </span>
      <button type="button" className="button button-quiet" onClick={() => void signOut()}>
        Sign out
      </button>
    </div>
  );
}

/** The frame of every page: skip link, header with navigation, main region, footer. */
export function Layout() {
  const user = useSession();
  const navigation = useNavigation();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  // After a client-side navigation, focus moves to the new content (as a page load would do for screen readers).
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (!location.hash) main.current?.focus({ preventScroll: true });
  }, [location.pathname, location.hash]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      {navigation.state !== 'idle' && <div className="nav-progress" aria-hidden="true" />}
      <header className="site-header">
        <div className="header-row">
          <Link to="/" className="brand">
            <img src="/favicon.svg" alt="" width="28" height="28" />
            <span>
              pks <span className="brand-sub">paper knowledge</span>
            </span>
          </Link>
          {user && <HeaderSearch />}
          <UserMenu />
        </div>
        {user && (
          <nav aria-label="Main" className="main-nav">
            <ul>
              {NAV.map((item) => (
                <li key={item.to}>
                  <NavLink to={item.to} end={item.end}>
                    {item.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
        )}
      </header>
      <main id="main" ref={main} tabIndex={-1} aria-busy={navigation.state !== 'idle'}>
        <Outlet />
      </main>
      <footer className="site-footer">
        <a href="/swagger/index.html">API reference</a>
        <a href="/_/">Admin UI</a>
        <a href="/api/health">Health</a>
      </footer>
    </div>
  );
}
