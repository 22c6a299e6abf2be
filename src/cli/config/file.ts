/**
 * `config.yaml` on disk (CONTRACT §16.1): the commented template written on first run, tolerant-but-strict
 * reading (a broken file is an error that names it), and atomic rewrites that keep the key order.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { yaml } from '../../shared/lazy-yaml.js';
import { ConfigFileError } from '../errors.js';
import { CONFIG_KEYS } from './keys.js';
import { parseSimpleConfig } from './simple-yaml.js';

export { ConfigFileError };

export type ConfigMapping = Record<string, unknown>;

const TEMPLATE_HEADER = [
  '# pks client configuration, created on first run. Edit it, or use',
  '#   pks config set <key> [value]   /   pks config unset <key>   /   pks config show',
  '# Credentials are not kept here: `pks auth login` stores them per host in hosts.yml (mode 0600) beside this file.',
  '# Every key is listed below with its default; uncomment a line to change it.',
  '',
];

const WRITTEN_HEADER = [
  '# pks client configuration (written by `pks config set` / `pks config unset`; `pks config show` lists every key).',
  '# Credentials are not kept here: `pks auth login` stores them per host in hosts.yml beside this file.',
];

/** The commented template: every key with its default. */
export function configTemplate(): string {
  const { stringify } = yaml();
  const lines = [...TEMPLATE_HEADER];
  for (const key of CONFIG_KEYS) {
    const value =
      key.default === undefined
        ? ''
        : key.type === 'float' && Number.isInteger(key.default)
          ? ` ${(key.default as number).toFixed(1)}`
          : ` ${stringify(key.default, { collectionStyle: 'flow' }).trim()}`;
    lines.push(`# ${key.name}:${value}`.padEnd(48) + `  # ${key.note}`);
  }
  return lines.join('\n') + '\n';
}

/** Creates the directory (0700) and the template (0600) unless the file exists; an existing file is never touched. */
export function ensureConfigFile(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return; // the template is only built when it is written
  }
  try {
    writeFileSync(fd, configTemplate());
  } finally {
    closeSync(fd);
  }
}

/** The file's mapping (key order kept); `null` when the file does not exist. */
export function readConfigMapping(file: string): ConfigMapping | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigFileError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const simple = parseSimpleConfig(text);
  if (simple !== null) return simple;
  let value: unknown;
  try {
    value = yaml().parse(text);
  } catch (err) {
    throw new ConfigFileError(`cannot parse ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigFileError(`expected a top-level mapping in ${file}`);
  }
  return value as ConfigMapping;
}

/** Writes the header and the mapping as block YAML, atomically (temp file in the same directory, 0600, rename). */
export function writeConfigMapping(file: string, mapping: ConfigMapping): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const entries = Object.entries(mapping);
  const body = entries.length === 0 ? '' : new (yaml().Document)(mapping).toString({ lineWidth: 0 });
  const tmp = path.join(path.dirname(file), `config.yaml.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, WRITTEN_HEADER.join('\n') + '\n' + body, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
