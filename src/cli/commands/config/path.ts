import { existsSync } from 'node:fs';
import { configFilePath } from '../../config/paths.js';
import { defineAction, type RegisterCommand } from '../host.js';

/** `pks config path`: where config.yaml is (and whether it exists yet). */
export const registerConfigPath: RegisterCommand = (parent, host) => {
  parent
    .command('path')
    .description('print the path of config.yaml')
    .action(
      defineAction(
        host,
        () => null,
        async (ctx) => {
          const file = configFilePath();
          ctx.io.stdout(`${file}\n`);
          if (!existsSync(file)) {
            ctx.io.stderr('(file not yet created; will be auto-created on next pks invocation)\n');
          }
        },
        { noConfigFile: true },
      ),
    );
};
