import type { Config } from '../config/types.js';

/**
 * The login allow-list (CONTRACT §7.5): the trimmed, lower-cased login must be in the union of the allowed and
 * admin lists. Both empty → nobody; an empty login → refused.
 */
export function loginAllowed(config: Pick<Config, 'allowedIdpLogins' | 'adminIdpLogins'>, login: string): boolean {
  const name = login.trim().toLowerCase();
  if (name === '') return false;
  return [...config.allowedIdpLogins, ...config.adminIdpLogins].some((l) => l.trim().toLowerCase() === name);
}
