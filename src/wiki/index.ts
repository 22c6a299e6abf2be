/**
 * The wiki library (CONTRACT §13, §6.3): reading a wiki checkout, wikilinks, lint, search and the bodies of the
 * wiki read endpoints. No HTTP, no environment access; shared by the server and the CLI.
 */
export * from './types.js';
export * from './limits.js';
export { parseWikiDate, parseDateString, localDate, daysBetween, dateToRfc3339 } from './dates.js';
export {
  PAGE_ID_PREFIXES,
  isKebabCase,
  isSafePageId,
  namingNotes,
  parsePreprintId,
  paperPageIdFor,
  preprintIdFromPageId,
} from './ids.js';
export { splitFrontmatter, parseFrontmatterYaml } from './frontmatter.js';
export { maskCode, headings, type Heading } from './markdown.js';
export { extractWikilinks, parseLinkInner, outgoingTargets, compareStrings } from './links.js';
export { parsePageText, parsePageBytes } from './page.js';
export { scanWiki, scanFromSources, isPageFileName, isInside, resolveInsideRoot, NON_PAGE_FILE_NAMES } from './scan.js';
export {
  buildSnapshot,
  buildSnapshotAsync,
  loadWiki,
  emptySnapshot,
  selectServedPages,
  linksOf,
  backlinksOf,
  type WikiSnapshot,
} from './snapshot.js';
export {
  WikiSearchIndex,
  makeSnippet,
  clampLimit,
  BM25_B,
  BM25_K1,
  FIELD_WEIGHTS,
  TITLE_SUBSTRING_BONUS,
  type SearchHit,
  type SearchOptions,
  type SearchOutcome,
} from './search.js';
export { tokenize, forEachToken } from './tokens.js';
export {
  LINT_CODES,
  LINT_SEVERITY,
  REQUIRED_FIELDS,
  lintFiles,
  hasDefinitionSection,
  isBareDoi,
  type LintCode,
  type LintFinding,
  type LintFix,
  type LintOptions,
  type LintResult,
  type LintSeverity,
} from './lint.js';
export { lintWikiDir, applyLintFixes, plannedFixes, setFrontmatterFields } from './fix.js';
export {
  listPages,
  getPageDetail,
  wikiStats,
  searchWiki,
  type PageListItem,
  type PageListQuery,
  type PageListResponse,
  type PageDetailResponse,
  type StatsResponse,
  type SearchQuery,
  type SearchResponse,
  type SearchResultItem,
} from './api.js';
export { pageNode, type PageNode, type WikiNodeLabel } from './graph-mapping.js';
