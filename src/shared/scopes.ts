/** The fixed scope vocabulary (SPEC "Scope vocabulary", CONTRACT §7.4). */

export const SCOPES = [
  { name: 'wiki:read', description: 'Read wiki pages, search and wiki statistics' },
  { name: 'wiki:write', description: 'Pull the wiki checkout (fast-forward); implies wiki:read' },
  {
    name: 'papers:read',
    description: 'Read paper statistics and the parser queue; with paper access, read paper bytes and chunk search',
  },
  {
    name: 'papers:write',
    description: 'Upload PDFs and parser bundles, claim papers, run ingest tasks; implies papers:read',
  },
  { name: 'graph:read', description: 'Graph statistics, schema and read-only queries' },
] as const;

export type Scope = (typeof SCOPES)[number]['name'];
export const WILDCARD_SCOPE = '*';
export const MAX_EXPIRY_DAYS = 365;

export const SCOPE_NAMES: readonly Scope[] = SCOPES.map((s) => s.name);

export function isScope(value: string): value is Scope {
  return (SCOPE_NAMES as readonly string[]).includes(value);
}

export type ScopeObject = 'wiki' | 'papers' | 'graph';
export type ScopeAction = 'read' | 'write';

/** Whether a granted scope list covers `obj:act`: `*` covers all, `X:write` implies `X:read`, unknown covers none. */
export function scopesCover(granted: readonly string[], obj: ScopeObject, act: ScopeAction): boolean {
  return granted.some((s) => s === WILDCARD_SCOPE || s === `${obj}:${act}` || (act === 'read' && s === `${obj}:write`));
}
