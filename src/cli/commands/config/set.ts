import { readConfigMapping, writeConfigMapping } from '../../config/file.js';
import { CONFIG_KEYS, configKey, isSensitiveKey, KEY_NAME_PATTERN, maskValue } from '../../config/keys.js';
import { configFilePath } from '../../config/paths.js';
import { coerceSetValue, formatValue } from '../../config/values.js';
import { CliExit, EXIT } from '../../errors.js';
import { readLine } from '../../input.js';
import { defineAction, type RegisterCommand } from '../host.js';

/** A key that matches the name pattern and is known; otherwise exit 1 listing the known keys. */
export function requireKnownKey(name: string): string {
  if (!KEY_NAME_PATTERN.test(name) || !configKey(name)) {
    throw new CliExit(
      EXIT.failure,
      `Error: unknown config key '${name}'. Known keys: ${CONFIG_KEYS.map((k) => k.name).join(', ')}`,
    );
  }
  return name;
}

/** `pks config set <key> [value]`: secrets only from a prompt or stdin, never from argv. */
export const registerConfigSet: RegisterCommand = (parent, host) => {
  parent
    .command('set')
    .description('set a key (value omitted: read one line from stdin; a prompt on a terminal)')
    .argument('<key>', 'config key')
    .argument('[value]', 'value (never for sensitive keys: use the prompt or stdin)')
    .action(
      defineAction(
        host,
        ([name, value]) => {
          const key = requireKnownKey(name!);
          if (value !== undefined && isSensitiveKey(key)) {
            throw new CliExit(
              EXIT.usage,
              `refusing to take ${key} on the command line; use the prompt or: echo $SECRET | pks config set ${key}`,
            );
          }
          return { key, value };
        },
        async (ctx, { key, value }) => {
          const sensitive = isSensitiveKey(key);
          const text = (value ?? (await readLine(ctx.io, `${key}: `, sensitive))).trim();
          if (text === '') throw new CliExit(EXIT.failure, `Error: empty value for ${key}; nothing changed`);
          const coerced = coerceSetValue(configKey(key)!, text);
          if ('expected' in coerced) {
            throw new CliExit(EXIT.failure, `invalid value for ${key}: expected ${coerced.expected}`);
          }
          const file = configFilePath();
          const mapping = readConfigMapping(file) ?? {};
          mapping[key] = coerced.value;
          writeConfigMapping(file, mapping);
          const shown = formatValue(coerced.value, configKey(key));
          ctx.io.stdout(`set ${key}=${sensitive ? maskValue(shown) : shown} in ${file}\n`);
        },
        { noConfigFile: true },
      ),
    );
};
