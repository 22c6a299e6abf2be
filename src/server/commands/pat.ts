import { Command } from 'commander';
import pino from 'pino';
import { openIdentity, type Identity } from '../auth/identity.js';
import { SCOPES } from '../../shared/scopes.js';
import { validatePatSpec } from '../auth/pat-spec.js';
import { rfc3339 } from '../auth/time.js';
import type { User } from '../auth/users.js';
import { exitOnDatabaseError } from './db-errors.js';
import { exitWith } from './exit-codes.js';
import { ExitError, printJsonLines, type CommandIO } from './io.js';
import { loadConfigOrExit } from './serve.js';
import { settingSubcommand } from './setting-flags.js';

/**
 * Opens the user database for a one-shot command (no lock: `serve` may be running, CONTRACT §1.4), runs `fn`
 * and closes it.
 */
export async function withIdentity<T>(
  io: CommandIO,
  cmd: Command,
  fn: (identity: Identity) => T | Promise<T>,
): Promise<T> {
  const config = loadConfigOrExit(io, cmd);
  let identity: Identity;
  try {
    identity = await openIdentity(config, pino({ level: 'silent' }), { background: false });
  } catch (err) {
    exitOnDatabaseError(io, config, err);
  }
  try {
    return await fn(identity);
  } finally {
    await identity.close();
  }
}

/** Columns separated by two spaces, padded to the widest cell (the last column unpadded). */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [header, ...rows].map(line).join('\n') + '\n';
}

/** Resolves `--user` (id, login or email); unknown → exit 1 with the contract's message. */
export async function resolveUser(
  io: CommandIO,
  users: { find(ref: string): Promise<User[]> },
  ref: string,
): Promise<User> {
  const found = await users.find(ref);
  if (found.length === 1) return found[0]!;
  if (found.length === 0) io.stderr(`pksd: unknown user '${ref}' (see pksd users list)\n`);
  else
    io.stderr(`pksd: ambiguous user '${ref}' matches ${found.length} users; pass the user id (see pksd users list)\n`);
  throw new ExitError(1);
}

/** `pksd pat mint|list|revoke|scopes` (CONTRACT §15.3). */
export function patCommand(io: CommandIO): Command {
  const cmd = new Command('pat').description('manage user personal access tokens');

  settingSubcommand(cmd, 'mint')
    .description('mint a PAT for a user (plaintext on stdout)')
    .requiredOption('--user <user>', 'user id, login or email')
    .requiredOption('--name <name>', 'token name (1..80 characters)')
    .requiredOption('--scopes <csv>', 'comma-separated scopes (see pksd pat scopes); may be empty')
    .requiredOption('--expires-in-days <n>', 'lifetime in days (1..365)')
    .option('--description <text>', 'optional description (at most 200 characters)')
    .action(
      async (
        opts: { user: string; name: string; scopes: string; expiresInDays: string; description?: string },
        sub: Command,
      ) => {
        const days = /^\s*-?\d+\s*$/.test(opts.expiresInDays)
          ? Number.parseInt(opts.expiresInDays, 10)
          : opts.expiresInDays;
        let spec;
        try {
          spec = validatePatSpec({
            name: opts.name,
            description: opts.description,
            expires_in_days: days,
            scopes: opts.scopes
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s !== ''),
          });
        } catch (err) {
          exitWith(io, err);
        }
        await withIdentity(io, sub, async (identity) => {
          const user = await resolveUser(io, identity.users, opts.user);
          const pat = await identity.pats.mint(user.id, spec);
          io.stdout(pat.plaintext + '\n');
          io.stderr(
            `minted PAT ${pat.id} (prefix ${pat.prefix}) for ${user.login || user.id} scopes=${pat.scopes.join(',')} expires=${rfc3339(pat.expiresAt)}\n`,
          );
        });
      },
    );

  settingSubcommand(cmd, 'list')
    .description('list PATs (no plaintext, no hashes)')
    .option('--user <user>', 'only this user (id, login or email)')
    .option('--json', 'one JSON object per line')
    .action(async (opts: { user?: string; json?: boolean }, sub: Command) => {
      await withIdentity(io, sub, async (identity) => {
        const only = opts.user === undefined ? undefined : (await resolveUser(io, identity.users, opts.user)).id;
        const pats = await identity.pats.list(only);
        const users = new Map<string, User | null>();
        for (const p of pats) if (!users.has(p.userId)) users.set(p.userId, await identity.users.get(p.userId));
        const userOf = (id: string) => users.get(id) ?? null;
        if (opts.json) {
          printJsonLines(
            io,
            pats.map((p) => {
              const u = userOf(p.userId);
              return {
                id: p.id,
                user_id: p.userId,
                user_login: u?.login ?? '',
                user_email: u?.email ?? '',
                name: p.name,
                prefix: p.prefix,
                scopes: p.scopes,
                expires_at: rfc3339(p.expiresAt),
                last_used_at: p.lastUsedAt === null ? null : rfc3339(p.lastUsedAt),
                created: rfc3339(p.created),
              };
            }),
          );
          return;
        }
        io.stdout(
          formatTable(
            ['ID', 'USER', 'NAME', 'PREFIX', 'SCOPES', 'EXPIRES', 'LAST_USED'],
            pats.map((p) => [
              p.id,
              userOf(p.userId)?.login || p.userId,
              p.name,
              p.prefix,
              p.scopes.length > 0 ? p.scopes.join(',') : '-',
              rfc3339(p.expiresAt),
              p.lastUsedAt === null ? '-' : rfc3339(p.lastUsedAt),
            ]),
          ),
        );
      });
    });

  settingSubcommand(cmd, 'revoke')
    .description('revoke (delete) a PAT')
    .argument('<id>', 'PAT id (see pksd pat list)')
    .action(async (id: string, _opts: unknown, sub: Command) => {
      await withIdentity(io, sub, async (identity) => {
        const pat = await identity.pats.revoke(id);
        if (!pat) {
          io.stderr(`pksd: unknown PAT '${id}' (see pksd pat list)\n`);
          throw new ExitError(1);
        }
        io.stderr(`revoked: ${pat.id} (prefix ${pat.prefix})\n`);
      });
    });

  settingSubcommand(cmd, 'scopes')
    .description('print the scope vocabulary')
    .action(() => {
      for (const s of SCOPES) io.stdout(`${s.name}\t${s.description}\n`);
    });
  return cmd;
}
