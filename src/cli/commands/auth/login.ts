import { hostname } from 'node:os';
import { normalizeHost, redactToken } from '../../config/hosts.js';
import type { CliContext } from '../../context.js';
import { CliExit, EXIT } from '../../errors.js';
import { readAll, readLine } from '../../input.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { runDeviceFlow } from './device-flow.js';
import { csv, parseIntOption, parsePositiveNumber } from '../options.js';
import { addServerOption } from './host-option.js';

export interface LoginInput {
  readonly serverUrl: string | undefined;
  readonly browser: boolean;
  readonly scopes: string[];
  readonly expiresDays: number;
  readonly tokenName: string | undefined;
  readonly timeoutS: number;
  readonly insecure: boolean;
  readonly withToken: boolean;
}

/** Scopes from CSV: split, trimmed, empties dropped, de-duplicated (first occurrence kept). */
export const parseScopes = (text: string): string[] => [...new Set(csv(text))];

/** `pks-cli-<hostname>-<YYYY-MM-DD UTC>`; the host name lower-cased, `.`/`:` → `-`, at most 32 characters. */
export function defaultTokenName(now: Date, host = hostname()): string {
  const name = host.toLowerCase().replace(/[.:]/g, '-').slice(0, 32);
  return `pks-cli-${name}-${now.toISOString().slice(0, 10)}`;
}

const SERVER_REQUIRED =
  "Error: server URL is required (--server-url / -s, or set server_url in the pks config — run 'pks config path' to find the file).";

/** `pks auth login`: the device authorization flow, or `--with-token` from stdin (CONTRACT §16.4). */
export const registerAuthLogin: RegisterCommand = (parent, host) => {
  addServerOption(
    parent
      .command('login')
      .description('log in: approve a device code in the browser, or store a PAT read from stdin (--with-token)'),
  )
    .option('--no-browser', 'do not open the browser; just print the URL')
    .option('--scopes <csv>', 'scopes of the token to mint (editable in the browser)', '')
    .option('--expires-days <n>', 'token lifetime in days, 1..365', '90')
    .option('--token-name <name>', 'token name (default pks-cli-<hostname>-<date>)')
    .option('--timeout <seconds>', 'how long to wait for the approval', '600')
    .option('--insecure', 'do not verify the TLS certificate of the server (this login only)')
    .option('--with-token', 'read a PAT from stdin and store it (no network call)')
    .addHelpText(
      'after',
      '\nThe token is stored in hosts.yml (mode 0600) next to config.yaml; see `pks auth --help`.\n',
    )
    .action(
      defineAction(
        host,
        (_args, o): LoginInput => {
          const expires = parseIntOption('--expires-days', o['expiresDays'] as string);
          if (expires < 1 || expires > 365) throw new CliExit(EXIT.usage, 'Error: --expires-days must be in 1..365.');
          return {
            serverUrl: o['serverUrl'] as string | undefined,
            browser: o['browser'] !== false,
            scopes: parseScopes(o['scopes'] as string),
            expiresDays: expires,
            tokenName: o['tokenName'] as string | undefined,
            timeoutS: parsePositiveNumber('--timeout', o['timeout'] as string),
            insecure: o['insecure'] === true,
            withToken: o['withToken'] === true,
          };
        },
        login,
      ),
    );
};

async function login(ctx: CliContext, input: LoginInput): Promise<number> {
  const config = ctx.config();
  let server = input.serverUrl ?? config.serverUrl;
  if (server === undefined && ctx.io.stdinIsTTY && !input.withToken) server = await readLine(ctx.io, 'Server URL: ');
  const loginHost = normalizeHost(server ?? '');
  if (loginHost === '') throw new CliExit(EXIT.usage, SERVER_REQUIRED);

  if (input.withToken) {
    const token = (await readAll(ctx.io.stdin)).trim();
    if (token === '') throw new CliExit(EXIT.failure, 'Error: empty token; aborting.');
    if (!token.startsWith('pat_')) ctx.io.stderr("Warning: token does not begin with 'pat_'. Storing anyway.\n");
    ctx.credentials.set(loginHost, token, ctx.now());
    ctx.io.stderr(`✓ Logged in to ${loginHost} (stored at ${ctx.credentials.path})\n  Token: ${redactToken(token)}\n`);
    return EXIT.ok;
  }

  const baseUrl =
    config.serverUrl !== undefined && normalizeHost(config.serverUrl) === loginHost
      ? config.serverUrl
      : input.serverUrl?.includes('://')
        ? input.serverUrl.trim().replace(/\/+$/, '')
        : `https://${loginHost}`;
  const minted = await runDeviceFlow(ctx, {
    baseUrl,
    insecure: input.insecure || config.insecure,
    name: input.tokenName ?? defaultTokenName(ctx.now()),
    scopes: input.scopes,
    expiresDays: input.expiresDays,
    timeoutS: input.timeoutS,
    openBrowser: input.browser,
  });
  ctx.credentials.set(loginHost, minted.plaintext, ctx.now());
  ctx.io.stderr(
    [
      `✓ Logged in to ${loginHost} (stored at ${ctx.credentials.path})`,
      `  Token:   ${redactToken(minted.plaintext)}`,
      `  Name:    ${minted.name}`,
      `  Scopes:  ${minted.scopes.length > 0 ? minted.scopes.join(',') : '(none)'}`,
      `  Expires: ${minted.expires_at}`,
    ].join('\n') + '\n',
  );
  return EXIT.ok;
}
