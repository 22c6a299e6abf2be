import { Command } from 'commander';
import { isEmail, PASSWORD_MIN } from '../auth/superusers.js';
import { withIdentity } from './pat.js';
import { ExitError, type CommandIO } from './io.js';
import { settingSubcommand } from './setting-flags.js';

/** `pksd superuser upsert <email> <password>` and `pksd superuser delete <email>` (CONTRACT §7.9, §15.4). */
export function superuserCommand(io: CommandIO): Command {
  const cmd = new Command('superuser').description('manage admin UI accounts (email + password)');
  settingSubcommand(cmd, 'upsert')
    .description('create a superuser or reset its password')
    .argument('<email>')
    .argument('<password>', `at least ${PASSWORD_MIN} characters`)
    .action(async (email: string, password: string, _opts: unknown, sub: Command) => {
      const address = email.trim().toLowerCase();
      if (!isEmail(address)) {
        io.stderr(`pksd: invalid email '${email}'\n`);
        throw new ExitError(2);
      }
      if (password.length < PASSWORD_MIN) {
        io.stderr(`pksd: password must be at least ${PASSWORD_MIN} characters\n`);
        throw new ExitError(2);
      }
      await withIdentity(io, sub, async (identity) => {
        const outcome = await identity.superusers.upsert(address, password);
        io.stderr(`superuser ${address} ${outcome}\n`);
      });
    });
  settingSubcommand(cmd, 'delete')
    .description('delete a superuser')
    .argument('<email>')
    .action(async (email: string, _opts: unknown, sub: Command) => {
      const address = email.trim().toLowerCase();
      await withIdentity(io, sub, async (identity) => {
        if (!(await identity.superusers.delete(address))) {
          io.stderr(`pksd: unknown superuser '${address}'\n`);
          throw new ExitError(1);
        }
        io.stderr(`superuser ${address} deleted\n`);
      });
    });
  return cmd;
}
