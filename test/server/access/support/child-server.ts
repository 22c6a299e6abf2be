/**
 * pksd (`startServer`) as its own process, for tests that SIGKILL the server: settings from the environment (as
 * `pksd serve` reads them), logs to stderr. Run with `node --import test/support/upstreams/ts-register.mjs`.
 */
import { buildConfig } from '../../../../src/server/config/load.js';
import { createLogger } from '../../../../src/server/logger.js';
import { composeServer } from './server.js';

const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
const config = buildConfig({ flags: new Map(), env, cwd: process.cwd(), home: env['HOME'] ?? process.cwd() });
await composeServer(config, createLogger(config.logLevel));
