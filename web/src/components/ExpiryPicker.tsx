/** The expiry presets of the token forms (SPEC Limits: 7, 30, 60, 90, 365 days; default 90). */
const EXPIRY_PRESETS = [7, 30, 60, 90, 365];
export const DEFAULT_EXPIRY_DAYS = 90;

interface Props {
  value: number;
  onChange: (days: number) => void;
  idPrefix: string;
  max?: number;
  /** A value outside the presets (a client's request) is offered too. */
  extra?: number;
}

export function ExpiryPicker({ value, onChange, idPrefix, max = 365, extra }: Props) {
  const options = [...new Set([...EXPIRY_PRESETS, ...(extra ? [extra] : [])])]
    .filter((d) => d >= 1 && d <= max)
    .sort((a, b) => a - b);
  const expires = new Date(Date.now() + value * 86400_000);
  return (
    <fieldset className="expiry-picker">
      <legend>Expires after</legend>
      <div className="segmented">
        {options.map((d) => (
          <span key={d}>
            <input
              type="radio"
              id={`${idPrefix}-${d}`}
              name={`${idPrefix}-expiry`}
              checked={value === d}
              onChange={() => onChange(d)}
            />
            <label htmlFor={`${idPrefix}-${d}`}>{d === 365 ? '1 year' : `${d} days`}</label>
          </span>
        ))}
      </div>
      <p className="field-note muted">
        Expires on {expires.toLocaleDateString('en', { year: 'numeric', month: 'long', day: 'numeric' })}.
      </p>
    </fieldset>
  );
}
