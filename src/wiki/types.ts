/** Types shared by the wiki library. Field names follow CONTRACT §13.1. */

export const PAGE_TYPES = ['concept', 'entity', 'source', 'comparison'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

export const PAGE_STATUSES = ['draft', 'review', 'published'] as const;
export type PageStatus = (typeof PAGE_STATUSES)[number];

export const DOI_SOURCES = ['arxiv', 'crossref', 'openalex', 'semantic-scholar', 'manual', 'unresolved'] as const;
export type DoiSource = (typeof DOI_SOURCES)[number];

export const DOI_CONFIDENCES = ['high', 'medium', 'low'] as const;
export type DoiConfidence = (typeof DOI_CONFIDENCES)[number];

/** Date-valued frontmatter fields. */
export const DATE_FIELDS = ['created_at', 'updated_at', 'doi_resolved_at'] as const;

/** Frontmatter values after YAML parsing: plain JSON-compatible data (no cycles, no class instances). */
export type FrontmatterValue =
  string | number | boolean | null | FrontmatterValue[] | { [key: string]: FrontmatterValue };
export type FrontmatterMap = { [key: string]: FrontmatterValue };

export interface ExternalLink {
  label: string;
  url: string;
  kind?: string;
  note?: string;
}

/** One wikilink occurrence in a page body (CONTRACT §13.2). */
export interface WikiLink {
  /** Target page id, trimmed; `""` for a same-page link `[[#section]]`. */
  target: string;
  /** Section after `#`, trimmed; `null` when absent. */
  section: string | null;
  /** Display text after `|`, trimmed; `null` when absent. */
  text: string | null;
  /** The link exactly as written, brackets included. */
  raw: string;
  /** Character offset of `[[` in the body. */
  offset: number;
}

/** A served page (CONTRACT §13.1 "Served pages"). */
export interface WikiPage {
  id: string;
  title: string;
  type: PageType;
  /** Trimmed category, `null` when absent or not a string. */
  category: string | null;
  /** Strings of the `tags` list (trimmed, non-empty); `[]` when absent or not a list. */
  tags: string[];
  /** `YYYY-MM-DD`, `null` when absent or invalid. */
  created_at: string | null;
  updated_at: string | null;
  /** `draft` when missing; otherwise the value as written (lint W002 reports values outside the three). */
  status: string;
  related: string[];
  prerequisites: string[];
  /** `graph_synced`, or its alias `neo4j_synced`; `false` unless literally `true`. */
  graph_synced: boolean;
  /** `graph_node_id`, or its alias `neo4j_id`. */
  graph_node_id: string | null;
  doi: string | null;
  doi_source: string | null;
  doi_confidence: string | null;
  doi_resolved_at: string | null;
  external_links: ExternalLink[];
  version: number | null;
  /** Markdown after the frontmatter, trimmed, LF line endings. */
  body: string;
  /** Path relative to the wiki root, `/`-separated. */
  path: string;
  /** The parsed frontmatter mapping, date fields as `YYYY-MM-DD` when valid. */
  frontmatter: FrontmatterMap;
  /** Every wikilink occurrence of the body, in order. */
  links: WikiLink[];
}

/** Why a candidate file produced no frontmatter mapping. */
export type FileProblemKind =
  | 'too_large'
  | 'unreadable'
  | 'binary'
  | 'not_utf8'
  | 'no_frontmatter'
  | 'unterminated_frontmatter'
  | 'frontmatter_too_large'
  | 'too_many_aliases'
  | 'invalid_yaml'
  | 'not_a_mapping';

export interface FileProblem {
  kind: FileProblemKind;
  message: string;
}

/** One candidate file (CONTRACT §13.1 file selection) after reading and parsing. */
export interface PageFile {
  /** Path relative to the wiki root, `/`-separated. */
  path: string;
  /** Size in bytes. */
  size: number;
  /** Set when the file could not be read or its frontmatter is not a YAML mapping. */
  problem: FileProblem | null;
  /** The frontmatter mapping (date fields normalised), `null` when `problem` is set. */
  frontmatter: FrontmatterMap | null;
  /** The trimmed body (the whole text when there is no frontmatter block; `""` when unreadable). */
  body: string;
  /** Wikilinks of the body. */
  links: WikiLink[];
  /** The `id` when it is a non-empty string (trimmed), whatever else is wrong with the file. */
  id: string | null;
  /** The page when the file meets the served conditions other than id uniqueness. */
  page: WikiPage | null;
  /** Why `page` is null (first failing condition), `null` when it is set. */
  invalidReason: string | null;
}

/** Result of walking and reading a wiki directory. */
export interface WikiScan {
  /** The directory as given. */
  root: string;
  /** `false` when the directory does not exist (an empty wiki, CONTRACT §13.3). */
  exists: boolean;
  /** Candidate files sorted by path. */
  files: PageFile[];
  /** Entries that were seen but not treated as candidate files (e.g. symlinks leaving the root), for diagnostics. */
  ignored: { path: string; reason: string }[];
}

/** A candidate file that is not served, with the reason (counted in `invalid_pages`). */
export interface ExcludedFile {
  path: string;
  page_id: string | null;
  reason: string;
}
