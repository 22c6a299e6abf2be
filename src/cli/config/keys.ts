/** The keys of `config.yaml` (CONTRACT §16.1), their types and defaults. */
export type KeyType = 'string' | 'bool' | 'int' | 'float' | 'list';

export interface ConfigKey {
  readonly name: string;
  readonly type: KeyType;
  /** Default value; `undefined` = none (the key is unset until written). */
  readonly default: string | boolean | number | readonly string[] | undefined;
  /** Allowed values of a string key. */
  readonly choices?: readonly string[];
  /** One line for the template and the help text. */
  readonly note: string;
}

export const CONFIG_KEYS: readonly ConfigKey[] = [
  { name: 'server_url', type: 'string', default: undefined, note: 'pks server; unset = http://127.0.0.1:4200' },
  { name: 'insecure', type: 'bool', default: false, note: 'disable TLS certificate verification' },
  { name: 'wiki_dir', type: 'string', default: 'pks-wiki', note: 'wiki checkout; relative to the current directory' },
  { name: 'parser_api_tokens', type: 'list', default: [], note: 'MinerU API tokens (list or CSV)' },
  { name: 'parser_api_base_url', type: 'string', default: 'https://mineru.net', note: 'MinerU API base URL' },
  {
    name: 'parser_model_version',
    type: 'string',
    default: 'vlm',
    choices: ['vlm', 'pipeline'],
    note: 'vlm or pipeline',
  },
  { name: 'parser_language', type: 'string', default: 'ch', note: 'document language hint' },
  { name: 'parser_is_ocr', type: 'bool', default: false, note: 'force OCR' },
  { name: 'parser_enable_formula', type: 'bool', default: true, note: 'formula recognition' },
  { name: 'parser_enable_table', type: 'bool', default: true, note: 'table recognition' },
  { name: 'parser_poll_interval', type: 'float', default: 3.0, note: 'seconds between parser polls (min 1)' },
  { name: 'parser_timeout', type: 'int', default: 1800, note: 'seconds to wait for one parse' },
  { name: 'trusted_pdf_hosts', type: 'list', default: [], note: 'extra hosts accepted for claim pdf_urls' },
  { name: 'openai_api_key', type: 'string', default: undefined, note: 'extractor (OpenAI)' },
  { name: 'anthropic_api_key', type: 'string', default: undefined, note: 'extractor (Anthropic)' },
  {
    name: 'openai_base_url',
    type: 'string',
    default: 'https://api.openai.com/v1',
    note: 'extractor (OpenAI API base)',
  },
  {
    name: 'anthropic_base_url',
    type: 'string',
    default: 'https://api.anthropic.com',
    note: 'extractor (Anthropic API base)',
  },
];

const BY_NAME = new Map(CONFIG_KEYS.map((k) => [k.name, k]));

export const configKey = (name: string): ConfigKey | undefined => BY_NAME.get(name);

export const KEY_NAME_PATTERN = /^[a-z_][a-z0-9_]*$/;

/** Sensitive keys: the lower-cased name contains `token`, `secret`, `key` or `password`. */
export function isSensitiveKey(name: string): boolean {
  const lower = name.toLowerCase();
  return ['token', 'secret', 'key', 'password'].some((word) => lower.includes(word));
}

/** `sk-VeryLongSensitiveValue1234` → `sk-V…1234 (29 chars)`; ≤ 8 chars → `***`; empty stays empty. */
export function maskValue(value: string): string {
  const chars = Array.from(value);
  if (chars.length === 0) return '';
  if (chars.length <= 8) return '***';
  return `${chars.slice(0, 4).join('')}…${chars.slice(-4).join('')} (${chars.length} chars)`;
}
