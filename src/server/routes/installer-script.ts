import { readFileSync } from 'node:fs';

/** `assets/` sits three levels above this module in both `src/` and `dist/`. */
const TEMPLATE = readFileSync(new URL('../../../assets/install-pksd.sh', import.meta.url), 'utf8');

/**
 * The POSIX `sh` installer served at `/install-pksd.sh` (CONTRACT §8.5), with this server's version as the
 * default. It only installs; it never starts services.
 */
export function installerScript(version: string): string {
  return TEMPLATE.replaceAll('__VERSION__', version);
}
