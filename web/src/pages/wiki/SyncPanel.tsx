import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { q } from '../../api/queries';
import type { PullBody } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ErrorMessage } from '../../components/ErrorMessage';
import { fmtDateTime } from '../../lib/format';

/**
 * The wiki checkout's git state and a "pull" button. A browser session holds every scope (`*`), so every
 * signed-in user has `wiki:write`; a refusal would still be shown with the missing scope.
 */
export function SyncPanel() {
  const queryClient = useQueryClient();
  const status = useQuery(q.syncStatus());
  const pull = useMutation({
    mutationFn: () => api<PullBody>('/api/wiki/sync/pull', { method: 'POST' }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['wiki'] }),
  });
  const git = status.data?.git;
  return (
    <section className="card sync-panel" aria-labelledby="sync-title">
      <h2 id="sync-title">Wiki checkout</h2>
      {status.isError && <ErrorMessage error={status.error} title="Sync status unavailable" />}
      {status.data && !status.data.wiki.exists && (
        <p className="muted">The wiki directory does not exist on the server.</p>
      )}
      {git && !git.enabled && status.data?.wiki.exists && (
        <p className="muted">The wiki directory is not a git checkout.</p>
      )}
      {git?.enabled && (
        <>
          <dl className="facts compact">
            <dt>Branch</dt>
            <dd>
              {git.branch ?? 'detached HEAD'}
              {git.upstream && <span className="muted"> → {git.upstream}</span>}
            </dd>
            <dt>Commit</dt>
            <dd>
              <code>{git.commit}</code> <span className="muted small">{fmtDateTime(git.commit_time)}</span>
            </dd>
            <dt>State</dt>
            <dd className="chips">
              {git.dirty ? <Badge tone="warn">local changes</Badge> : <Badge tone="good">clean</Badge>}
              {typeof git.behind === 'number' && git.behind > 0 && <Badge tone="info">{git.behind} behind</Badge>}
              {typeof git.ahead === 'number' && git.ahead > 0 && <Badge tone="warn">{git.ahead} ahead</Badge>}
            </dd>
          </dl>
          {git.warnings?.map((w) => (
            <p key={w.code} className="notice notice-warn">
              {w.message}
            </p>
          ))}
        </>
      )}
      <div className="actions">
        <button type="button" className="button" disabled={pull.isPending} onClick={() => pull.mutate()}>
          {pull.isPending ? 'Pulling…' : 'Pull from upstream'}
        </button>
      </div>
      <div role="status">
        {pull.isSuccess &&
          (pull.data.changed ? (
            <p className="notice notice-info">
              Updated <code>{pull.data.old_commit}</code> → <code>{pull.data.new_commit}</code>.
            </p>
          ) : (
            <p className="notice notice-info">Already up to date.</p>
          ))}
      </div>
      {pull.isError && <ErrorMessage error={pull.error} title="Pull failed" />}
    </section>
  );
}
