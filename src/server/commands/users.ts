import { Command } from 'commander';
import { rfc3339 } from '../auth/time.js';
import type { UserRow } from '../db/user-database.js';
import { formatTable, resolveUser, withIdentity } from './pat.js';
import { printJsonLines, type CommandIO } from './io.js';
import { settingSubcommand } from './setting-flags.js';

/** A user as `pksd users list --json` prints it. */
const userJson = (u: UserRow) => ({
  id: u.id,
  login: u.login,
  email: u.email,
  name: u.name,
  provider: u.provider,
  created: rfc3339(u.created),
});

/** `pksd users list [--json]`, `pksd users revoke-sessions <user>` (CONTRACT §15.4). */
export function usersCommand(io: CommandIO): Command {
  const cmd = new Command('users').description('inspect the users of this instance');
  settingSubcommand(cmd, 'list')
    .description('list users')
    .option('--json', 'one JSON object per line')
    .action(async ({ json }: { json?: boolean }, sub: Command) => {
      await withIdentity(io, sub, async (identity) => {
        const users = await identity.users.list();
        if (json) {
          printJsonLines(io, users.map(userJson));
          return;
        }
        io.stdout(
          formatTable(
            ['ID', 'LOGIN', 'EMAIL', 'NAME', 'PROVIDER', 'CREATED'],
            users.map((u) => [u.id, u.login || '-', u.email || '-', u.name || '-', u.provider, rfc3339(u.created)]),
          ),
        );
      });
    });
  settingSubcommand(cmd, 'revoke-sessions')
    .description("end every session of a user (the user's PATs are untouched; see pksd pat revoke)")
    .argument('<user>', 'user id, login or email')
    .action(async (ref: string, _opts: unknown, sub: Command) => {
      await withIdentity(io, sub, async (identity) => {
        const user = await resolveUser(io, identity.users, ref);
        await identity.sessions.revokeAll(user.id);
        io.stderr(`revoked sessions of ${user.login || user.id}\n`);
      });
    });
  return cmd;
}
