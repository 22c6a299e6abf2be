import { Command } from 'commander';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveSettings } from '../config/load.js';
import { SETTINGS, flagName } from '../config/settings.js';
import { formatConfigShow, showSettings } from '../config/show.js';
import { ExitError, type CommandIO } from './io.js';
import { passedSettingFlags, settingSubcommand } from './setting-flags.js';

/** `pksd config path|show|init` (CONTRACT §15.2); never fails on an invalid configuration. */
export function configCommand(io: CommandIO): Command {
  const cmd = new Command('config').description('inspect the effective configuration');

  settingSubcommand(cmd, 'path')
    .description('print the env file that would be loaded')
    .action((_opts, sub: Command) => {
      const resolved = resolveSettings({ ...io.base, flags: passedSettingFlags(sub) });
      if (!resolved.envFile) {
        io.stderr('no env file (set SVC_ENV_FILE or create ./.env)\n');
        throw new ExitError(1);
      }
      io.stdout(resolved.envFile + '\n');
    });
  settingSubcommand(cmd, 'show')
    .description('print every setting with its source; secrets masked')
    .action((_opts, sub: Command) => {
      const { settings, errors } = showSettings({ ...io.base, flags: passedSettingFlags(sub) });
      io.stdout(formatConfigShow(settings, errors));
    });
  cmd.addCommand(
    new Command('init')
      .description('write a commented env template')
      .option('--path <file>', 'where to write it', '.env')
      .option('--force', 'overwrite an existing file')
      .action((opts: { path: string; force?: boolean }) => {
        const file = path.resolve(io.base.cwd, opts.path);
        if (existsSync(file) && !opts.force) {
          io.stderr(`${file} exists; use --force to overwrite it\n`);
          throw new ExitError(1);
        }
        writeFileSync(file, envTemplate(), { mode: 0o600 });
        io.stderr(`wrote ${file}\n`);
      }),
  );
  return cmd;
}

export function envTemplate(): string {
  const lines = ['# pksd settings. Precedence: flag > environment > this file > default.', ''];
  for (const def of SETTINGS) {
    if (def.env === 'SVC_ENV_FILE') continue;
    const flag = def.envOnly ? 'environment only' : flagName(def.env);
    lines.push(`# ${def.description} (${flag}; default: ${def.defaultText ?? 'none'})`, `# ${def.env}=`, '');
  }
  return lines.join('\n');
}
