import { useQuery } from '@tanstack/react-query';
import { q } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { Stat } from '../../components/StatCard';
import { fmtDateTime } from '../../lib/format';

const pct = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)} %` : undefined);

/** `GET /api/papers/stats` (CONTRACT §4.3) as a row of figures. */
export function PaperStats() {
  const stats = useQuery(q.paperStats());
  if (stats.isPending) return <Loading label="Loading paper statistics…" />;
  if (stats.isError) return <ErrorMessage error={stats.error} title="Paper statistics unavailable" />;
  const s = stats.data;
  if (!s.available) {
    return <p className="notice notice-warn">The metadata index is not available on the server right now.</p>;
  }
  return (
    <>
      <dl className="stats" aria-label="Paper statistics">
        <Stat label="Papers" value={s.total} />
        <Stat label="With PDF" value={s.has_pdf} note={pct(s.has_pdf, s.total)} />
        <Stat label="With markdown" value={s.has_md} note={pct(s.has_md, s.total)} />
        <Stat label="With JSON" value={s.has_json} />
        <Stat label="Need parsing" value={s.needs_parser} />
        <Stat label="Images" value={s.total_images} />
      </dl>
      <p className="muted small">Index loaded {fmtDateTime(s.loaded_at)}.</p>
    </>
  );
}
