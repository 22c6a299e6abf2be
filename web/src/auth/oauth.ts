import type { AuthProviderInfo } from 'pocketbase';
import { pb } from './pb';

const PENDING_KEY = 'pks.oauth.pending';

/** What the callback needs to finish a sign-in the login page started (kept in this tab only). */
export interface PendingSignIn {
  provider: string;
  state: string;
  codeVerifier: string;
  redirectURL: string;
  next: string;
}

/** The server's OAuth callback (CONTRACT §7.2); it redirects to /auth/callback with the IdP's query string. */
const redirectURL = (): string => `${window.location.origin}/api/oauth2-redirect`;

/** A `next` target is followed only when it is a path on this site (no open redirect). */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (next.startsWith('/login') || next.startsWith('/auth/callback')) return '/';
  return next;
}

/** Remembers the PKCE verifier and state, then leaves for the identity provider. */
export function beginSignIn(provider: AuthProviderInfo, next: string): void {
  const pending: PendingSignIn = {
    provider: provider.name,
    state: provider.state,
    codeVerifier: provider.codeVerifier,
    redirectURL: redirectURL(),
    next: safeNext(next),
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  window.location.assign(provider.authURL + encodeURIComponent(pending.redirectURL));
}

export function takePendingSignIn(): PendingSignIn | null {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as PendingSignIn;
  } catch {
    return null;
  }
}

const exchanges = new Map<string, Promise<void>>();

/** `auth-with-oauth2` once per code (a re-render must not spend the code twice). */
export function finishSignIn(pending: PendingSignIn, code: string): Promise<void> {
  let p = exchanges.get(code);
  if (!p) {
    p = pb
      .collection('users')
      .authWithOAuth2Code(pending.provider, code, pending.codeVerifier, pending.redirectURL, {})
      .then(() => undefined);
    exchanges.set(code, p);
  }
  return p;
}
