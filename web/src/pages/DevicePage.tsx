import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { api, ApiError } from '../api/client';
import type { DeviceRequestView, DeviceStatus } from '../api/types';
import { Badge, type Tone } from '../components/Badge';
import { ErrorMessage } from '../components/ErrorMessage';
import { ExpiryPicker } from '../components/ExpiryPicker';
import { Loading } from '../components/Loading';
import { READ_SCOPES, ScopePicker } from '../components/ScopePicker';
import { focusSoon } from '../lib/focus';
import { fmtCountdown } from '../lib/format';
import { useNow } from '../lib/use-now';
import { useTitle } from '../lib/use-title';

/** The request states of CONTRACT §7.8, in words. */
const STATUS: Record<DeviceStatus, { label: string; tone: Tone; text: string }> = {
  pending: { label: 'Waiting for you', tone: 'info', text: 'The client is waiting for you to approve or deny it.' },
  approved: {
    label: 'Approved',
    tone: 'good',
    text: 'Approved. The client receives its token at its next poll; you can return to it now.',
  },
  denied: { label: 'Denied', tone: 'bad', text: 'Denied. The client has been told that access was refused.' },
  consumed: {
    label: 'Completed',
    tone: 'good',
    text: 'Completed. The client has received its token; it is listed on the Tokens page.',
  },
  expired: {
    label: 'Expired',
    tone: 'warn',
    text: 'This request expired (requests live 10 minutes). Start the sign-in again in the client.',
  },
};

/** `ABCD-EFGH` from whatever was typed (the server normalises the same way). */
const normalise = (code: string): string => {
  const c = code.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
  return c.length === 8 ? `${c.slice(0, 4)}-${c.slice(4)}` : c;
};

function lookupError(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 404) return 'No sign-in request has this code. Check the code the client shows.';
  if (error.status === 400) return 'That is not a valid code: codes have 8 letters and digits, like WDJB-MJHT.';
  return null;
}

function Decision({ request }: { request: DeviceRequestView }) {
  const queryClient = useQueryClient();
  const asked = request.scopes;
  const noneAsked = asked.length === 0;
  const scopeInfos = request.available_scopes.map((name) => ({
    name,
    description: request.scope_descriptions[name] ?? '',
  }));
  const [name, setName] = useState(request.name);
  const [scopes, setScopes] = useState<string[]>(noneAsked ? READ_SCOPES(scopeInfos) : asked);
  const [days, setDays] = useState(Math.min(request.expires_in_days, request.max_expiry_days));
  // The form goes once the request is decided: focus goes to the sentence saying what happened.
  const settle = async () => {
    await queryClient.invalidateQueries({ queryKey: ['device', request.user_code] });
    focusSoon('device-status');
  };
  const approve = useMutation({
    mutationFn: () =>
      api('/api/oauth/device/approve', {
        method: 'POST',
        json: { user_code: request.user_code, name: name.trim(), scopes, expires_in_days: days },
      }),
    onSettled: settle,
  });
  const deny = useMutation({
    mutationFn: () => api('/api/oauth/device/deny', { method: 'POST', json: { user_code: request.user_code } }),
    onSettled: settle,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    approve.mutate();
  };
  const busy = approve.isPending || deny.isPending;
  return (
    <form className="form" onSubmit={submit} aria-labelledby="decision-title">
      <h2 id="decision-title">Approve this client?</h2>
      <p>
        A client asked for a personal access token named <strong>{request.name}</strong>
        {request.description && <> ({request.description})</>} with{' '}
        {noneAsked ? <strong>no scopes</strong> : <strong>{asked.join(', ')}</strong>}, valid for{' '}
        {request.expires_in_days} days. Only approve if you started this sign-in yourself.
      </p>
      {noneAsked && (
        <p className="notice notice-info">
          The client asked for no scopes, and a token without scopes is refused by every endpoint. The read scopes are
          selected so the token is useful; change them if the client needs something else.
        </p>
      )}
      <div className="field">
        <label htmlFor="device-name">Token name</label>
        <input id="device-name" required maxLength={80} value={name} onChange={(e) => setName(e.target.value)} />
      </div>
      <ScopePicker
        legend="Scopes for the token"
        idPrefix="device-scope"
        scopes={scopeInfos}
        value={scopes}
        onChange={setScopes}
      />
      <ExpiryPicker
        idPrefix="device-expiry"
        value={days}
        onChange={setDays}
        max={request.max_expiry_days}
        extra={request.expires_in_days}
      />
      {approve.isError && <ErrorMessage error={approve.error} title="Not approved" />}
      {deny.isError && <ErrorMessage error={deny.error} title="Not denied" />}
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          Approve
        </button>
        <button type="button" className="button button-danger" disabled={busy} onClick={() => deny.mutate()}>
          Deny
        </button>
      </div>
    </form>
  );
}

/** How often the page asks whether the client has taken its token (or the request has changed otherwise). */
const WATCH_MS = 3000;

/** "Expires in 9:41" while the request waits; asks the server again when the time is up (it answers `expired`). */
function Countdown({ expiresAt, onExpired }: { expiresAt: string; onExpired: () => void }) {
  const now = useNow(1000);
  const left = (Date.parse(expiresAt) - now) / 1000;
  const over = left <= 0;
  useEffect(() => {
    if (over) onExpired();
  }, [over, onExpired]);
  return (
    <p className="device-countdown muted" role="timer">
      {over ? 'The request has expired.' : `Expires in ${fmtCountdown(left)}.`}
    </p>
  );
}

function RequestView({ code }: { code: string }) {
  const queryClient = useQueryClient();
  const request = useQuery({
    queryKey: ['device', code],
    queryFn: () => api<DeviceRequestView>(`/api/oauth/device/code?user_code=${encodeURIComponent(code)}`),
    staleTime: 0,
    // A pending request may be decided elsewhere or expire, an approved one is completed when the client polls.
    refetchInterval: (query) =>
      query.state.data?.status === 'pending' || query.state.data?.status === 'approved' ? WATCH_MS : false,
  });
  const expired = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: ['device', code] }),
    [queryClient, code],
  );
  if (request.isPending) return <Loading label="Looking up the request…" />;
  if (request.isError) {
    const text = lookupError(request.error);
    return text ? (
      <p className="notice notice-error" role="alert">
        {text}
      </p>
    ) : (
      <ErrorMessage error={request.error} title="The request could not be looked up" />
    );
  }
  const r = request.data;
  const status = STATUS[r.status];
  return (
    <section className="card" aria-labelledby="request-title">
      <h2 id="request-title" className="request-title">
        Request <code>{r.user_code}</code> <Badge tone={status.tone}>{status.label}</Badge>
      </h2>
      <p role="status" className="device-status" id="device-status" tabIndex={-1}>
        {status.text}
      </p>
      {r.status === 'pending' && <Countdown expiresAt={r.expires_at} onExpired={expired} />}
      {r.status === 'pending' && <Decision key={r.user_code} request={r} />}
      {r.status !== 'pending' && (
        <dl className="facts">
          <dt>Token name</dt>
          <dd>{r.name}</dd>
          <dt>Scopes</dt>
          <dd>{r.scopes.length ? r.scopes.join(', ') : 'none'}</dd>
          <dt>Valid for</dt>
          <dd>{r.expires_in_days} days</dd>
        </dl>
      )}
    </section>
  );
}

export function Component() {
  useTitle('Approve a device');
  const [params, setParams] = useSearchParams();
  const fromUrl = params.get('user_code') ?? '';
  const [text, setText] = useState(fromUrl);
  useEffect(() => setText(fromUrl), [fromUrl]);
  const code = fromUrl ? normalise(fromUrl) : '';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParams({ user_code: normalise(text) });
  };
  return (
    <section className="page narrow">
      <h1>Approve a device</h1>
      <p className="lead">
        A command-line client (such as <code>pks auth login</code>) shows a code. Enter it here to give that client a
        personal access token.
      </p>
      <form className="card inline-form" onSubmit={submit}>
        <div className="field">
          <label htmlFor="user-code">Code shown by the client</label>
          <input
            id="user-code"
            className="mono code-input"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            placeholder="ABCD-EFGH"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        </div>
        <button type="submit" className="button button-primary">
          Look up
        </button>
      </form>
      {code && <RequestView key={code} code={code} />}
    </section>
  );
}
