import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import type { CredentialVerifier } from './principal.js';

/**
 * The identity module (users, sessions, PATs, device flow): the services the HTTP layer and commands use, and
 * the verifiers it adds to the credential chain after the system PAT.
 */
export interface Identity {
  readonly verifiers: readonly CredentialVerifier[];
  close(): void;
}

export function openIdentity(_config: Config, _logger: Logger): Identity {
  return { verifiers: [], close: () => undefined };
}
