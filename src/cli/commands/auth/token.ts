import { CliExit, EXIT } from '../../errors.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { addServerOption, credentialHost } from './host-option.js';

/** `pks auth token [-s URL]`: prints exactly the stored token. */
export const registerAuthToken: RegisterCommand = (parent, host) => {
  addServerOption(parent.command('token').description('print the stored token of a host')).action(
    defineAction(
      host,
      (_args, options) => ({ serverUrl: options['serverUrl'] as string | undefined }),
      async (ctx, { serverUrl }) => {
        const target = credentialHost(ctx, serverUrl);
        const credential = ctx.credentials.get(target);
        if (!credential) {
          throw new CliExit(EXIT.failure, `Not logged into ${target}. Run 'pks auth login -s ${target}'.`);
        }
        ctx.io.stdout(`${credential.token}\n`);
      },
    ),
  );
};
