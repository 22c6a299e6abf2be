import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  getPageDetail,
  lintFiles,
  listPages,
  loadWiki,
  namingNotes,
  pageNode,
  searchWiki,
  wikiStats,
} from '../../src/wiki/index.js';

const SAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sample-wiki');

describe('the bundled sample wiki', () => {
  it('lints with zero errors and zero warnings', async () => {
    const snapshot = await loadWiki(SAMPLE);
    // "Now" a day after the pages' updated_at, so W007 does not depend on the calendar.
    const result = lintFiles(snapshot.files, { now: new Date(2026, 10, 21, 12) });
    expect(result.issues.filter((i) => i.severity !== 'info')).toEqual([]);
    expect(result).toMatchObject({ errors: 0, warnings: 0, info: 0 });
    // Whatever the date, there are never errors or warnings.
    const later = lintFiles(snapshot.files, { now: new Date(2030, 0, 1) });
    expect(later.errors + later.warnings).toBe(0);
  });

  it('serves every page and ignores the README', async () => {
    const snapshot = await loadWiki(SAMPLE);
    expect(snapshot.excluded).toEqual([]);
    expect(snapshot.files.map((f) => f.path)).not.toContain('README.md');
    expect(snapshot.pages.length).toBeGreaterThanOrEqual(12);
    const stats = wikiStats(snapshot);
    expect(stats.sources).toBeGreaterThanOrEqual(1);
    expect(stats.by_category).toMatchObject({ algorithm: 2, primitive: 3, person: 1, paper: 1 });
    expect(listPages(snapshot).total).toBe(stats.entries);
  });

  it('follows the naming conventions', async () => {
    const snapshot = await loadWiki(SAMPLE);
    for (const p of snapshot.pages) expect(namingNotes(p.id, p.path), p.id).toEqual([]);
  });

  it('uses all four wikilink forms', async () => {
    const snapshot = await loadWiki(SAMPLE);
    const links = snapshot.pages.flatMap((p) => p.links);
    expect(links.some((l) => l.target !== '' && l.section === null && l.text === null)).toBe(true);
    expect(links.some((l) => l.target !== '' && l.section === null && l.text !== null)).toBe(true);
    expect(links.some((l) => l.target === '' && l.section !== null)).toBe(true);
    expect(links.some((l) => l.target !== '' && l.section !== null && l.text === null)).toBe(true);
    expect(links.some((l) => l.target !== '' && l.section !== null && l.text !== null)).toBe(true);
  });

  it('maps to graph nodes, including the paper page', async () => {
    const snapshot = await loadWiki(SAMPLE);
    const nodes = snapshot.pages.map((p) => pageNode(p));
    expect(nodes.filter((n) => n.kind === 'skipped')).toEqual([]);
    expect(nodes).toContainEqual({
      kind: 'paper',
      label: 'Paper',
      preprint_id: 'quant-ph/9508027',
      wiki_id: 'paper-preprint-quant-ph-9508027v2',
    });
    expect(
      nodes
        .filter((n) => n.kind === 'wiki')
        .map((n) => n.kind === 'wiki' && n.label)
        .sort(),
    ).toContain('Author');
  });

  it('is searchable and pages have backlinks', async () => {
    const snapshot = await loadWiki(SAMPLE);
    expect(searchWiki(snapshot, { q: 'phase estimation' }).results[0]?.id).toBe('prim-phase-estimation');
    expect(searchWiki(snapshot, { q: "Shor's algorithm" }).results[0]?.id).toBe('algo-shors-algorithm');
    expect(searchWiki(snapshot, { q: 'Peter Shor' }).results[0]?.id).toBe('person-peter-shor');
    expect(searchWiki(snapshot, { q: 'SIAM', include_sources: true }).results[0]?.id).toBe(
      'paper-preprint-quant-ph-9508027v2',
    );
    expect(getPageDetail(snapshot, 'concept-qubit')?.backlinks.length).toBeGreaterThan(0);
  });
});
