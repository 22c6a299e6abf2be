import { hostsFilePath } from '../../config/paths.js';
import type { RegisterCommand } from '../host.js';
import { registerAuthLogin } from './login.js';
import { registerAuthLogout } from './logout.js';
import { registerAuthStatus } from './status.js';
import { registerAuthToken } from './token.js';

export const registerAuth: RegisterCommand = (program, host) => {
  const auth = program
    .command('auth')
    .description('log in to a pks server and manage stored credentials')
    .addHelpText(
      'after',
      `\nCredentials are stored per server host in ${hostsFilePath()} (mode 0600, directory 0700).\n` +
        "The server comes from -s/--server-url or server_url in config.yaml ('pks config path').\n",
    );
  for (const register of [registerAuthLogin, registerAuthLogout, registerAuthStatus, registerAuthToken]) {
    register(auth, host);
  }
};
