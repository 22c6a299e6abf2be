/**
 * The original clients' aliases (CONTRACT §19) over HTTP: each alias answers what the route it aliases answers
 * (status and body, ids and times aside), plus `lease_id` / `arxiv_id` and the `X-Qatlas-Server-Version` header, and
 * is documented as deprecated with the original's guard and answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../../src/shared/version.js';
import { AUTH, multipart, pdfBytes, startBackend, uploadPdf, type Backend } from './helpers.js';
import { makeZip } from './zip.js';

let b: Backend;
beforeAll(async () => {
  b = await startBackend('local', null, { SVC_PREPRINT_BASE_URL: 'https://preprints.example/' });
});
afterAll(async () => {
  await b?.close();
});

let seq = 0;
const freshId = () => `2503.${String(30000 + ++seq).padStart(5, '0')}v1`;

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** An answer with the paper id, claim ids and times replaced by placeholders, so two papers' answers compare. */
async function answer(res: Response, id: string, claimIds: readonly string[] = []): Promise<Answer> {
  expect(res.headers.get('x-qatlas-server-version')).toBe(VERSION);
  expect(res.headers.get('x-svc-server-version')).toBe(VERSION);
  let text = await res.text();
  text = text.split(id).join('<id>');
  for (const c of claimIds) text = text.split(c).join('<claim>');
  text = text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>');
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

interface ClaimRoutes {
  readonly name: string;
  claim(id: string): string;
  release(id: string, claimId: string): string;
}

const PARSER_CLAIM: ClaimRoutes = {
  name: 'parser-claim',
  claim: (id) => `/api/papers/${id}/parser-claim`,
  release: (id, c) => `/api/papers/${id}/parser-claim/${c}`,
};

const CLAIM_ALIASES: readonly ClaimRoutes[] = [
  {
    name: 'mineru-claim',
    claim: (id) => `/api/papers/${id}/mineru-claim`,
    release: (id, c) => `/api/papers/${id}/mineru-claim/${c}`,
  },
  {
    name: 'v1 mineru-lease',
    claim: (id) => `/api/v1/papers/${id}/mineru-lease`,
    release: (id, c) => `/api/v1/papers/${id}/mineru-lease/${c}`,
  },
];

/** One paper's claim life through `routes`: every answer, normalised. */
async function claimTranscript(routes: ClaimRoutes): Promise<{ answers: Answer[]; claimed: Record<string, unknown> }> {
  const id = freshId();
  const post = (query = '', headers: Record<string, string> = AUTH) =>
    b.server.fetch(`${routes.claim(id)}${query}`, { method: 'POST', headers });
  const del = (claimId: string) => b.server.fetch(routes.release(id, claimId), { method: 'DELETE', headers: AUTH });
  const answers: Answer[] = [];
  answers.push(await answer(await post('', {}), id)); // no credential
  answers.push(await answer(await post(), id)); // no PDF
  expect((await uploadPdf(b.server, id, pdfBytes('the same bytes'))).status).toBe(201);
  const first = await post('?ttl_seconds=99999');
  const claimed = (await first.clone().json()) as Record<string, unknown>;
  const claimId = String(claimed['claim_id']);
  answers.push(await answer(first, id, [claimId]));
  answers.push(await answer(await post(), id, [claimId])); // already claimed
  answers.push(await answer(await del('0123456789abcdef0123456789abcdef'), id, [claimId])); // not the holder
  answers.push(await answer(await del(claimId), id, [claimId]));
  const again = await post('?ttl_seconds=60');
  const second = (await again.clone().json()) as Record<string, unknown>;
  answers.push(await answer(again, id, [String(second['claim_id'])]));
  return { answers, claimed };
}

describe('claim aliases (§19): mineru-claim and /api/v1 mineru-lease ≡ parser-claim', () => {
  it.each(CLAIM_ALIASES)('$name answers as parser-claim does, with lease_id = claim_id', async (alias) => {
    const original = await claimTranscript(PARSER_CLAIM);
    const aliased = await claimTranscript(alias);
    expect(aliased.answers).toEqual(original.answers);
    expect(aliased.answers.map((a) => a.status)).toEqual([401, 404, 201, 409, 409, 204, 201]);
    for (const claimed of [original.claimed, aliased.claimed]) {
      expect(claimed['claim_id']).toMatch(/^[0-9a-f]{32}$/);
      expect(claimed['lease_id']).toBe(claimed['claim_id']);
      expect(claimed['ttl_seconds']).toBe(7200);
    }
  });

  it('a claim taken through one name is released through another', async () => {
    const id = freshId();
    await uploadPdf(b.server, id, pdfBytes('cross'));
    const res = await b.server.fetch(`/api/v1/papers/${id}/mineru-lease`, { method: 'POST', headers: AUTH });
    const { lease_id: leaseId } = (await res.json()) as { lease_id: string };
    const held = await b.server.fetch(`/api/papers/${id}/mineru-claim`, { method: 'POST', headers: AUTH });
    expect(held.status).toBe(409);
    const release = await b.server.fetch(`/api/papers/${id}/parser-claim/${leaseId}`, {
      method: 'DELETE',
      headers: AUTH,
    });
    expect(release.status).toBe(204);
    expect((await b.server.fetch(`/api/papers/${id}/mineru-claim`, { method: 'POST', headers: AUTH })).status).toBe(
      201,
    );
  });

  it('only the lease action lives under /api/v1/papers/ (others 404 before authentication, GET 405)', async () => {
    for (const [method, action] of [
      ['POST', 'parser-claim'],
      ['POST', 'upload-mineru'],
    ] as const) {
      const res = await b.server.fetch(`/api/v1/papers/2503.00001v1/${action}`, { method });
      expect([res.status, await res.json()], `${method} ${action}`).toEqual([
        404,
        { detail: `no ${method} handler for /api/v1/papers/2503.00001v1/${action}` },
      ]);
    }
    // The lease path has no GET at all: the route table's 405.
    const get = await b.server.fetch('/api/v1/papers/2503.00001v1/mineru-lease');
    expect([get.status, get.headers.get('allow'), await get.json()]).toEqual([
      405,
      'POST',
      { detail: 'method not allowed' },
    ]);
    const notLease = await b.server.fetch('/api/papers/2503.00001v1/mineru-lease', { method: 'POST' });
    expect([notLease.status, await notLease.json()]).toEqual([
      404,
      { detail: 'no POST handler for /api/papers/2503.00001v1/mineru-lease' },
    ]);
  });
});

describe('needs-mineru (§19) ≡ needs-parser; every item carries arxiv_id', () => {
  it('the same body through both names', async () => {
    for (let i = 0; i < 2; i++) await uploadPdf(b.server, freshId(), pdfBytes(`waiting ${i}`));
    const get = async (name: string) => {
      const res = await b.server.fetch(`/api/papers/${name}?limit=100&include_claimed=true`, { headers: AUTH });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-qatlas-server-version')).toBe(VERSION);
      return (await res.json()) as { papers: Record<string, unknown>[] };
    };
    const parser = await get('needs-parser');
    expect(await get('needs-mineru')).toEqual(parser);
    expect(parser.papers.length).toBeGreaterThanOrEqual(2);
    for (const p of parser.papers) expect(p['arxiv_id']).toBe(p['preprint_id']);
    const anonymous = await b.server.fetch('/api/papers/needs-mineru');
    expect(anonymous.status).toBe(401);
  });
});

describe('upload-mineru (§19) ≡ upload-parser; the part mineru_zip is accepted as parser_zip', () => {
  const zip = makeZip([
    { name: 'out/full.md', content: '# The same result\n\n![](images/fig.png)\n' },
    { name: 'out/images/fig.png', content: 'not really a png' },
  ]);
  const upload = async (action: string, part: string | null): Promise<Answer> => {
    const id = freshId();
    await uploadPdf(b.server, id, pdfBytes('to parse'));
    const { body, contentType } = multipart(
      part === null
        ? [{ name: 'other', content: 'x' }]
        : [{ name: part, filename: 'result.zip', content: zip, contentType: 'application/zip' }],
    );
    const res = await b.server.fetch(`/api/papers/${id}/${action}?source=mineru`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': contentType },
      body,
    });
    return answer(res, id);
  };

  it.each([
    ['upload-mineru', 'mineru_zip'],
    ['upload-mineru', 'parser_zip'],
    ['upload-parser', 'mineru_zip'],
  ])('%s with part %s answers as upload-parser with parser_zip', async (action, part) => {
    const original = await upload('upload-parser', 'parser_zip');
    expect(original.status).toBe(201);
    expect(await upload(action, part)).toEqual(original);
  });

  it('a missing part is named as parser_zip through both names', async () => {
    const original = await upload('upload-parser', null);
    expect(original).toEqual({ status: 400, body: { detail: "missing 'parser_zip' multipart part" } });
    expect(await upload('upload-mineru', null)).toEqual(original);
  });
});

describe('OpenAPI: every alias is deprecated and documented as its original', () => {
  const PAIRS: readonly (readonly [method: string, alias: string, original: string])[] = [
    ['post', '/api/papers/{preprint_id}/mineru-claim', '/api/papers/{preprint_id}/parser-claim'],
    [
      'delete',
      '/api/papers/{preprint_id}/mineru-claim/{claim_id}',
      '/api/papers/{preprint_id}/parser-claim/{claim_id}',
    ],
    ['post', '/api/v1/papers/{preprint_id}/mineru-lease', '/api/papers/{preprint_id}/parser-claim'],
    [
      'delete',
      '/api/v1/papers/{preprint_id}/mineru-lease/{claim_id}',
      '/api/papers/{preprint_id}/parser-claim/{claim_id}',
    ],
    ['get', '/api/papers/needs-mineru', '/api/papers/needs-parser'],
    ['post', '/api/papers/{preprint_id}/upload-mineru', '/api/papers/{preprint_id}/upload-parser'],
  ];

  it.each(PAIRS)('%s %s', async (method, alias, original) => {
    const doc = (await (await b.server.fetch('/swagger/doc.json')).json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const op = doc.paths[alias]?.[method];
    const of = doc.paths[original]?.[method];
    expect(op, alias).toBeDefined();
    expect(op!['deprecated']).toBe(true);
    expect(of!['deprecated']).toBeUndefined();
    expect(op!['security']).toEqual([{ Bearer: [] }]);
    expect(op!['security']).toEqual(of!['security']);
    expect(op!['parameters']).toEqual(of!['parameters']);
    expect(op!['responses']).toEqual(of!['responses']);
    expect(Object.keys(op!['responses'] as object).includes('429')).toBe(method !== 'get');
  });
});
