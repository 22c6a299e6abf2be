import type { ScopeInfo } from '../api/types';

interface Props {
  legend: string;
  scopes: ScopeInfo[];
  value: string[];
  onChange: (next: string[]) => void;
  idPrefix: string;
}

/** One checkbox per scope of the vocabulary, each with its description. */
export function ScopePicker({ legend, scopes, value, onChange, idPrefix }: Props) {
  const toggle = (name: string, on: boolean) =>
    onChange(
      on ? scopes.map((s) => s.name).filter((n) => n === name || value.includes(n)) : value.filter((n) => n !== name),
    );
  return (
    <fieldset className="scope-picker">
      <legend>{legend}</legend>
      {scopes.map((s) => {
        const id = `${idPrefix}-${s.name.replace(':', '-')}`;
        return (
          <div className="check" key={s.name}>
            <input
              id={id}
              type="checkbox"
              checked={value.includes(s.name)}
              onChange={(e) => toggle(s.name, e.target.checked)}
              aria-describedby={`${id}-desc`}
            />
            <label htmlFor={id}>
              <code>{s.name}</code>
            </label>
            <span id={`${id}-desc`} className="check-desc">
              {s.description}
            </span>
          </div>
        );
      })}
      {value.length === 0 && (
        <p className="notice notice-warn field-note">
          No scope selected: a token without scopes is refused by every endpoint (403).
        </p>
      )}
    </fieldset>
  );
}

export const READ_SCOPES = (scopes: { name: string }[]): string[] =>
  scopes.map((s) => s.name).filter((n) => n.endsWith(':read'));
