/**
 * The arXiv API's Atom answer (CONTRACT §18.1) read into paper metadata. An `id_list` query answers a feed with one
 * `<entry>` per paper; an unknown or malformed id answers an entry whose `<id>` is under `…/api/errors` (title
 * `Error`), or, lately, no entry at all. Namespace prefixes are dropped (`arxiv:doi` → `doi`): the arXiv extension
 * elements do not clash with Atom's.
 */
import { XMLParser } from 'fast-xml-parser';
import type { PaperMetadata } from '../../../shared/api/registry.js';

/** The feed is not Atom (not XML, no `<feed>`): an upstream error, not "not found". */
export class MalformedAtomError extends Error {
  constructor(reason: string) {
    super(`malformed Atom from the arXiv API: ${reason}`);
    this.name = 'MalformedAtomError';
  }
}

export type ArxivMetadata = PaperMetadata & { readonly source: 'arxiv' };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  // Titles such as "2048" stay text.
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => name === 'entry' || name === 'author' || name === 'link',
});

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

/** An element's text (its `#text` when it has attributes), whitespace collapsed; `''` when absent. */
function text(value: unknown): string {
  const raw = isNode(value) ? value['#text'] : value;
  return typeof raw === 'string' || typeof raw === 'number' ? String(raw).replace(/\s+/g, ' ').trim() : '';
}

/** The paper id of an entry `<id>` (`http(s)://arxiv.org/abs/<id>v<N>`), without version; `null` otherwise. */
function entryPaperId(entryId: string): string | null {
  const m = /^https?:\/\/(?:www\.|export\.)?arxiv\.org\/abs\/(.+?)(?:v\d+)?$/.exec(entryId);
  return m ? m[1]! : null;
}

/**
 * The metadata of paper `versionless` from an `id_list` answer; `null` when the feed has no entry for it (unknown
 * id: an error entry or none). Throws `MalformedAtomError` when the body is not an Atom feed.
 */
export function metadataFromAtom(xml: string, versionless: string): ArxivMetadata | null {
  let doc: unknown;
  try {
    doc = parser.parse(xml, true);
  } catch (err) {
    throw new MalformedAtomError((err as Error).message);
  }
  const feed = isNode(doc) ? doc['feed'] : undefined;
  if (!isNode(feed)) throw new MalformedAtomError('no <feed> element');
  const entries = Array.isArray(feed['entry']) ? feed['entry'].filter(isNode) : [];
  const entry = entries.find((e) => entryPaperId(text(e['id'])) === versionless);
  if (!entry) return null;
  const title = text(entry['title']);
  if (title === '') throw new MalformedAtomError(`the entry of ${versionless} has no title`);
  const authors = Array.isArray(entry['author'])
    ? entry['author'].map((a) => (isNode(a) ? text(a['name']) : '')).filter((name) => name !== '')
    : [];
  const published = /^\d{4}-\d{2}-\d{2}/.exec(text(entry['published']))?.[0] ?? '';
  const doi = text(entry['doi']).toLowerCase();
  return {
    title,
    authors,
    abstract: text(entry['summary']),
    published,
    doi: doi === '' ? null : doi,
    openalex_id: null,
    cited_by_count: null,
    source: 'arxiv',
  };
}
