import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

const PAT = 'robustness-system-pat-000001';

/** Hostile values for path parameters and wildcard tails. */
const HOSTILE_SEGMENTS = [
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  'a%ZZ',
  'x'.repeat(3000),
  '%F0%9F%92%A9',
  '2501.00010v1%2F..%2F..',
  'quant-ph%2F9508027v1',
  '10.1234%2F%0Aabc',
];

const BODIES: { type: string | null; body: string }[] = [
  { type: 'application/json', body: '{"a":' },
  { type: 'application/json', body: '[]' },
  { type: 'application/json', body: 'null' },
  { type: 'application/json', body: '{"name":1e309,"scopes":"*","expires_in_days":-1,"__proto__":{"x":1}}' },
  { type: 'application/json', body: JSON.stringify({ user_code: 'A'.repeat(5000), device_code: {}, query: [] }) },
  { type: 'text/plain', body: 'hello' },
  {
    type: 'multipart/form-data; boundary=xyz',
    body: '--xyz\r\nContent-Disposition: form-data; name="pdf"\r\n\r\nbroken',
  },
  { type: 'application/x-www-form-urlencoded', body: 'device_code=%ZZ&grant_type=' },
  { type: null, body: '' },
];

describe('bad input never causes a 5xx', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_SYSTEM_PAT: PAT, SVC_USER_HEADER: 'X-User' });
  });
  afterAll(() => srv.close());

  it('every registered /api route answers hostile paths, queries and bodies with < 500 and a JSON body', async () => {
    const failures: string[] = [];
    const routes = srv.server.app.routeTable.filter((r) => r.url.startsWith('/api/'));
    for (const route of routes) {
      const urls = HOSTILE_SEGMENTS.map(
        (seg) =>
          route.url.replace(/:[A-Za-z_]+/g, seg).replace(/\*$/, `${seg}/upload-pdf`) +
          '?limit=abc&include_claimed=maybe&q=%ZZ&page_type=../x&overwrite=2&ttl_seconds=-5&user_code=%00',
      );
      for (const url of urls) {
        for (const { type, body } of route.method === 'GET' || route.method === 'DELETE'
          ? [{ type: null, body: '' }]
          : BODIES) {
          const headers: Record<string, string> = { Authorization: `Bearer ${PAT}`, 'X-User': '\u00e9vil' };
          if (type) headers['content-type'] = type;
          const res = await srv.fetch(url, { method: route.method, headers, ...(body ? { body } : {}) });
          const text = await res.text();
          if (res.status >= 500)
            failures.push(`${route.method} ${url.slice(0, 120)} [${type}] → ${res.status} ${text.slice(0, 200)}`);
          else if (res.status >= 400 && !res.headers.get('content-type')?.includes('application/json')) {
            failures.push(`${route.method} ${url.slice(0, 120)} → ${res.status} without a JSON body`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('framework errors on PocketBase-compatible routes', () => {
  it('answer in PocketBase error shape', async () => {
    const srv = await startTestServer();
    try {
      const res = await srv.fetch('/api/collections/users/auth-with-oauth2', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"provider":',
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        status: 400,
        message: expect.stringMatching(/^parse body: /),
        data: {},
      });
    } finally {
      await srv.close();
    }
  });
});
