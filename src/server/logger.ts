import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config/types.js';

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
    destination ?? pino.destination(2),
  );
}
