import { Command } from 'commander';
import { ConfigError } from '../../shared/errors.js';
import { buildConfig } from '../config/load.js';
import { showSettings } from '../config/show.js';
import type { Config } from '../config/types.js';
import { LockHeldError } from '../db/lock.js';
import { SchemaTooNewError } from '../db/migrations.js';
import { tuneHeapForServer, withYoungGenerationHeld } from '../heap-tuning.js';
import { createLogger } from '../logger.js';
import type { RunningServer } from '../runtime.js';
import { ExitError, type CommandIO } from './io.js';
import { addSettingFlags, passedSettingFlags } from './setting-flags.js';

/** Loads the configuration for a command; a configuration error prints one line and exits 2 (CONTRACT §1.1). */
export function loadConfigOrExit(io: CommandIO, cmd: Command): Config {
  try {
    return buildConfig({ ...io.base, flags: passedSettingFlags(cmd) });
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr(`pksd: configuration error: ${err.setting}: ${err.reason}\n`);
      throw new ExitError(2);
    }
    throw err;
  }
}

/** `pksd serve`: runs until SIGTERM/SIGINT, then shuts down gracefully and exits 0. */
export function serveCommand(io: CommandIO, onStarted?: (server: RunningServer) => void): Command {
  return addSettingFlags(new Command('serve'))
    .description('run the server')
    .action(async (_opts, cmd: Command) => {
      tuneHeapForServer();
      const config = loadConfigOrExit(io, cmd);
      const logger = createLogger(config.logLevel);
      let server: RunningServer;
      try {
        const inputs = { ...io.base, flags: passedSettingFlags(cmd) };
        // The start keeps nearly everything it allocates (modules, the paper index), which grew V8's young generation
        // to 2 × 16 MiB, kept resident for good: held at its first size until the server listens (docs/decisions.md).
        server = await withYoungGenerationHeld(async () => {
          // Loaded here, not with the module: the other commands share `loadConfigOrExit` without the whole server.
          const { startServer } = await import('../runtime.js');
          return startServer(config, { logger, settings: () => showSettings(inputs).settings });
        });
      } catch (err) {
        if (err instanceof LockHeldError) {
          io.stderr(err.message + '\n');
          throw new ExitError(1);
        }
        if (err instanceof SchemaTooNewError) {
          io.stderr(`pksd: ${err.message}\n`);
          throw new ExitError(2);
        }
        io.stderr(`pksd: cannot start: ${(err as Error).message}\n`);
        throw new ExitError(1);
      }
      onStarted?.(server);
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          logger.info(`received ${signal}; shutting down`);
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          void server.close().then(resolve, (err: unknown) => {
            logger.error({ err }, 'shutdown failed');
            resolve();
          });
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
      logger.info('pksd stopped');
      logger.flush();
    });
}
