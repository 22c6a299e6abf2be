import type { RegisterCommand } from '../host.js';
import { registerConfigGet } from './get.js';
import { registerConfigPath } from './path.js';
import { registerConfigSet } from './set.js';
import { registerConfigShow } from './show.js';
import { registerConfigUnset } from './unset.js';

export const registerConfig: RegisterCommand = (program, host) => {
  const config = program
    .command('config')
    .description('show and change the client configuration (config.yaml)')
    .addHelpText(
      'after',
      '\nThe client reads only this file: no environment variable and no flag for server, token or TLS.\n' +
        "Credentials are not kept in it: 'pks auth login' stores them per host in hosts.yml (mode 0600).\n",
    );
  for (const register of [
    registerConfigPath,
    registerConfigSet,
    registerConfigUnset,
    registerConfigGet,
    registerConfigShow,
  ]) {
    register(config, host);
  }
};
