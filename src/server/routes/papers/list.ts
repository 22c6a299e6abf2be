/** `GET /api/papers` (CONTRACT §18.2): one page of the stored papers, from the metadata index. */
import { PaperList } from '../../../shared/api/registry.js';
import type { AppContext } from '../../http/context.js';
import {
  booleanFilterField,
  integerField,
  mapField,
  oneOfField,
  querySchema,
  textField,
} from '../../http/query-schema.js';
import type { ListSort } from '../../papers/paper-index.js';
import { PaperListService } from '../../papers/paper-list.js';
import { definePaperAction, type PaperAction } from './action.js';
import { ErrorBody } from '../schemas.js';

const SORTS: readonly ListSort[] = ['updated_at', 'id'];
const PER_PAGE_DEFAULT = 20;
const PER_PAGE_MAX = 100;

const Query = querySchema({
  q: textField('case-insensitive substring of the id or the title'),
  has_md: booleanFilterField('true/1: only with markdown; false/0: only without; absent: all'),
  has_pdf: booleanFilterField('true/1: only with a PDF; false/0: only without; absent: all'),
  sort: oneOfField(SORTS, 'updated_at', '`updated_at` (newest first, default) or `id`'),
  page: mapField(integerField('default 1; below 1 → 1', 1), (page) => Math.max(1, page)),
  per_page: mapField(
    integerField(`default ${PER_PAGE_DEFAULT}; below 1 → 20; above 100 → 100`, PER_PAGE_DEFAULT),
    (n) => (n < 1 ? PER_PAGE_DEFAULT : Math.min(PER_PAGE_MAX, n)),
  ),
});

export function listAction(ctx: AppContext): PaperAction {
  const list = new PaperListService(ctx.papers.index);
  return definePaperAction({
    method: 'GET',
    path: '/api/papers',
    schema: {
      summary: 'The stored papers, one item per stored version, a page at a time',
      tags: ['papers'],
      querystring: Query,
      response: {
        200: PaperList,
        400: { ...ErrorBody, description: 'a parameter is not an integer or boolean, or an unknown sort' },
      },
    },
    handle: async (_request, _reply, _params, query) =>
      list.page({
        q: query.q,
        hasMd: query.has_md,
        hasPdf: query.has_pdf,
        sort: query.sort,
        page: query.page,
        perPage: query.per_page,
      }),
  });
}
