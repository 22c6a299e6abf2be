import { Command, Option } from 'commander';
import { SETTINGS, flagName } from '../config/settings.js';

/** Adds every setting's `--kebab-case` flag (not the IdP ones) to a command, plus `--http` (CONTRACT §1.1). */
export function addSettingFlags(cmd: Command): Command {
  for (const def of SETTINGS) {
    if (def.envOnly) continue;
    const flag = flagName(def.env);
    const option =
      def.kind === 'bool'
        ? new Option(`${flag} [value]`, `${def.env}: ${def.description}`)
        : new Option(`${flag} <value>`, `${def.env}: ${def.description}`);
    cmd.addOption(option.hideHelp(cmd.name() !== 'serve'));
  }
  cmd.addOption(new Option('--http <addr>', 'listen address (alias of --http-addr; wins over it)'));
  return cmd;
}

/** A subcommand of `parent` that reads the configuration, so takes the setting flags (`pksd db status`, …). */
export function settingSubcommand(parent: Command, name: string): Command {
  const sub = addSettingFlags(new Command(name));
  parent.addCommand(sub);
  return sub;
}

/** The setting flags actually passed on the command line, keyed by env name. */
export function passedSettingFlags(cmd: Command): Map<string, string> {
  const flags = new Map<string, string>();
  for (const def of SETTINGS) {
    if (def.envOnly) continue;
    const key = new Option(flagName(def.env)).attributeName();
    if (cmd.getOptionValueSource(key) !== 'cli') continue;
    const value: unknown = cmd.getOptionValue(key);
    flags.set(def.env, value === true ? 'true' : String(value));
  }
  if (cmd.getOptionValueSource('http') === 'cli') flags.set('SVC_HTTP_ADDR', String(cmd.getOptionValue('http')));
  return flags;
}
