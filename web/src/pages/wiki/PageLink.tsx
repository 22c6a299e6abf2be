import { Link } from 'react-router';
import type { PageListItem } from '../../api/types';

/** A link to a wiki page by id, titled when the page is known, marked broken when the index says it is missing. */
export function PageLink({ id, index }: { id: string; index: Map<string, PageListItem> | undefined }) {
  const page = index?.get(id);
  const broken = index !== undefined && !page;
  return (
    <Link to={`/wiki/${encodeURIComponent(id)}`} className={broken ? 'wikilink broken' : undefined}>
      {page?.title ?? id}
      {broken && <span className="visually-hidden"> (page does not exist)</span>}
    </Link>
  );
}
