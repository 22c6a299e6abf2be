/**
 * Regressions for what Schemathesis found (test/fuzz/schemathesis.test.ts): the document must tell the truth about
 * media types and required bodies; JSON bodies are validated as sent, not coerced; a method a path does not serve is
 * 405 whatever its name, with an `Allow` of that resource's own methods; the papers dispatcher routes ids of any
 * characters to their action; the admin PAT list takes an empty filter; a user record's token is optional.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHarness, bearer, SYSTEM_PAT, type AuthHarness } from '../auth/harness.js';

type Operation = {
  produces?: string[];
  parameters?: { in: string; required?: boolean }[];
  responses: Record<string, unknown>;
};
type Doc = { produces: string[]; paths: Record<string, Record<string, Operation>> };

describe('Schemathesis findings', () => {
  let h: AuthHarness;
  let doc: Doc;
  beforeAll(async () => {
    h = await authHarness();
    doc = (await h.inject({ method: 'GET', url: '/swagger/doc.json' })).json() as Doc;
  });
  afterAll(() => h.close());

  it('operations with media types of their own that document error answers also name JSON', async () => {
    const own = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.produces !== undefined)
        .map(([method, op]) => ({ where: `${method} ${path}`, op })),
    );
    const withErrors = own.filter(({ op }) => Object.keys(op.responses).some((status) => Number(status) >= 400));
    expect(withErrors.length).toBeGreaterThan(0);
    for (const { where, op } of withErrors) expect(op.produces, where).toContain('application/json');
    expect(doc.paths['/_/']!['get']!.produces).toEqual(['text/html']); // no error answer documented
    const refused = await h.inject({ method: 'DELETE', url: '/_/' });
    expect(refused.statusCode).toBe(405);
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('a body whose schema has required properties is a required parameter, and its absence is 400', async () => {
    const body = (path: string, method = 'post') => doc.paths[path]![method]!.parameters!.find((p) => p.in === 'body');
    expect(body('/api/oauth/device/code')?.required).toBe(true);
    expect(body('/api/pat')?.required).toBe(true);
    expect(body('/api/oauth/device/token')?.required).toBe(true);
    const res = await h.inject({ method: 'POST', url: '/api/oauth/device/code' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'body: must be object' });
  });

  it('JSON bodies are validated as sent: a null or a number is no string (it used to become "" or "5")', async () => {
    const start = (payload: object) => h.inject({ method: 'POST', url: '/api/oauth/device/code', payload });
    const spec = { name: 'laptop', expires_in_days: 30, scopes: ['wiki:read'] };
    expect((await start(spec)).statusCode).toBe(200);
    const nullDescription = await start({ ...spec, description: null });
    expect(nullDescription.statusCode).toBe(400);
    expect(nullDescription.json()).toEqual({ detail: 'description: must be string' });
    const numericName = await start({ ...spec, name: 5 });
    expect(numericName.statusCode).toBe(400);
    expect(numericName.json()).toEqual({ detail: 'name: must be string' });
    const scopeString = await start({ ...spec, scopes: 'wiki:read' });
    expect(scopeString.statusCode).toBe(400);
    expect(scopeString.json()).toEqual({ detail: 'scopes: must be array' });
    // Query strings are text: they are still read as the schema's types.
    const needs = await h.inject({
      method: 'GET',
      url: '/api/papers/needs-parser?limit=3&include_claimed=1',
      headers: bearer(SYSTEM_PAT),
    });
    expect(needs.statusCode).toBe(200);
  });

  it('a method a path does not serve is 405 with Allow, whatever its name, before any body is read', async () => {
    for (const [method, url, allow] of [
      ['QUERY', '/api/health', 'GET, HEAD'],
      ['TRACE', '/_/', 'GET, HEAD'],
      ['PUT', '/install-pksd.sh', 'GET, HEAD'],
      ['PATCH', '/api/pat', 'GET, HEAD, POST'],
    ] as const) {
      const res = await h.inject({ method: method as 'GET', url });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers['allow'], `${method} ${url}`).toBe(allow);
      expect(res.json()).toEqual({ detail: 'method not allowed' });
    }
    // A body sent to a path nobody serves is not parsed: broken JSON still gets the plain 404.
    const res = await h.inject({
      method: 'POST',
      url: '/api/no-such-route',
      headers: { 'content-type': 'application/json' },
      payload: '{"broken',
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'not found' });
  });

  it("Allow lists a resource's own methods, not those of a parameterised sibling route", async () => {
    // `DELETE /api/pat/:id` would match `/api/pat/scopes` as an id; the scope list is a resource of its own.
    const res = await h.inject({ method: 'PUT', url: '/api/pat/scopes' });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD');
    const pat = await h.inject({ method: 'PUT', url: '/api/pat/abc' });
    expect(pat.headers['allow']).toBe('DELETE');
  });

  it('the papers dispatcher routes an id with a line break to its action, which refuses it (400, not 404)', async () => {
    const res = await h.inject({
      method: 'DELETE',
      url: '/api/papers/A%0A%07/parser-claim/x',
      headers: bearer(SYSTEM_PAT),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/^invalid preprint_id: /);
    const image = await h.inject({ method: 'GET', url: '/api/papers/A%0AB/images/x.png', headers: bearer(SYSTEM_PAT) });
    expect(image.statusCode).not.toBe(500);
  });

  it('the PAT list documents an empty filter as valid: it means no filter (200), any other non-match is 400', async () => {
    const param = doc.paths['/api/collections/pat_tokens/records']!['get']!.parameters!.find(
      (p) => (p as { name?: string }).name === 'filter',
    ) as unknown as { pattern: string };
    const documented = new RegExp(param.pattern);
    const { token } = await h.login();
    for (const [filter, status] of [
      ['', 200],
      ["user='u0123456789abcd'", 200],
      [' ', 400],
      ['name="x"', 400],
    ] as const) {
      expect(documented.test(filter), filter).toBe(status === 200);
      const res = await h.inject({
        method: 'GET',
        url: `/api/collections/pat_tokens/records?filter=${encodeURIComponent(filter)}`,
        headers: bearer(token),
      });
      expect(res.statusCode, filter).toBe(status);
    }
  });

  it('reading a user record documents its token as optional: without one the answer is 404, as in PocketBase', async () => {
    const op = doc.paths['/api/collections/users/records/{id}']!['get']! as Operation & { security: unknown };
    expect(op.security).toEqual([{ Bearer: [] }, {}]);
    const { user } = await h.login();
    const res = await h.inject({ method: 'GET', url: `/api/collections/users/records/${user.id}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 404, message: "The requested resource wasn't found.", data: {} });
  });
});
