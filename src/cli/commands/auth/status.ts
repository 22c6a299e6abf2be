import { normalizeHost, redactToken, tokenType } from '../../config/hosts.js';
import { CliExit, EXIT } from '../../errors.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { addServerOption } from './host-option.js';

/** `pks auth status [-s URL]`: the stored credentials, redacted. */
export const registerAuthStatus: RegisterCommand = (parent, host) => {
  addServerOption(parent.command('status').description('show the stored credentials (redacted)')).action(
    defineAction(
      host,
      (_args, options) => ({ serverUrl: options['serverUrl'] as string | undefined }),
      async (ctx, { serverUrl }) => {
        const stored = ctx.credentials.list();
        const only = serverUrl === undefined ? undefined : normalizeHost(serverUrl);
        const shown = only === undefined ? stored : stored.filter(([h]) => h === only);
        if (stored.length === 0) throw new CliExit(EXIT.failure, 'You are not logged into any hosts.');
        if (shown.length === 0) throw new CliExit(EXIT.failure, `You are not logged into ${only}.`);
        const lines: string[] = [];
        for (const [name, credential] of shown) {
          lines.push(
            name,
            `  ✓ Logged in (stored at ${ctx.credentials.path})`,
            `  - Token type:  ${tokenType(credential.token)}`,
            `  - Token value: ${redactToken(credential.token)}`,
            `  - Added:       ${credential.added_at}`,
          );
        }
        ctx.io.stdout(lines.join('\n') + '\n');
      },
    ),
  );
};
