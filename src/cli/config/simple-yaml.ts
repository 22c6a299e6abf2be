/**
 * `config.yaml` in its common shapes read without the `yaml` package: the first-run template (comment lines only)
 * and `key: value` lines with plain string values, as `pks config set` writes them. Exact or nothing: `null` for any
 * text outside that subset, which the `yaml` package then parses; inside it the result equals `yaml.parse`'s
 * (test/cli/config/simple-yaml.test.ts compares the two).
 */

/**
 * A top-level key, one or more spaces, and a plain scalar that YAML 1.2's core schema reads as a string: it starts
 * with a letter or `/` (numbers, `.inf`/`.nan`, `~`, signs, indicators and quotes start otherwise), contains no
 * space, `:` or `#` (so no comment or nested mapping), and is not one of the null/boolean words below.
 */
const KEY_VALUE = /^([a-z][a-z0-9_]*): +([A-Za-z/][A-Za-z0-9/_.-]*)$/;
const NOT_STRINGS: ReadonlySet<string> = new Set([
  'null',
  'Null',
  'NULL',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
]);

/** The mapping of `text` when it is in the subset (comments and blank lines only: `{}`), else `null`. */
export function parseSimpleConfig(text: string): Record<string, string> | null {
  const mapping: Record<string, string> = {};
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = KEY_VALUE.exec(line);
    if (match === null) return null;
    const [, key, value] = match as unknown as [string, string, string];
    // A repeated key is an error of the full parser; a value that is not a string is typed by it.
    if (seen.has(key) || NOT_STRINGS.has(value)) return null;
    seen.add(key);
    mapping[key] = value;
  }
  return mapping;
}
