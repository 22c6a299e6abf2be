/**
 * The papers list's address and its `GET /api/papers` query (web/src/lib/paper-list.ts, CONTRACT §18.2): what a
 * hand-edited address holds never reaches the server as a value it refuses.
 */
import { describe, expect, it } from 'vitest';
import { filtersFrom, listQuery, pageCount, rangeText, type PaperListFilters } from '../../web/src/lib/paper-list.js';

const DEFAULTS: PaperListFilters = { q: '', hasPdf: '', hasMd: '', sort: 'updated_at', page: 1 };

describe('filtersFrom', () => {
  const cases: [address: string, filters: PaperListFilters][] = [
    ['', DEFAULTS],
    [
      'q=phase&has_pdf=true&has_md=false&sort=id&page=3',
      { q: 'phase', hasPdf: 'true', hasMd: 'false', sort: 'id', page: 3 },
    ],
    ['has_pdf=yes&has_md=1', DEFAULTS],
    ['sort=title', DEFAULTS],
    ['sort=updated_at', DEFAULTS],
    ['page=0', DEFAULTS],
    ['page=-2', DEFAULTS],
    ['page=2.5', DEFAULTS],
    ['page=abc', DEFAULTS],
    ['page=1e400', DEFAULTS],
    ['q=%20quant-ph%2F95%20', { ...DEFAULTS, q: ' quant-ph/95 ' }],
  ];
  it.each(cases)('%j', (address, filters) => {
    expect(filtersFrom(new URLSearchParams(address))).toEqual(filters);
  });
});

describe('listQuery', () => {
  const cases: [filters: PaperListFilters, query: string][] = [
    [DEFAULTS, 'per_page=20'],
    [{ ...DEFAULTS, q: '  phase  ' }, 'q=phase&per_page=20'],
    [{ ...DEFAULTS, q: '   ' }, 'per_page=20'],
    [{ ...DEFAULTS, q: 'quant-ph/95' }, 'q=quant-ph%2F95&per_page=20'],
    [
      { q: 'a&b', hasPdf: 'false', hasMd: 'true', sort: 'id', page: 4 },
      'q=a%26b&has_pdf=false&has_md=true&sort=id&page=4&per_page=20',
    ],
  ];
  it.each(cases)('%j → %s', (filters, query) => {
    expect(listQuery(filters)).toBe(query);
  });
});

describe('paging text', () => {
  it.each([
    [0, 20, 1],
    [1, 20, 1],
    [20, 20, 1],
    [21, 20, 2],
    [1234, 20, 62],
  ])('%i papers at %i a page fill %i pages', (total, perPage, pages) => {
    expect(pageCount(total, perPage)).toBe(pages);
  });

  it.each([
    [1, 20, 20, 57, '1–20 of 57'],
    [3, 20, 17, 57, '41–57 of 57'],
    [1, 20, 1, 1, '1–1 of 1'],
    [51, 20, 20, 1234, '1,001–1,020 of 1,234'],
    [9, 20, 0, 57, null],
  ])('page %i (%i a page, %i shown of %i) reads %j', (page, perPage, shown, total, text) => {
    expect(rangeText(page, perPage, shown, total)).toBe(text);
  });
});
