import { CONFIG_KEYS, isSensitiveKey, maskValue } from '../../config/keys.js';
import { loadConfig } from '../../config/load.js';
import { configFilePath } from '../../config/paths.js';
import { formatValue } from '../../config/values.js';
import { defineAction, type RegisterCommand } from '../host.js';

/** `pks config show [--unmask]`: every key with its resolved value, sensitive ones masked. */
export const registerConfigShow: RegisterCommand = (parent, host) => {
  parent
    .command('show')
    .description('print every key with its resolved value (sensitive values masked)')
    .option('--unmask', 'show sensitive values in full')
    .action(
      defineAction(
        host,
        (_args, options) => ({ unmask: options['unmask'] === true }),
        async (ctx, { unmask }) => {
          const config = loadConfig(configFilePath());
          const lines = [
            `# config file: ${config.path}${config.exists ? '' : '  (does not exist yet; using defaults)'}`,
            '',
          ];
          for (const key of [...CONFIG_KEYS].sort((a, b) => (a.name < b.name ? -1 : 1))) {
            const value = config.value(key.name);
            if (value === undefined) {
              lines.push(`${key.name}: (unset)`);
              continue;
            }
            const text = formatValue(value, key);
            if (text === '') lines.push(`${key.name}: (empty)`);
            else lines.push(`${key.name}: ${isSensitiveKey(key.name) && !unmask ? maskValue(text) : text}`);
          }
          ctx.io.stdout(lines.join('\n') + '\n');
        },
        { noConfigFile: true },
      ),
    );
};
