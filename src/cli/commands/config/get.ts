import { configKey } from '../../config/keys.js';
import { loadConfig } from '../../config/load.js';
import { configFilePath } from '../../config/paths.js';
import { formatValue } from '../../config/values.js';
import { CliExit, EXIT } from '../../errors.js';
import { defineAction, type RegisterCommand } from '../host.js';

/** `pks config get <key>`: the resolved value; exit 1 without output when unknown, unset or empty. */
export const registerConfigGet: RegisterCommand = (parent, host) => {
  parent
    .command('get')
    .description('print the resolved value of a key (exit 1 when unset)')
    .argument('<key>', 'config key')
    .action(
      defineAction(
        host,
        ([key]) => key!,
        async (ctx, key) => {
          if (!configKey(key)) throw new CliExit(EXIT.failure);
          const value = loadConfig(configFilePath()).value(key);
          const text = value === undefined ? '' : formatValue(value, configKey(key));
          if (text === '') throw new CliExit(EXIT.failure);
          ctx.io.stdout(`${text}\n`);
        },
        { noConfigFile: true },
      ),
    );
};
