import type { ReactNode } from 'react';
import { fmtNumber } from '../lib/format';

export function Stat({ label, value, note }: { label: string; value: number | string; note?: ReactNode }) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd>
        <span className="stat-value">{typeof value === 'number' ? fmtNumber(value) : value}</span>
        {note && <span className="stat-note">{note}</span>}
      </dd>
    </div>
  );
}
