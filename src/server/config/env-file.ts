/**
 * Env file parsing (CONTRACT §1.1): `NAME=value` lines, optional `export `, `#` comments, single- or
 * double-quoted values (double quotes honour `\n`, `\"`, `\\`).
 */
export function parseEnvFile(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    values.set(match[1]!, parseValue(match[2]!));
  }
  return values;
}

function parseValue(raw: string): string {
  if (raw.startsWith('"')) {
    const end = findClosingQuote(raw);
    if (end > 0) {
      return raw.slice(1, end).replace(/\\(n|"|\\)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
  }
  if (raw.startsWith("'")) {
    const end = raw.indexOf("'", 1);
    if (end > 0) return raw.slice(1, end);
  }
  // Unquoted: an inline comment starts at ` #`.
  const hash = raw.search(/\s#/);
  return (hash >= 0 ? raw.slice(0, hash) : raw).trim();
}

function findClosingQuote(raw: string): number {
  for (let i = 1; i < raw.length; i++) {
    if (raw[i] === '\\') i++;
    else if (raw[i] === '"') return i;
  }
  return -1;
}
