/** The resolved client configuration: `config.yaml` over the defaults (CONTRACT §16.1). */
import { configKey } from './keys.js';
import { ConfigFileError } from '../errors.js';
import { readConfigMapping } from './file.js';
import { configFilePath } from './paths.js';
import { coerceFileValue, type ConfigValue } from './values.js';

export const DEFAULT_SERVER_URL = 'http://127.0.0.1:4200';

export interface PksConfig {
  /** The file read. */
  readonly path: string;
  readonly exists: boolean;
  /** Values present in the file (typed), by key; unknown keys are ignored. */
  readonly fromFile: ReadonlyMap<string, ConfigValue>;
  /** `server_url` as written (trailing `/` stripped), or `undefined` when unset. */
  readonly serverUrl: string | undefined;
  /** `server_url`, else `http://127.0.0.1:4200`. */
  readonly baseUrl: string;
  readonly insecure: boolean;
  readonly wikiDir: string;
  readonly parserApiTokens: readonly string[];
  readonly parserApiBaseUrl: string;
  readonly parserModelVersion: string;
  readonly parserLanguage: string;
  readonly parserIsOcr: boolean;
  readonly parserEnableFormula: boolean;
  readonly parserEnableTable: boolean;
  readonly parserPollInterval: number;
  readonly parserTimeout: number;
  readonly trustedPdfHosts: readonly string[];
  readonly openaiApiKey: string | undefined;
  readonly anthropicApiKey: string | undefined;
  readonly openaiBaseUrl: string;
  readonly anthropicBaseUrl: string;
  /** The resolved value of any key (file over default), `undefined` when unset without default. */
  value(name: string): ConfigValue | undefined;
}

/** Reads and types `config.yaml`; a broken file or a mistyped value throws `ConfigFileError` (exit 1). */
export function loadConfig(file: string = configFilePath()): PksConfig {
  const mapping = readConfigMapping(file);
  const fromFile = new Map<string, ConfigValue>();
  for (const [name, raw] of Object.entries(mapping ?? {})) {
    const key = configKey(name);
    if (!key) continue;
    const value = coerceFileValue(key, raw);
    if (value === undefined) continue;
    if (typeof value === 'object' && !Array.isArray(value)) {
      throw new ConfigFileError(`invalid value for ${name} in ${file}`);
    }
    fromFile.set(name, value);
  }
  const value = (name: string): ConfigValue | undefined => {
    if (fromFile.has(name)) return fromFile.get(name);
    const def = configKey(name)?.default;
    return Array.isArray(def) ? [...(def as string[])] : (def as ConfigValue | undefined);
  };
  const str = (name: string) => value(name) as string;
  const optional = (name: string) => {
    const v = value(name) as string | undefined;
    return v === undefined || v === '' ? undefined : v;
  };
  const serverUrl = optional('server_url');
  return {
    path: file,
    exists: mapping !== null,
    fromFile,
    serverUrl,
    baseUrl: serverUrl ?? DEFAULT_SERVER_URL,
    insecure: value('insecure') as boolean,
    wikiDir: str('wiki_dir'),
    parserApiTokens: value('parser_api_tokens') as string[],
    parserApiBaseUrl: str('parser_api_base_url'),
    parserModelVersion: str('parser_model_version').trim(),
    parserLanguage: str('parser_language'),
    parserIsOcr: value('parser_is_ocr') as boolean,
    parserEnableFormula: value('parser_enable_formula') as boolean,
    parserEnableTable: value('parser_enable_table') as boolean,
    parserPollInterval: value('parser_poll_interval') as number,
    parserTimeout: value('parser_timeout') as number,
    trustedPdfHosts: value('trusted_pdf_hosts') as string[],
    openaiApiKey: optional('openai_api_key'),
    anthropicApiKey: optional('anthropic_api_key'),
    openaiBaseUrl: str('openai_base_url'),
    anthropicBaseUrl: str('anthropic_base_url'),
    value,
  };
}
