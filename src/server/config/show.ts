import type { ConfigError } from '../../shared/errors.js';
import { inspectConfig, resolveSettings, type ConfigInputs, type ResolvedSettings } from './load.js';
import { SETTINGS, isSecret } from './settings.js';

export interface ShownSetting {
  readonly name: string;
  /** The effective value (a default's too), masked when secret (`<set, N chars>`); empty when it has none. */
  readonly value: string;
  readonly source: string;
}

export function maskedValue(name: string, value: string | undefined): string {
  if (value === undefined || value === '') return '';
  return isSecret(name) ? `<set, ${value.length} chars>` : value;
}

/**
 * Every known setting sorted by name, secrets masked (CONTRACT §15.2). A defaulted setting shows the value it
 * takes (`defaults`, from `inspectConfig`); a setting without a default, or not read in this configuration (the
 * parser settings with paper access off), shows empty.
 */
export function shownSettings(resolved: ResolvedSettings, defaults: ReadonlyMap<string, string>): ShownSetting[] {
  return SETTINGS.map((def) => {
    const s = resolved.settings.get(def.env);
    const source = s?.source ?? 'default';
    const value = s?.value ?? (source === 'default' ? defaults.get(def.env) : undefined);
    return { name: def.env, value: maskedValue(def.env, value), source };
  }).sort((a, b) => a.name.localeCompare(b.name));
}

/** The settings of `inputs` as `pksd config show` lists them, and the configuration errors. */
export function showSettings(inputs: ConfigInputs): { settings: ShownSetting[]; errors: ConfigError[] } {
  const resolved = resolveSettings(inputs);
  const { errors, defaults } = inspectConfig(inputs, resolved);
  return { settings: shownSettings(resolved, defaults), errors };
}

export function formatConfigShow(settings: readonly ShownSetting[], errors: readonly ConfigError[]): string {
  const lines = settings.map((s) => `${s.name}=${s.value}  # ${s.source}`);
  if (errors.length > 0) {
    lines.push('', `# ${errors.length} configuration error(s):`);
    for (const e of errors) lines.push(`# ${e.setting}: ${e.reason}`);
  }
  return lines.join('\n') + '\n';
}
