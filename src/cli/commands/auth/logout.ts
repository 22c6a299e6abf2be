import { defineAction, type RegisterCommand } from '../host.js';
import { addServerOption, credentialHost } from './host-option.js';

/** `pks auth logout [-s URL]`: forgets the stored token of the host; never contacts the server. */
export const registerAuthLogout: RegisterCommand = (parent, host) => {
  addServerOption(parent.command('logout').description('delete the stored credentials of a host')).action(
    defineAction(
      host,
      (_args, options) => ({ serverUrl: options['serverUrl'] as string | undefined }),
      async (ctx, { serverUrl }) => {
        const target = credentialHost(ctx, serverUrl);
        if (!ctx.credentials.delete(target)) {
          ctx.io.stderr(`No credentials stored for ${target}.\n`);
          return;
        }
        ctx.io.stderr(`✓ Logged out of ${target}.\n`);
      },
    ),
  );
};
