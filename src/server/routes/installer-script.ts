import { readFileSync } from 'node:fs';

/** `assets/` sits three levels above this module in both `src/` and `dist/`. */
const TEMPLATE = readFileSync(new URL('../../../assets/install-pksd.sh', import.meta.url), 'utf8');

/** `text` inside the single quotes of a POSIX `sh` word. */
const singleQuoted = (text: string) => text.replaceAll("'", `'\\''`);

/**
 * The POSIX `sh` installer served at `/install-pksd.sh` (CONTRACT §8.5), with this server's version as the
 * default and its public base URL, from which the script fetches this server's own package by default. It only
 * installs; it never starts services.
 */
export function installerScript(version: string, serverUrl: string): string {
  return TEMPLATE.replaceAll('__VERSION__', version).replaceAll('__SERVER_URL__', singleQuoted(serverUrl));
}
