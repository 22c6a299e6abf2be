/** Helpers for wiki tests: temporary wiki directories and page text builders. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temporary directory, removed after the test. */
export async function tempDir(prefix = 'pks-wiki-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Write `files` (relative path → content) under a fresh temporary wiki directory and return it. */
export async function makeWiki(files: Record<string, string | Buffer>): Promise<string> {
  const dir = await tempDir();
  await writeFiles(dir, files);
  return dir;
}

export async function writeFiles(dir: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(dir, rel);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

export interface PageSpec {
  id?: string | null;
  title?: string | null;
  type?: string | null;
  category?: string | null;
  tags?: string[] | null;
  created_at?: string | null;
  updated_at?: string | null;
  status?: string | null;
  /** Extra raw YAML lines. */
  extra?: string[];
  body?: string;
}

/**
 * A page text. Fields default to a clean concept page; pass `null` to omit a field. The default body has a
 * `## Definition` section.
 */
export function page(spec: PageSpec = {}): string {
  const id = spec.id === undefined ? 'concept-example' : spec.id;
  const fields: [string, string | null][] = [
    ['id', id],
    ['title', spec.title === undefined ? 'Example' : spec.title],
    ['type', spec.type === undefined ? 'concept' : spec.type],
    ['category', spec.category === undefined ? 'technique' : spec.category],
    ['tags', spec.tags === undefined ? '[example]' : spec.tags === null ? null : `[${spec.tags.join(', ')}]`],
    ['created_at', spec.created_at === undefined ? '2026-03-01' : spec.created_at],
    ['updated_at', spec.updated_at === undefined ? '2026-03-10' : spec.updated_at],
    ['status', spec.status === undefined ? 'published' : spec.status],
  ];
  const lines = ['---'];
  for (const [key, value] of fields) if (value !== null) lines.push(`${key}: ${value}`);
  lines.push(...(spec.extra ?? []), '---', '');
  return lines.join('\n') + (spec.body ?? '## Definition\n\nAn example page.\n');
}

/** "Now" for lint tests: close enough to the default dates that nothing is stale. */
export const NOW = new Date(2026, 2, 20, 12, 0, 0);
