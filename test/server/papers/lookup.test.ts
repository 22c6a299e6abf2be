/**
 * `GET /api/papers/lookup?ids=…` (CONTRACT §18.2): none → 400, more than 200 refs cut to 200, unknown namespaces
 * and unparseable refs echoed unresolved, request order kept, `doi:`/`openalex:` misses fetched from OpenAlex at
 * most 20 per request (and cached when they name an arXiv paper), hosted papers marked, `corpus_available` false
 * without a graph.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOKUP_FETCH_RULE } from '../../../src/server/papers/metadata/lookup.js';
import type { Lookup, LookupItem } from '../../../src/shared/api/registry.js';
import { arxivWork, type OpenAlexWork } from '../../support/upstreams/openalex.js';
import { AUTH, startAccessStack, stopAccessStack, type AccessStack } from '../access/support/server.js';
import { multipart, pdfBytes } from './helpers.js';

let stack: AccessStack;
beforeAll(async () => {
  stack = await startAccessStack();
});
afterAll(() => stopAccessStack(stack));

async function lookup(ids: string | null): Promise<{ status: number; body: Record<string, unknown> }> {
  const query = ids === null ? '' : `?ids=${encodeURIComponent(ids)}`;
  const res = await stack.s.fetch(`/api/papers/lookup${query}`, { headers: AUTH });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const unresolved = (ref: string): LookupItem => ({ ref, resolved: false, hosted: false, has_md: false });

function work(doi: string, arxivId: string, title: string): OpenAlexWork {
  return {
    ...arxivWork(doi, arxivId, title),
    publication_date: '2023-04-05',
    cited_by_count: 3,
    authorships: [{ author: { display_name: 'Ada Lovelace' } }, { author: { display_name: 'Alan Turing' } }],
  };
}

describe('lookup boundaries', () => {
  it.each([
    ['no ids parameter', null],
    ['an empty ids', ''],
    ['only separators and blanks', ' , ,, '],
  ])('%s: 400', async (_name, ids) => {
    expect(await lookup(ids)).toEqual({
      status: 400,
      body: { detail: 'ids: no refs given (comma-separated arxiv:<id>, doi:<doi> or openalex:<W id>)' },
    });
  });

  it('201 refs: the first 200 are answered, in order; arXiv refs are never fetched', async () => {
    const refs = Array.from({ length: 201 }, (_, i) => `arxiv:2503.${String(i + 1).padStart(5, '0')}`);
    const before = stack.d.openalex.requests.length;
    const res = await lookup(refs.join(','));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ results: refs.slice(0, 200).map(unresolved), corpus_available: false });
    expect(stack.d.openalex.requests.length).toBe(before);
  });

  it('a repeated ids parameter adds its refs, in order', async () => {
    const res = await stack.s.fetch('/api/papers/lookup?ids=isbn:1,plain&ids=isbn:2', { headers: AUTH });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      results: ['isbn:1', 'plain', 'isbn:2'].map(unresolved),
      corpus_available: false,
    });
  });

  it('unknown namespaces and unparseable refs are echoed unresolved; duplicates and order kept', async () => {
    const refs = [
      'isbn:978-3-16-148410-0',
      'arxiv:not-an-id',
      'doi:10.1/x',
      'openalex:Q1',
      'plain',
      'isbn:978-3-16-148410-0',
    ];
    const before = stack.d.openalex.requests.length;
    expect((await lookup(refs.join(','))).body).toEqual({ results: refs.map(unresolved), corpus_available: false });
    expect(stack.d.openalex.requests.length).toBe(before);
  });
});

describe('OpenAlex for doi: and openalex: misses', () => {
  it('at most 20 OpenAlex requests per lookup; the rest unresolved; arXiv-linked works are cached', async () => {
    const dois = Array.from({ length: 25 }, (_, i) => `10.7000/cap.${i + 1}`);
    dois.forEach((doi, i) =>
      stack.d.openalex.works.set(doi, work(doi, `2504.${String(i + 1).padStart(5, '0')}`, `Work ${i + 1}`)),
    );
    const refs = dois.map((doi) => `doi:${doi}`);
    const resolved = (i: number): LookupItem => ({
      ref: refs[i]!,
      resolved: true,
      hosted: false,
      has_md: false,
      title: `Work ${i + 1}`,
      authors: ['Ada Lovelace', 'Alan Turing'],
      year: 2023,
    });
    const before = stack.d.openalex.workRequests().length;
    const first = await lookup(refs.join(','));
    expect(first.body).toEqual({
      results: refs.map((ref, i) => (i < 20 ? resolved(i) : unresolved(ref))),
      corpus_available: false,
    } satisfies Lookup);
    expect(stack.d.openalex.workRequests().length - before).toBe(20);

    // The 20 are cached now (each names an arXiv paper): only the 5 others go to OpenAlex.
    const second = await lookup(refs.join(','));
    expect(second.body).toEqual({ results: refs.map((_, i) => resolved(i)), corpus_available: false });
    expect(stack.d.openalex.workRequests().length - before).toBe(25);
  });

  it('openalex: refs are fetched by work id; an OpenAlex failure or an unknown work is unresolved', async () => {
    stack.d.openalex.works.set('10.7000/by-id', {
      ...work('10.7000/by-id', '2504.10001', 'By id'),
      id: 'https://openalex.org/W4242',
    });
    stack.d.openalex.answerNext({ status: 500, body: 'boom' });
    const res = await lookup('doi:10.7000/fails,openalex:w4242,openalex:W999');
    expect(res.body).toEqual({
      results: [
        unresolved('doi:10.7000/fails'),
        {
          ref: 'openalex:w4242',
          resolved: true,
          hosted: false,
          has_md: false,
          title: 'By id',
          authors: ['Ada Lovelace', 'Alan Turing'],
          year: 2023,
        },
        unresolved('openalex:W999'),
      ],
      corpus_available: false,
    });
  });
});

describe('hosted papers', () => {
  it('a stored paper is hosted under its canonical id, whether named by arXiv id or by a DOI OpenAlex links to it', async () => {
    stack.d.arxiv.entries.set('2505.00001', {
      title: 'Hosted paper',
      authors: ['H. Ost'],
      abstract: 'x',
      published: '2025-05-01',
    });
    const { body, contentType } = multipart([{ name: 'pdf', filename: 'p.pdf', content: pdfBytes('hosted') }]);
    const up = await stack.s.fetch('/api/papers/2505.00001v1/upload-pdf', {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': contentType },
      body,
    });
    expect(up.status).toBe(201);
    // The upload's background fill has cached the arXiv metadata.
    await expect
      .poll(() => stack.d.arxiv.requestsTo('query').filter((r) => r.url.endsWith('id_list=2505.00001')).length)
      .toBe(1);
    await expect
      .poll(async () => ((await lookup('arxiv:2505.00001')).body['results'] as LookupItem[])[0]?.title)
      .toBe('Hosted paper');
    stack.d.openalex.works.set('10.7000/hosted', work('10.7000/hosted', '2505.00001', 'Hosted paper (OpenAlex)'));
    const res = await lookup('arxiv:2505.00001v1,doi:10.7000/hosted');
    expect(res.body).toEqual({
      results: [
        {
          ref: 'arxiv:2505.00001v1',
          resolved: true,
          hosted: true,
          has_md: false,
          preprint_id: '2505.00001',
          title: 'Hosted paper',
          authors: ['H. Ost'],
          year: 2025,
        },
        {
          ref: 'doi:10.7000/hosted',
          resolved: true,
          hosted: true,
          has_md: false,
          preprint_id: '2505.00001',
          title: 'Hosted paper (OpenAlex)',
          authors: ['Ada Lovelace', 'Alan Turing'],
          year: 2023,
        },
      ],
      corpus_available: false,
    });
    // The arXiv row stays; it takes OpenAlex's id and citation count.
    const detail = await stack.s.fetch('/api/papers/2505.00001v1', { headers: AUTH });
    expect(((await detail.json()) as { metadata: unknown }).metadata).toEqual({
      title: 'Hosted paper',
      authors: ['H. Ost'],
      abstract: 'x',
      published: '2025-05-01',
      doi: '10.7000/hosted',
      openalex_id: stack.d.openalex.works.get('10.7000/hosted')!.id.replace('https://openalex.org/', ''),
      cited_by_count: 3,
      source: 'arxiv',
    });
  });
});

describe('OpenAlex requests per caller', () => {
  it(`at most ${LOOKUP_FETCH_RULE.limit} a minute: past them, misses stay unresolved`, async () => {
    const own = await startAccessStack();
    try {
      // Works without an arXiv location are not cached: each lookup asks OpenAlex again.
      const dois = Array.from({ length: 20 }, (_, i) => `10.7000/loop.${i + 1}`);
      for (const doi of dois) {
        own.d.openalex.works.set(doi, { id: `https://openalex.org/W9${dois.indexOf(doi)}`, doi, title: 'Loop' });
      }
      const ids = encodeURIComponent(dois.map((doi) => `doi:${doi}`).join(','));
      const resolvedCount = async () => {
        const res = await own.s.fetch(`/api/papers/lookup?ids=${ids}`, { headers: AUTH });
        return ((await res.json()) as Lookup).results.filter((r) => r.resolved).length;
      };
      for (let i = 0; i < LOOKUP_FETCH_RULE.limit / 20; i++) expect(await resolvedCount()).toBe(20);
      expect(await resolvedCount()).toBe(0);
      expect(own.d.openalex.requests).toHaveLength(LOOKUP_FETCH_RULE.limit);
    } finally {
      await stopAccessStack(own);
    }
  });
});
