/** Hard limits applied while reading a wiki checkout (CONTRACT §13.1). */

/** Candidate files larger than this are skipped and reported, never read. */
export const MAX_PAGE_FILE_BYTES = 5 * 1024 * 1024;

/** The YAML between the two `---` lines may be at most this many UTF-8 bytes. */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;

/** At most this many YAML aliases (`*name`) in one frontmatter block; also the parser's expansion budget. */
export const MAX_FRONTMATTER_ALIASES = 100;

/**
 * Frontmatter nesting deeper than this (collections, the top-level mapping included) is refused, measured before the
 * recursive part of YAML parsing runs: hostile nesting thousands deep must not reach it (stack exhaustion).
 */
export const MAX_FRONTMATTER_DEPTH = 32;

/** Directory nesting deeper than this below the wiki root is not walked. */
export const MAX_DIRECTORY_DEPTH = 64;

/** Longest accepted page id (characters). */
export const MAX_PAGE_ID_LENGTH = 200;

/** While loading, yield to the event loop after this many milliseconds of synchronous reading and parsing. */
export const READ_SLICE_MS = 10;

/** Search: default and maximum `limit` (CONTRACT §13.4). */
export const SEARCH_DEFAULT_LIMIT = 10;
export const SEARCH_MAX_LIMIT = 100;

/** Search snippets: at most this many characters of body text (the `...` markers come on top). */
export const SNIPPET_LENGTH = 160;

/** Lint W007: a page is stale when its date is more than this many days before today. */
export const STALE_AFTER_DAYS = 30;
