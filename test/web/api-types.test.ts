/**
 * The web front end restates no response body (issue 21): web/src/api/types.ts only imports and re-exports the
 * server's declarations (its types, the shared wire schemas of src/shared/api, route schemas through `Static<>`),
 * so a change of a body on the server is a type error in the web, not a silent drift.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/server.js';

const source = readFileSync(path.join(REPO_ROOT, 'web/src/api/types.ts'), 'utf8');
/** The file without comments and without its `import type {…}` / `export type {…} from` statements. */
const declarations = source
  .replace(/\/\*[\s\S]*?\*\//g, '')
  .replace(/\/\/.*$/gm, '')
  .replace(/^(?:import|export) type \{[^}]*\} from '[^']+';$/gm, '')
  .replace(/^import type \{ Static \} from '@sinclair\/typebox';$/m, '');

describe('web/src/api/types.ts', () => {
  it('imports every body from the server or src/shared/api', () => {
    const sources = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(0);
    for (const from of sources) expect(from).toMatch(/^(?:\.\.\/\.\.\/\.\.\/src\/|@sinclair\/typebox$)/);
  });

  it('declares no object type, interface or literal of its own', () => {
    expect(declarations).not.toMatch(/\binterface\b/);
    expect(declarations).not.toMatch(/[{}]/);
    // A union of string literals restates an enum (as the old `JobState` did).
    expect(declarations).not.toMatch(/'[^']*'\s*\||\|\s*'[^']*'/);
  });

  it('builds each alias from imported declarations only', () => {
    const aliases = [...declarations.matchAll(/^export type (\w+)(?:<\w+>)? = ([^;]+);$/gm)];
    expect(aliases.map((m) => m[1])).toEqual([
      'ServerInfo',
      'ScopeList',
      'ScopeInfo',
      'PatCreated',
      'PatItem',
      'GraphAnswer',
    ]);
    expect(declarations.replace(/^export type [^;]+;$/gm, '').trim()).toBe('');
  });
});
