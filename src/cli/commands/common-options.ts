/**
 * Options several commands share, declared once: the same flags, help text and default wherever they appear
 * (`command.addOption(requestTimeoutOption())`). Their values are parsed by options.ts (e.g. `requestTimeoutMs`).
 */
import { Option } from 'commander';

/** `--request-timeout <seconds>`: the idle timeout of each request to the server (default 120 s). */
export const requestTimeoutOption = (seconds = 120): Option =>
  new Option('--request-timeout <seconds>', 'idle timeout per request').default(String(seconds));

/** `--quiet-progress`: no live progress line on stderr. */
export const quietProgressOption = (): Option => new Option('--quiet-progress', 'no progress on stderr');

/** `--no-cache`: the parser is asked to bypass its cache (CONTRACT §10.1 `no_cache`). */
export const noCacheOption = (): Option => new Option('--no-cache', 'ask the parser to bypass its cache');

/** `--quiet-notes`: no `Note (server applied defaults)` lines (CONTRACT §16.6). */
export const quietNotesOption = (scope = ''): Option =>
  new Option('--quiet-notes', `${scope}no 'Note (server applied defaults)' lines`);

/** `-o, --output <file>`: where the command writes; `description` says what, and what `-` or no option does. */
export const outputOption = (description: string, placeholder = 'file'): Option =>
  new Option(`-o, --output <${placeholder}>`, description);

/** `-v, --verbose`: progress on stderr. */
export const verboseOption = (): Option => new Option('-v, --verbose', 'log progress on stderr');

/** `--json`: the server's answer as JSON instead of lines for a terminal. */
export const jsonOption = (scope = ''): Option => new Option('--json', `${scope}print the server answer as JSON`);
