/** `GET /api/papers` (CONTRACT §18.2): one page of the stored papers, from the metadata index. */
import { Type } from '@sinclair/typebox';
import { PaperList } from '../../../shared/api/registry.js';
import { InvalidInputError } from '../../../shared/domain-errors.js';
import type { AppContext } from '../../http/context.js';
import { queryBoolean, queryInteger, queryString } from '../../http/query.js';
import type { ListSort } from '../../papers/paper-index.js';
import { PaperListService } from '../../papers/paper-list.js';
import type { PaperAction } from '../papers.js';
import { ErrorBody } from '../schemas.js';

const SORTS: readonly ListSort[] = ['updated_at', 'id'];
const PER_PAGE_DEFAULT = 20;
const PER_PAGE_MAX = 100;

type Query = Record<string, string | undefined>;

/** A §0.2 query boolean where absent means "no filter". */
const filterOf = (value: string | undefined, name: string) => (value === undefined ? null : queryBoolean(value, name));

export function listAction(ctx: AppContext): PaperAction {
  const list = new PaperListService(ctx.papers.catalog.index);
  return {
    method: 'GET',
    path: '/api/papers',
    schema: {
      summary: 'The stored papers, one item per stored version, a page at a time',
      tags: ['papers'],
      querystring: Type.Object({
        q: Type.Optional(Type.String({ description: 'case-insensitive substring of the id or the title' })),
        has_md: Type.Optional(
          Type.String({ description: 'true/1: only with markdown; false/0: only without; absent: all' }),
        ),
        has_pdf: Type.Optional(
          Type.String({ description: 'true/1: only with a PDF; false/0: only without; absent: all' }),
        ),
        sort: Type.Optional(Type.String({ description: '`updated_at` (newest first, default) or `id`' })),
        page: Type.Optional(Type.String({ description: 'integer, default 1; below 1 → 1' })),
        per_page: Type.Optional(Type.String({ description: 'integer, default 20; below 1 → 20; above 100 → 100' })),
      }),
      response: {
        200: PaperList,
        400: { ...ErrorBody, description: 'a parameter is not an integer or boolean, or an unknown sort' },
      },
    },
    handle: async (request) => {
      const query = (request.query ?? {}) as Query;
      const sort = queryString(query['sort']) ?? 'updated_at';
      if (!SORTS.includes(sort as ListSort)) throw new InvalidInputError(`sort must be one of ${SORTS.join(', ')}`);
      const page = Math.max(1, queryInteger(query['page'], 'page', 1));
      const perPageAsked = queryInteger(query['per_page'], 'per_page', PER_PAGE_DEFAULT);
      const perPage = perPageAsked < 1 ? PER_PAGE_DEFAULT : Math.min(PER_PAGE_MAX, perPageAsked);
      return list.page({
        q: queryString(query['q']),
        hasMd: filterOf(query['has_md'], 'has_md'),
        hasPdf: filterOf(query['has_pdf'], 'has_pdf'),
        sort: sort as ListSort,
        page,
        perPage,
      });
    },
  };
}
