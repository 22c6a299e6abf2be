/**
 * `isApiRequest` (the hooks' quick reading of a request target) against the plain rule it stands for,
 * `isApiPath(pathOf(target))`: the same answer for every target, on a table of edge cases and on random targets.
 */
import fc from 'fast-check';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { isApiPath, isApiRequest, pathOf } from '../../../src/server/http/headers.js';

const requestFor = (url: string | undefined) => ({ raw: { url } }) as unknown as FastifyRequest;
const plainRule = (url: string | undefined) => isApiPath(pathOf(url ?? '/'));

describe('isApiRequest', () => {
  it.each([
    ['/api', true],
    ['/api/', true],
    ['/api/pages/x', true],
    ['/api?x=1', true],
    ['/api#frag', true],
    ['/api/pages/a%2Fb?x=/y', true],
    ['/apix', false],
    ['/apis/x', false],
    ['/ap', false],
    ['/', false],
    ['/wiki/api/x', false],
    ['/API/pages', false],
    ['/x?/api/', false],
    ['http://host/api/x', true],
    ['http://host/api', true],
    ['http://host', false],
    ['HTTPS://host:8/api?x', true],
    ['http://host/apix', false],
    ['*', false],
    ['', false],
  ])('%s → %s, as the path rule says', (url, expected) => {
    expect(isApiRequest(requestFor(url))).toBe(expected);
    expect(plainRule(url)).toBe(expected);
  });

  it('a target-less request is `/`', () => {
    expect(isApiRequest(requestFor(undefined))).toBe(false);
  });

  it('answers as the path rule on random targets', () => {
    const pieces = fc.constantFrom('/', 'api', '/api', '?', '#', 'x', '%2F', 'http://h', 'A', '');
    const target = fc.oneof(
      fc.array(pieces, { maxLength: 6 }).map((p) => p.join('')),
      fc.string(),
    );
    fc.assert(
      fc.property(target, (url) => {
        expect(isApiRequest(requestFor(url))).toBe(plainRule(url));
      }),
      { numRuns: 2000 },
    );
  });
});
