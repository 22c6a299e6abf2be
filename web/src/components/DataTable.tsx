import type { ReactNode } from 'react';

interface Props {
  /** The column headings; a heading may be a node (a visually hidden "Actions", say). */
  columns: readonly ReactNode[];
  /** On phones each row becomes a card, its cells labelled by their `data-label`. */
  stacked?: boolean;
  className?: string;
  /** The id of the text that sums the table up (a count, a summary). */
  describedBy?: string;
  /** The rows. */
  children: ReactNode;
}

/** A table of records with column headings, which scrolls sideways inside its box when it is too wide. */
export function DataTable({ columns, stacked = false, className, describedBy, children }: Props) {
  return (
    <div className="table-wrap">
      <table
        className={['table', stacked && 'stack-table', className].filter(Boolean).join(' ')}
        aria-describedby={describedBy}
      >
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
