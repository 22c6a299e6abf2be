/**
 * A paper reference as people paste it (CONTRACT §18.2 fetch items): an arXiv id in any accepted spelling (§2.1), a
 * DOI (§2.3), an arxiv.org abstract or PDF URL, or a doi.org URL. Classifies the input and extracts what the
 * resolver (§11.1) takes; the server, `pks` and the web share it. Pure: no I/O.
 */
import { looksLikeDoi, normaliseDoi } from './doi.js';
import { parsePreprintId } from './ids.js';

/** The original clients' item kinds (§19): an arXiv id, a DOI, a URL, or none of these. */
export type PaperRefKind = 'arxiv' | 'doi' | 'url' | 'invalid';

export type PaperRef =
  | {
      readonly kind: 'arxiv' | 'doi' | 'url';
      /** What resolution takes: an arXiv id (as written, or canonical when taken from a URL) or a DOI. */
      readonly ref: string;
    }
  | {
      readonly kind: 'invalid';
      /** Why the input is no paper reference (the text a per-item error carries). */
      readonly problem: string;
    };

const ARXIV_HOSTS = new Set(['arxiv.org', 'www.arxiv.org', 'export.arxiv.org']);
const DOI_HOSTS = new Set(['doi.org', 'dx.doi.org', 'www.doi.org']);
/** `/abs/<id>` or `/pdf/<id>[.pdf]` (an old-style id has a `/`), a trailing `/` allowed. */
const ARXIV_PATH = /^\/(?:abs|pdf)\/(.+?)(?:\.pdf)?\/?$/;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const SCHEMELESS_ARXIV = /^(?:www\.|export\.)?arxiv\.org\//i;

const UNSUPPORTED_URL = 'expected https://arxiv.org/abs/<id>, https://arxiv.org/pdf/<id> or https://doi.org/<doi>';

const invalid = (problem: string): PaperRef => ({ kind: 'invalid', problem });

/** The path of a URL decoded once (`%2F` in an old-style id); `null` when its escapes are malformed. */
function decodedPath(url: URL): string | null {
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
}

function parseUrl(raw: string, text: string): PaperRef {
  let url: URL;
  try {
    url = new URL(SCHEMELESS_ARXIV.test(text) ? `https://${text}` : text);
  } catch {
    return invalid(`invalid URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return invalid(`unsupported URL: ${JSON.stringify(raw)} (${UNSUPPORTED_URL})`);
  }
  const host = url.hostname.toLowerCase();
  const path = decodedPath(url);
  if (path !== null && ARXIV_HOSTS.has(host)) {
    const idText = ARXIV_PATH.exec(path)?.[1];
    const id = idText === undefined ? null : parsePreprintId(idText);
    if (id !== null) return { kind: 'url', ref: id.id };
    if (idText !== undefined) return invalid(`not an arXiv id in URL: ${JSON.stringify(raw)}`);
  }
  if (path !== null && DOI_HOSTS.has(host)) {
    const doi = normaliseDoi(path.slice(1));
    return doi.ok ? { kind: 'url', ref: doi.doi } : invalid(`invalid DOI in URL: ${doi.reason}`);
  }
  return invalid(`unsupported URL: ${JSON.stringify(raw)} (${UNSUPPORTED_URL})`);
}

/**
 * Classifies one input: a URL (`<scheme>://…`, or `arxiv.org/…` without a scheme) must be an http(s) arxiv.org
 * `/abs/` or `/pdf/` URL of a valid id, or a doi.org URL of a valid DOI; otherwise the input is a DOI when it starts
 * with `10.` after the §2.3 prefixes (`doi:`, `doi.org/` without a scheme, …), else an arXiv id. Invalid inputs carry
 * the §2.2/§2.3 texts.
 */
export function parsePaperRef(raw: string): PaperRef {
  const text = raw.trim();
  if (URL_SCHEME.test(text) || SCHEMELESS_ARXIV.test(text)) return parseUrl(raw, text);
  if (looksLikeDoi(text)) {
    const doi = normaliseDoi(text);
    return doi.ok ? { kind: 'doi', ref: doi.doi } : invalid(`invalid DOI: ${doi.reason}`);
  }
  const id = parsePreprintId(text);
  return id !== null ? { kind: 'arxiv', ref: text } : invalid(`invalid preprint id or DOI: ${JSON.stringify(raw)}`);
}
