import type { Command } from 'commander';
import { normalizeHost } from '../../config/hosts.js';
import type { CliContext } from '../../context.js';
import { CliExit, EXIT } from '../../errors.js';

export function addServerOption(command: Command): Command {
  return command.option('-s, --server-url <url>', 'server (default: server_url of config.yaml)');
}

/** The host a credential command acts on: `-s`, else the configured `server_url`; none → exit 2. */
export function credentialHost(ctx: CliContext, serverUrl: string | undefined): string {
  const source = serverUrl ?? ctx.config().serverUrl;
  const host = source === undefined ? '' : normalizeHost(source);
  if (host === '') {
    throw new CliExit(
      EXIT.usage,
      "Error: no server given: pass -s/--server-url or set server_url in the pks config (run 'pks config path').",
    );
  }
  return host;
}
