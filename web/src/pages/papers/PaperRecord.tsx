import type { PaperDetail, PaperMetadata } from '../../api/types';
import { Badge } from '../../components/Badge';
import { DataTable } from '../../components/DataTable';
import { fmtBytes, fmtDate, fmtDateTime, fmtNumber, fmtRelative } from '../../lib/format';

const SOURCE: Record<PaperMetadata['source'], string> = {
  graph: 'the knowledge graph',
  arxiv: 'arXiv',
  openalex: 'OpenAlex',
};

/** "A, B and C". */
const listText = (names: string[]): string =>
  names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;

/** Who wrote the paper, when, where it is published and how it is cited (CONTRACT §18.1). */
export function PaperFacts({ id, metadata: m }: { id: string; metadata: PaperMetadata | null }) {
  return (
    <dl className="facts paper-facts">
      {m && m.authors.length > 0 && (
        <>
          <dt>Authors</dt>
          <dd>{listText(m.authors)}</dd>
        </>
      )}
      {m?.published && (
        <>
          <dt>Published</dt>
          <dd>
            <time dateTime={m.published}>{fmtDate(m.published)}</time>
          </dd>
        </>
      )}
      <dt>arXiv</dt>
      <dd>
        <a href={`https://arxiv.org/abs/${id}`} rel="noopener noreferrer" className="mono">
          {id}
        </a>
      </dd>
      {m?.doi && (
        <>
          <dt>DOI</dt>
          <dd>
            <a href={`https://doi.org/${m.doi}`} rel="noopener noreferrer" className="mono">
              {m.doi}
            </a>
          </dd>
        </>
      )}
      {m && m.cited_by_count !== null && (
        <>
          <dt>Cited by</dt>
          <dd>{fmtNumber(m.cited_by_count)}</dd>
        </>
      )}
      {m && (
        <>
          <dt>Metadata from</dt>
          <dd>{SOURCE[m.source]}</dd>
        </>
      )}
    </dl>
  );
}

/** The stored versions of a paper, its parser claim, what each version holds. */
export function Versions({ paper }: { paper: PaperDetail }) {
  const versions = [...paper.versions].sort((a, b) => b.version - a.version);
  return (
    <section className="card" aria-labelledby="versions-title">
      <h2 id="versions-title">Stored versions</h2>
      {paper.claim && (
        <p className="notice notice-info">
          <Badge tone="info">claimed</Badge> {paper.claim.holder} is parsing this paper; the claim expires{' '}
          {fmtRelative(paper.claim.expires_at)}.
        </p>
      )}
      {versions.length === 0 ? (
        <p className="muted">No version of this paper is stored.</p>
      ) : (
        <DataTable stacked columns={['Version', 'PDF', 'Markdown', 'Images', 'Updated']}>
          {versions.map((v) => (
            <tr key={v.version}>
              <td data-label="Version" className="mono">
                v{v.version}
              </td>
              <td data-label="PDF">
                {v.has_pdf ? (
                  <>
                    {fmtBytes(v.pdf_size)}
                    {v.pdf_sha256 && (
                      <span className="sha mono small muted" title={`sha256 ${v.pdf_sha256}`}>
                        {' '}
                        sha256 {v.pdf_sha256.slice(0, 12)}…
                      </span>
                    )}
                  </>
                ) : (
                  <span className="muted">none</span>
                )}
              </td>
              <td data-label="Markdown">{v.has_md ? fmtBytes(v.md_size) : <span className="muted">none</span>}</td>
              <td data-label="Images">{fmtNumber(v.image_count)}</td>
              <td data-label="Updated">{fmtDateTime(v.updated_at)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
