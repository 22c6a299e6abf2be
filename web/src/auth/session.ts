import { getTokenPayload } from 'pocketbase';
import { useSyncExternalStore } from 'react';
import { pb } from './pb';

export interface SessionUser {
  id: string;
  name: string;
  login: string;
  email: string;
}

const MIN_RENEW_DELAY_MS = 60_000;
const RETRY_DELAY_MS = 60_000;

/** The session token when one is stored and not expired, else null. */
export function sessionToken(): string | null {
  return pb.authStore.isValid ? pb.authStore.token : null;
}

function readUser(): SessionUser | null {
  const r = pb.authStore.isValid ? pb.authStore.record : null;
  if (!r) return null;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return { id: r.id, name: str(r['name']), login: str(r['login']), email: str(r['email']) };
}

let snapshot = readUser();
const listeners = new Set<() => void>();
pb.authStore.onChange(() => {
  snapshot = readUser();
  for (const l of listeners) l();
  schedule();
});

/** The signed-in user (re-renders on sign-in, renewal and sign-out, also from other tabs). */
export function useSession(): SessionUser | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => snapshot,
  );
}

export const displayName = (u: SessionUser): string => u.name || u.login || u.email || u.id;

let timer: ReturnType<typeof setTimeout> | undefined;

/** Renews the session at half its remaining lifetime, so an open tab never holds an expired token. */
function schedule(delayMs?: number): void {
  clearTimeout(timer);
  if (!pb.authStore.isValid) return;
  const exp = Number(getTokenPayload(pb.authStore.token)['exp'] ?? 0) * 1000;
  const delay = delayMs ?? Math.max(MIN_RENEW_DELAY_MS, (exp - Date.now()) / 2);
  timer = setTimeout(() => void renewSession(), Math.min(delay, 2 ** 31 - 1));
}

let renewing: Promise<void> | null = null;

/**
 * `auth-refresh` (CONTRACT §7.2): a fresh 14-day token. A refusal (401, or 403 when the login left the allow-list)
 * ends the session; a network failure keeps it and retries.
 */
function renewSession(): Promise<void> {
  if (!pb.authStore.isValid) return Promise.resolve();
  renewing ??= pb
    .collection('users')
    .authRefresh()
    .then(
      () => undefined,
      (err: { status?: number }) => {
        if (err.status === 401 || err.status === 403) pb.authStore.clear();
        else schedule(RETRY_DELAY_MS);
      },
    )
    .finally(() => {
      renewing = null;
    });
  return renewing;
}

/** On every page load the session is renewed (CONTRACT §7.2), and again when a tab wakes up after a long sleep. */
export function startSessionKeeper(): void {
  void renewSession();
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && !pb.authStore.isValid && pb.authStore.token) pb.authStore.clear();
  });
}

/**
 * Signs out: asks the server to revoke the session (`auth-logout`, which invalidates every session token of the
 * user), then forgets the token locally whatever the answer.
 */
export async function logout(): Promise<void> {
  const token = pb.authStore.token;
  if (token) {
    await fetch('/api/collections/users/auth-logout', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    }).catch(() => undefined);
  }
  pb.authStore.clear();
}
