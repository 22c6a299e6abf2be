/**
 * `pks wiki lint --fix` (CONTRACT §13.5): add a missing `created_at` (today) and a missing `status` (`draft`),
 * rewriting only the frontmatter block, and lint again.
 */
import { readFile, realpath, writeFile } from 'node:fs/promises';
import { localDate } from './dates.js';
import { parseFrontmatterYaml, splitFrontmatter } from './frontmatter.js';
import { lintFiles, summarise, type LintFix, type LintOptions, type LintResult } from './lint.js';
import { get } from './page.js';
import { isInside, resolveInsideRoot, scanWiki } from './scan.js';
import type { PageFile, WikiScan } from './types.js';

type FixField = LintFix['field'];

/** The fixes a file needs: `created_at`/`status` missing or empty in a parseable frontmatter mapping. */
export function plannedFixes(file: PageFile, today: string): { field: FixField; value: string }[] {
  if (file.frontmatter === null) return [];
  const fixes: { field: FixField; value: string }[] = [];
  const created = get(file.frontmatter, 'created_at');
  const status = get(file.frontmatter, 'status');
  if (created === undefined || created === null || (typeof created === 'string' && created.trim() === '')) {
    fixes.push({ field: 'created_at', value: today });
  }
  if (status === undefined || status === null || (typeof status === 'string' && status.trim() === '')) {
    fixes.push({ field: 'status', value: 'draft' });
  }
  return fixes;
}

/**
 * Set top-level frontmatter keys in a page text, touching nothing outside the frontmatter block. An absent key is
 * appended as a new last line of the block; an empty key (`status:`, `status: ""`, `status: null`) gets its line
 * replaced. Line endings and a BOM are kept. `null` when the text cannot be fixed this way (no block, flow-style
 * mapping, or the result would not parse to the intended values).
 */
export function setFrontmatterFields(text: string, fields: readonly { field: string; value: string }[]): string | null {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = bom ? text.slice(1) : text;
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const lines = body.split(/\r?\n/);
  if (!/^---[ \t]*$/.test(lines[0] ?? '')) return null;
  const close = lines.findIndex((line, i) => i > 0 && /^---[ \t]*$/.test(line));
  if (close === -1) return null;
  const block = lines.slice(1, close);
  for (const { field, value } of fields) {
    const keyRe = new RegExp(`^${field}[ \\t]*:(.*)$`);
    const index = block.findIndex((line) => keyRe.test(line));
    if (index === -1) {
      block.push(`${field}: ${value}`);
      continue;
    }
    const rest = keyRe.exec(block[index]!)![1]!;
    if (!/^[ \t]*(?:""|''|~|null|Null|NULL)?[ \t]*(?:#.*)?$/.test(rest)) return null;
    block[index] = `${field}: ${value}`;
  }
  const check = parseFrontmatterYaml(block.join('\n') + '\n');
  if (!check.ok) return null;
  for (const { field, value } of fields) if (get(check.data, field) !== value) return null;
  const out = [lines[0]!, ...block, ...lines.slice(close)].join(eol);
  // Sanity: the body after the block is unchanged.
  if (splitFrontmatter(out.replace(/\r\n/g, '\n')).body !== splitFrontmatter(body.replace(/\r\n/g, '\n')).body) {
    return null;
  }
  return bom + out;
}

/** Apply `--fix` to the files of a scan, writing inside the wiki root only. Returns what was fixed. */
export async function applyLintFixes(scan: WikiScan, options: LintOptions = {}): Promise<LintFix[]> {
  if (!scan.exists) return [];
  const today = localDate(options.now ?? new Date());
  const rootReal = await realpath(scan.root);
  const fixed: LintFix[] = [];
  for (const file of scan.files) {
    const fixes = plannedFixes(file, today);
    if (fixes.length === 0) continue;
    const lexical = resolveInsideRoot(rootReal, file.path);
    if (lexical === null) continue;
    let target: string;
    try {
      target = await realpath(lexical);
    } catch {
      continue;
    }
    if (!isInside(rootReal, target)) continue;
    const text = await readFile(target, 'utf8');
    const updated = setFrontmatterFields(text, fixes);
    if (updated === null || updated === text) continue;
    await writeFile(target, updated, 'utf8');
    for (const fix of fixes) fixed.push({ file: file.path, page_id: file.id, ...fix });
  }
  return fixed;
}

/** Lint a wiki directory; with `fix`, apply the fixes first and lint the result. */
export async function lintWikiDir(root: string, options: LintOptions & { fix?: boolean } = {}): Promise<LintResult> {
  let scan = await scanWiki(root);
  let fixed: LintFix[] = [];
  if (options.fix) {
    fixed = await applyLintFixes(scan, options);
    if (fixed.length > 0) scan = await scanWiki(root);
  }
  const result = lintFiles(scan.files, options);
  return summarise(result.issues, fixed);
}
