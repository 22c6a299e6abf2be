/**
 * A paper-access job snapshot (CONTRACT §11.2) in the reader's words. The server's `detail` is written for API
 * clients ("not cached; GET /api/papers/…/markdown starts a conversion"); the page says what the state means for
 * the person looking at it, and keeps the server's own text only as a technical detail of a failure.
 */
import type { JobSnapshot } from '../api/types.js';

export type AssetKind = 'pdf' | 'markdown';

export interface JobWords {
  /** What the state means, in a sentence (null when the state's badge and phase say it all). */
  readonly text: string | null;
  /** The server's own explanation, shown on request (failures and refusals only). */
  readonly technical: string | null;
}

const FAILED: Record<string, string> = {
  error_fetching: 'The PDF could not be downloaded from arXiv.',
  error_converting: 'The PDF could not be converted to markdown.',
};

/** The meaning of snapshot `s` of the `kind` panel. */
export function jobWords(s: JobSnapshot, kind: AssetKind): JobWords {
  const detail = s.detail?.trim() || null;
  switch (s.state) {
    case 'none':
      return {
        text:
          kind === 'markdown'
            ? 'No markdown of this paper is stored yet. Converting downloads the PDF from arXiv when needed and turns it into markdown with its figures.'
            : 'No PDF of this paper is stored yet. Fetching downloads it from arXiv and keeps it here.',
        technical: null,
      };
    case 'unavailable':
      return {
        text: 'This server does not convert papers itself (no parser service is set up), so it shows markdown only when it is already stored. A contributor can still parse the paper and upload the result.',
        technical: detail,
      };
    case 'failed':
    case 'cooldown': {
      const known = FAILED[s.phase];
      // The arXiv and quota texts already read as sentences; other details are for whoever runs the server.
      const plain = detail !== null && /^(arXiv has no paper|server quota exhausted)/.test(detail);
      return {
        text: known ? `${known}${plain ? ` ${sentence(detail)}` : ''}` : plain ? sentence(detail) : 'The job failed.',
        technical: plain ? null : detail,
      };
    }
    default:
      return { text: null, technical: null };
  }
}

/** `text` as a sentence: a full stop, and a capital first letter unless the first word is a name (`arXiv`). */
const sentence = (text: string): string => {
  const t = /^[a-z]+\b/.test(text) ? text.charAt(0).toUpperCase() + text.slice(1) : text;
  return /[.!?]$/.test(t) ? t : `${t}.`;
};

/** A default the server applied while resolving an id (CONTRACT §11.1 texts), in words. */
export function defaultWords(text: string): string {
  const doi = /^doi_resolved_via_openalex \(DOI -> arXiv id (.+)\)$/.exec(text);
  if (doi) return `OpenAlex lists the DOI as arXiv paper ${doi[1]}`;
  if (text.startsWith('category=quant-ph')) return 'a number without a category is read as a quant-ph paper';
  const version = /^version=(v\d+)/.exec(text);
  if (version) return `no version was given, so the latest one, ${version[1]}, is shown`;
  return text;
}
