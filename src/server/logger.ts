import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config/types.js';

/**
 * Standard error, where the log goes: one JSON object a line for log collectors, or, when it is a terminal (a
 * person running `pksd serve` or scripts/dev-server.sh), pino-pretty's coloured lines (time, level, message, then
 * the fields), written synchronously so the last lines before an exit are not lost.
 */
function standardError(): DestinationStream {
  if (!process.stderr.isTTY) return pino.destination(2);
  return pretty({
    destination: 2,
    sync: true,
    colorize: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
  });
}

/**
 * The structured logger. Authorization headers and any field named like a secret are censored; the system
 * PAT itself is never handed to a log call (only its length).
 */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'pksd' },
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', '*.token', '*.password', '*.secret', '*.plaintext'],
        censor: '[redacted]',
      },
    },
    destination ?? standardError(),
  );
}
