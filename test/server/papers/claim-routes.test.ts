/**
 * `POST parser-claim` / `DELETE parser-claim/{claim_id}` (CONTRACT §5.2–5.3) and needs-parser (§9.2) over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { AUTH, PAT, pdfBytes, sha, startBackend, uploadPdf, type Backend } from './helpers.js';

const claim = (b: Backend, id: string, query = '', headers: Record<string, string> = {}) =>
  b.server.fetch(`/api/papers/${id}/parser-claim${query ? `?${query}` : ''}`, {
    method: 'POST',
    headers: { ...AUTH, ...headers },
  });
const release = (b: Backend, id: string, claimId: string) =>
  b.server.fetch(`/api/papers/${id}/parser-claim/${claimId}`, { method: 'DELETE', headers: AUTH });
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

describe('parser claims over HTTP (file claim store, local objects)', () => {
  let b: Backend;
  beforeAll(async () => {
    b = await startBackend('local', null, {
      SVC_PREPRINT_BASE_URL: 'https://preprints.example/',
      SVC_USER_HEADER: 'X-User',
    });
  });
  afterAll(async () => {
    await b?.close();
  });

  it('no PDF → 404; markdown present → 404', async () => {
    let res = await claim(b, '2501.00100v1');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({
      detail: '2501.00100v1 cannot be claimed: no PDF stored; upload the PDF first (upload-pdf)',
    });
    await uploadPdf(b.server, '2501.00100v1', pdfBytes('a'));
    await b.store.put('markdown/2501/2501.00100v1.md', Buffer.from('# done'), {
      contentType: 'text/markdown',
      metadata: {},
    });
    res = await claim(b, '2501.00100v1');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ detail: '2501.00100v1 cannot be claimed: markdown already exists' });
  });

  it('201 with the lease, pdf_url and pdf_sha256; a second claim → 409 with the lease metadata', async () => {
    const bytes = pdfBytes('claim me');
    await uploadPdf(b.server, '2501.00101v2', bytes);
    const res = await claim(b, '2501.00101v2', '', { 'X-User': 'alice' });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toEqual({
      claim_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      lease_id: body['claim_id'],
      preprint_id: '2501.00101v2',
      key: '2501.00101v2',
      requester: 'alice',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      ttl_seconds: 1800,
      pdf_url: 'https://preprints.example/pdf/2501.00101v2',
      pdf_sha256: sha(bytes),
    });
    expect(Date.parse(body['expires_at'] as string) - Date.parse(body['created_at'] as string)).toBe(1800_000);

    const again = await claim(b, '2501.00101v2');
    expect(again.status).toBe(409);
    expect(await json(again)).toEqual({
      detail: '2501.00101v2 is already claimed',
      claim_id: body['claim_id'],
      lease_id: body['claim_id'],
      claim_expires_at: body['expires_at'],
      claim_requester: 'alice',
    });
  });

  it('requester defaults to system-pat; ttl is clamped', async () => {
    await uploadPdf(b.server, '2501.00102v1', pdfBytes('ttl'));
    const res = await claim(b, '2501.00102v1', 'ttl_seconds=99999');
    const body = await json(res);
    expect(body['requester']).toBe('system-pat');
    expect(body['ttl_seconds']).toBe(7200);
    await uploadPdf(b.server, '2501.00103v1', pdfBytes('ttl2'));
    expect((await json(await claim(b, '2501.00103v1', 'ttl_seconds=nope')))['ttl_seconds']).toBe(1800);
  });

  it('legacy-only old-style PDF can be claimed; pdf_sha256 omitted; pdf_url carries the category', async () => {
    await b.store.put('pdf/9602/9602001v1.pdf', pdfBytes('legacy'), { contentType: 'application/pdf', metadata: {} });
    const res = await claim(b, '9602001v1');
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body['preprint_id']).toBe('quant-ph/9602001v1');
    expect(body['pdf_url']).toBe('https://preprints.example/pdf/quant-ph/9602001v1');
    expect(body).not.toHaveProperty('pdf_sha256');
  });

  it('release: other id → 409; own id → 204; again → 204; then claimable again', async () => {
    await uploadPdf(b.server, '2501.00104v1', pdfBytes('rel'));
    const body = await json(await claim(b, '2501.00104v1'));
    let res = await release(b, '2501.00104v1', 'f'.repeat(32));
    expect(res.status).toBe(409);
    expect(await json(res)).toEqual({ detail: 'claim_id does not match the active claim' });
    res = await release(b, '2501.00104v1', body['claim_id'] as string);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await release(b, '2501.00104v1', body['claim_id'] as string)).status).toBe(204);
    expect((await release(b, '2501.00999v1', 'anything')).status).toBe(204);
    expect((await claim(b, '2501.00104v1')).status).toBe(201);
  });

  it('bad ids → 400 on claim and release; no claim id → 404 before auth', async () => {
    let res = await claim(b, '2501.00104');
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ detail: 'invalid preprint_id: "2501.00104" (version suffix vN required)' });
    res = await release(b, 'nonsense', 'x');
    expect(res.status).toBe(400);
    res = await b.server.fetch('/api/papers/2501.00104v1/parser-claim', { method: 'DELETE' });
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ detail: 'no DELETE handler for /api/papers/2501.00104v1/parser-claim' });
    res = await b.server.fetch('/api/papers/2501.00104v1/parser-claim', { method: 'POST' });
    expect(res.status).toBe(401);
  });

  it('50 concurrent claims → exactly one 201, the rest 409', async () => {
    await uploadPdf(b.server, '2501.00105v1', pdfBytes('race'));
    const responses = await Promise.all(Array.from({ length: 50 }, () => claim(b, '2501.00105v1')));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    await Promise.all(responses.map((r) => r.text()));
  });

  it('needs-parser lists candidates newest first; claimed papers only with include_claimed', async () => {
    const res = await b.server.fetch('/api/papers/needs-parser?limit=100', { headers: AUTH });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      papers: Record<string, unknown>[];
      returned: number;
      total_unclaimed: number;
      total_claimed: number;
      available: boolean;
    };
    expect(body.available).toBe(true);
    const ids = body.papers.map((p) => p['preprint_id']);
    // 2501.00101v2, 00102, 00103, 00104 (re-claimed), 00105 are claimed. (00100's markdown was put behind the
    // service's back, so the index still lists it; the legacy-only 9602001v1 was never indexed.)
    expect(ids).toEqual(['2501.00100v1']);
    expect(body.total_claimed).toBe(5);
    expect(body.returned).toBe(ids.length);
    const all = (await (
      await b.server.fetch('/api/papers/needs-parser?limit=100&include_claimed=true', { headers: AUTH })
    ).json()) as typeof body;
    const claimed = all.papers.find((p) => p['preprint_id'] === '2501.00101v2')!;
    expect(claimed).toEqual({
      preprint_id: '2501.00101v2',
      arxiv_id: '2501.00101v2',
      key: '2501.00101v2',
      pdf_path: 'pdf/2501/2501.00101v2.pdf',
      pdf_uploaded_at: expect.stringMatching(/Z$/),
      claimed: true,
      claim_expires_at: expect.stringMatching(/Z$/),
      claim_requester: 'alice',
    });
    expect(all.total_claimed).toBe(body.total_claimed);
    expect(all.total_unclaimed).toBe(body.total_unclaimed);
    const one = (await (
      await b.server.fetch('/api/papers/needs-parser?limit=0&include_claimed=1', { headers: AUTH })
    ).json()) as typeof body;
    expect(one.returned).toBe(1);
    const bad = await b.server.fetch('/api/papers/needs-parser?include_claimed=maybe', { headers: AUTH });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ detail: 'include_claimed must be a boolean' });
  });
});

describe('claim store unreachable (graph configured, nothing listening)', () => {
  let b: Backend;
  beforeAll(async () => {
    const port = await freePort();
    b = await startBackend('local', null, { GRAPHDB_URI: `bolt://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await b?.close();
  });

  it('claim, release and needs-parser answer 503; uploads still succeed with X-Catalog-Sync: deferred', async () => {
    const up = await uploadPdf(b.server, '2501.00200v1', pdfBytes('graph down'));
    expect(up.status).toBe(201);
    expect(up.headers.get('x-catalog-sync')).toBe('deferred');
    const expected = { detail: 'claim store unavailable (graph unreachable); retry shortly' };
    let res = await claim(b, '2501.00200v1');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual(expected);
    res = await release(b, '2501.00200v1', 'abc');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual(expected);
    res = await b.server.fetch('/api/papers/needs-parser', { headers: { Authorization: `Bearer ${PAT}` } });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual(expected);
  });
});
