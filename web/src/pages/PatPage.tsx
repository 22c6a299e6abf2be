import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { q } from '../api/queries';
import type { PatCreated, PatItem } from '../api/types';
import { Badge } from '../components/Badge';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { DataTable } from '../components/DataTable';
import { ErrorMessage } from '../components/ErrorMessage';
import { DEFAULT_EXPIRY_DAYS, ExpiryPicker } from '../components/ExpiryPicker';
import { Loading } from '../components/Loading';
import { READ_SCOPES, ScopePicker } from '../components/ScopePicker';
import { focusSoon } from '../lib/focus';
import { fmtDate, fmtRelative } from '../lib/format';
import { useTitle } from '../lib/use-title';

/** Focus goes to the token itself (selected, ready to copy) when it is shown. */
function CreatedToken({ token, onDone }: { token: PatCreated; onDone: () => void }) {
  useEffect(() => focusSoon('new-token'), []);
  return (
    <section className="card token-created" aria-labelledby="created-title">
      <h2 id="created-title">Token “{token.name}” created</h2>
      <p className="notice notice-warn" role="alert">
        Copy this token now. It is shown only once: the server keeps only a hash and cannot show it again.
      </p>
      <label htmlFor="new-token">Your new token</label>
      <div className="token-row">
        <input id="new-token" className="mono" readOnly value={token.plaintext} onFocus={(e) => e.target.select()} />
        <CopyButton text={token.plaintext} />
      </div>
      <p className="muted">
        Scopes: {token.scopes.length ? token.scopes.join(', ') : 'none'} · expires {fmtDate(token.expires_at)}. Use it
        as <code>Authorization: Bearer {token.prefix}…</code>, or store it for the CLI with{' '}
        <code>pks auth login --with-token</code>.
      </p>
      <button type="button" className="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}

function CreateForm({ onCreated }: { onCreated: (t: PatCreated) => void }) {
  const scopes = useQuery(q.scopes());
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<string[] | null>(null);
  const [days, setDays] = useState(DEFAULT_EXPIRY_DAYS);
  const selected = chosen ?? READ_SCOPES(scopes.data?.scopes ?? []);
  const create = useMutation({
    mutationFn: () =>
      api<PatCreated>('/api/pat', {
        method: 'POST',
        json: { name: name.trim(), description: description.trim(), expires_in_days: days, scopes: selected },
      }),
    onSuccess: (token) => {
      onCreated(token);
      setName('');
      setDescription('');
      void queryClient.invalidateQueries({ queryKey: ['pats'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="card form" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">Create a token</h2>
      <div className="field">
        <label htmlFor="pat-name">Name</label>
        <input
          id="pat-name"
          required
          maxLength={80}
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="laptop CLI"
          aria-describedby="pat-name-hint"
        />
        <span id="pat-name-hint" className="field-note muted">
          Up to 80 characters; shown in the list so you can tell tokens apart.
        </span>
      </div>
      <div className="field">
        <label htmlFor="pat-description">
          Description <span className="muted">(optional)</span>
        </label>
        <textarea
          id="pat-description"
          maxLength={200}
          rows={2}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </div>
      {scopes.isError && <ErrorMessage error={scopes.error} title="The scope list is unavailable" />}
      {scopes.data && (
        <ScopePicker
          legend="Scopes"
          idPrefix="pat-scope"
          scopes={scopes.data.scopes}
          value={selected}
          onChange={setChosen}
        />
      )}
      <ExpiryPicker idPrefix="pat-expiry" value={days} onChange={setDays} max={scopes.data?.max_expiry_days} />
      {create.isError && <ErrorMessage error={create.error} title="The token was not created" />}
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={create.isPending || !scopes.data}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

function TokenList() {
  const pats = useQuery(q.pats());
  const queryClient = useQueryClient();
  const [target, setTarget] = useState<PatItem | null>(null);
  const revoke = useMutation({
    mutationFn: (id: string) => api<{ ok: boolean }>(`/api/pat/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['pats'] }),
  });
  const confirm = () => {
    // The revoked token's row (and its button, where the dialog would return focus) goes: focus goes to the list.
    if (target) revoke.mutate(target.id, { onSettled: () => focusSoon('list-title') });
    setTarget(null);
  };
  if (pats.isPending) return <Loading label="Loading your tokens…" />;
  if (pats.isError) return <ErrorMessage error={pats.error} title="Your tokens could not be listed" />;
  const tokens = pats.data.tokens;
  return (
    <section aria-labelledby="list-title">
      <h2 id="list-title" tabIndex={-1}>
        Your tokens
      </h2>
      {revoke.isError && <ErrorMessage error={revoke.error} title="The token was not revoked" />}
      {revoke.isSuccess && (
        <p className="notice notice-info" role="status">
          Token revoked. Clients using it now get 401.
        </p>
      )}
      {tokens.length === 0 ? (
        <p className="muted">You have no tokens yet.</p>
      ) : (
        <DataTable
          stacked
          columns={[
            'Name',
            'Token',
            'Scopes',
            'Created',
            'Last used',
            'Expires',
            <span className="visually-hidden">Actions</span>,
          ]}
        >
          {tokens.map((t) => (
            <tr key={t.id}>
              <td data-label="Name">
                <strong>{t.name}</strong>
                {t.description && <div className="muted small">{t.description}</div>}
              </td>
              <td data-label="Token">
                <code>{t.prefix}…</code>
              </td>
              <td data-label="Scopes">
                {t.scopes.length ? (
                  <span className="chips">
                    {t.scopes.map((s) => (
                      <Badge key={s}>{s}</Badge>
                    ))}
                  </span>
                ) : (
                  <Badge tone="warn" title="Refused by every endpoint">
                    no scopes
                  </Badge>
                )}
              </td>
              <td data-label="Created">{fmtDate(t.created)}</td>
              <td data-label="Last used">{t.last_used_at ? fmtRelative(t.last_used_at) : 'never'}</td>
              <td data-label="Expires">
                {t.expired ? (
                  <Badge tone="bad">expired</Badge>
                ) : (
                  <span title={t.expires_at}>{fmtDate(t.expires_at)}</span>
                )}
              </td>
              <td>
                <button
                  type="button"
                  className="button button-danger button-small"
                  onClick={() => setTarget(t)}
                  aria-label={`Revoke ${t.name} (${t.prefix}…)`}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ConfirmDialog
        open={target !== null}
        title="Revoke this token?"
        confirmLabel="Revoke token"
        onConfirm={confirm}
        onCancel={() => setTarget(null)}
      >
        <p>
          “{target?.name}” (<code>{target?.prefix}…</code>) stops working at once. Clients that use it will have to be
          given a new token. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}

export function Component() {
  useTitle('Personal access tokens');
  const [created, setCreated] = useState<PatCreated | null>(null);
  return (
    <section className="page">
      <h1>Personal access tokens</h1>
      <p className="lead">
        Tokens let scripts and the <code>pks</code> command line call the API as you, limited to the scopes you choose.
      </p>
      {created ? (
        <CreatedToken
          token={created}
          onDone={() => {
            setCreated(null);
            // The new token is now a row of the list below.
            focusSoon('list-title');
          }}
        />
      ) : (
        <CreateForm onCreated={setCreated} />
      )}
      <TokenList />
    </section>
  );
}
