import type { ConfigError } from '../../shared/errors.js';
import type { ResolvedSettings } from './load.js';
import { SETTINGS, isSecret } from './settings.js';

export interface ShownSetting {
  readonly name: string;
  /** Masked when secret: `<set, N chars>`; empty when unset. */
  readonly value: string;
  readonly source: string;
}

export function maskedValue(name: string, value: string | undefined): string {
  if (value === undefined || value === '') return '';
  return isSecret(name) ? `<set, ${value.length} chars>` : value;
}

/** Every known setting sorted by name, secrets masked (CONTRACT §15.2). */
export function shownSettings(resolved: ResolvedSettings): ShownSetting[] {
  return SETTINGS.map((def) => {
    const s = resolved.settings.get(def.env);
    return { name: def.env, value: maskedValue(def.env, s?.value), source: s?.source ?? 'default' };
  }).sort((a, b) => a.name.localeCompare(b.name));
}

export function formatConfigShow(resolved: ResolvedSettings, errors: readonly ConfigError[]): string {
  const lines = shownSettings(resolved).map((s) => `${s.name}=${s.value}  # ${s.source}`);
  if (errors.length > 0) {
    lines.push('', `# ${errors.length} configuration error(s):`);
    for (const e of errors) lines.push(`# ${e.setting}: ${e.reason}`);
  }
  return lines.join('\n') + '\n';
}
