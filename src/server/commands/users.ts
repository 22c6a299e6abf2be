import { Command } from 'commander';
import { rfc3339 } from '../auth/time.js';
import { formatTable, withIdentity } from './pat.js';
import type { CommandIO } from './io.js';
import { addSettingFlags } from './setting-flags.js';

/** `pksd users list [--json]` (CONTRACT §15.4). */
export function usersCommand(io: CommandIO): Command {
  const cmd = new Command('users').description('inspect the users of this instance');
  cmd.addCommand(
    addSettingFlags(new Command('list'))
      .description('list users')
      .option('--json', 'one JSON object per line')
      .action(async (opts: { json?: boolean }, sub: Command) => {
        await withIdentity(io, sub, (identity) => {
          const users = identity.users.list();
          if (opts.json) {
            for (const u of users) {
              io.stdout(
                JSON.stringify({
                  id: u.id,
                  login: u.login,
                  email: u.email,
                  name: u.name,
                  provider: u.provider,
                  created: rfc3339(u.created),
                }) + '\n',
              );
            }
            return;
          }
          io.stdout(
            formatTable(
              ['ID', 'LOGIN', 'EMAIL', 'NAME', 'PROVIDER', 'CREATED'],
              users.map((u) => [u.id, u.login || '-', u.email || '-', u.name || '-', u.provider, rfc3339(u.created)]),
            ),
          );
        });
      }),
  );
  return cmd;
}
