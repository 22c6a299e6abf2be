import { readConfigMapping, writeConfigMapping } from '../../config/file.js';
import { KEY_NAME_PATTERN } from '../../config/keys.js';
import { configFilePath } from '../../config/paths.js';
import { CliExit, EXIT } from '../../errors.js';
import { defineAction, type RegisterCommand } from '../host.js';

/** `pks config unset <key>`: removes the key from the file (exit 1 when there is nothing to remove). */
export const registerConfigUnset: RegisterCommand = (parent, host) => {
  parent
    .command('unset')
    .description('remove a key from config.yaml (its default applies again)')
    .argument('<key>', 'config key')
    .action(
      defineAction(
        host,
        ([key]) => {
          if (!KEY_NAME_PATTERN.test(key!)) throw new CliExit(EXIT.failure, `Error: invalid config key '${key}'`);
          return key!;
        },
        async (ctx, key) => {
          const file = configFilePath();
          const mapping = readConfigMapping(file);
          if (mapping === null) throw new CliExit(EXIT.failure, `Error: ${file} does not exist; nothing to unset`);
          if (!Object.hasOwn(mapping, key)) throw new CliExit(EXIT.failure, `Error: ${key} is not set in ${file}`);
          delete mapping[key];
          writeConfigMapping(file, mapping);
          ctx.io.stdout(`unset ${key} in ${file}\n`);
        },
        { noConfigFile: true },
      ),
    );
};
