/**
 * Worker threads run compiled JavaScript: the worker entry `name` next to `moduleUrl` when that is compiled code,
 * else (sources run through a TypeScript loader, as in tests) the same path under `dist/`; `null` when neither
 * exists.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export function builtWorkerFile(moduleUrl: string, name: string): URL | null {
  const compiled = new URL(`./${name}`, moduleUrl);
  const file = fileURLToPath(compiled);
  if (existsSync(file)) return compiled;
  const at = file.lastIndexOf('/src/server/');
  if (at < 0) return null;
  const built = `${file.slice(0, at)}/dist/server/${file.slice(at + '/src/server/'.length)}`;
  return existsSync(built) ? pathToFileURL(built) : null;
}
