/**
 * The token goes to the configured server's origin only (CONTRACT §16.2 + Client hardening in docs/decisions.md):
 * absolute URLs of another origin are refused before anything is sent; redirects to another origin are followed
 * without credentials; the version probe carries the token like every other call.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/cli/http/api-client.js';
import { send } from '../../../src/cli/http/transport.js';
import { VersionGate } from '../../../src/cli/http/version-gate.js';
import { sendJson, startHttpDouble, type HttpDouble } from '../../support/upstreams/http-double.js';
import { startServerDouble, type ServerDouble } from '../support/server-double.js';

const TOKEN = 'pat_origin_test_123456';
let api: ServerDouble;
let foreign: HttpDouble;
beforeEach(async () => {
  api = await startServerDouble();
  foreign = await startHttpDouble((_req, res) => sendJson(res, 200, { state: 'cached', md_ready: true }));
});
afterEach(async () => {
  await api.close();
  await foreign.close();
});

function client(baseUrl = api.baseUrl): ApiClient {
  return new ApiClient({
    baseUrl,
    token: TOKEN,
    insecure: false,
    timeoutMs: 5_000,
    gate: new VersionGate('0.1.0', () => {}),
    warnOnce: () => {},
    sleep: () => Promise.resolve(),
  });
}

const redirect = (location: string) => ({ status: 302, headers: { location } });

describe('the version probe', () => {
  it('GET /api/server/info carries the stored token and the client headers', async () => {
    api.on('POST', '/api/ingest/paper', { status: 202, body: { task_id: 'ab12cd34' } });
    const res = await client().request('POST', '/api/ingest/paper', { kind: 'write', json: {} });
    await res.text();
    const [probe] = api.calls('GET', '/api/server/info');
    expect(probe!.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      'user-agent': 'pks/0.1.0',
      'x-svc-client-version': '0.1.0',
    });
  });
});

describe('absolute URLs given by the server', () => {
  it('on another origin: refused with one line, nothing reaches that origin', async () => {
    const url = `${foreign.baseUrl}/api/papers/x/markdown/status`;
    await expect(client().request('GET', url, { kind: 'read' })).rejects.toThrow(
      `refusing to follow ${foreign.baseUrl} (not the configured server ${api.baseUrl}); the token is sent to the server only`,
    );
    expect(foreign.requests).toEqual([]);
  });

  it.each([
    ['another port', (base: string) => base.replace(/:(\d+)$/, (_m, p: string) => `:${Number(p) + 1}`)],
    ['another scheme', (base: string) => base.replace('http:', 'https:')],
    ['another host spelling', (base: string) => base.replace('127.0.0.1', 'localhost')],
  ])('%s is another origin', async (_name, other) => {
    await expect(client().request('GET', `${other(api.baseUrl)}/x`, { kind: 'read' })).rejects.toThrow(
      /^refusing to follow /,
    );
  });

  it('on the server origin (also under a base path): sent, with the token', async () => {
    api.on('GET', '/api/papers/x/markdown/status', { status: 200, body: { state: 'queued' } });
    const res = await client(`${api.baseUrl}/prefix`).request('GET', `${api.baseUrl}/api/papers/x/markdown/status`, {
      kind: 'read',
    });
    expect(res.status).toBe(200);
    await res.text();
    expect(api.calls('GET', '/api/papers/x/markdown/status')[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it.each([['api/papers/x'], ['javascript:alert(1)'], ['ftp://127.0.0.1/x']])(
    '%j is neither a server path nor an http(s) URL: refused',
    async (target) => {
      await expect(client().request('GET', target, { kind: 'read' })).rejects.toThrow(
        `not a server path or http(s) URL: ${target}`,
      );
      expect(api.requests).toEqual([]);
    },
  );
});

describe('redirects', () => {
  it('to another origin: followed without the Authorization header', async () => {
    api.on('GET', '/api/papers/x/pdf', redirect(`${foreign.baseUrl}/bucket/x.pdf`));
    const res = await client().request('GET', '/api/papers/x/pdf', { kind: 'read' });
    expect(res.status).toBe(200);
    await res.text();
    expect(api.calls('GET', '/api/papers/x/pdf')[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(foreign.requests).toHaveLength(1);
    expect(foreign.requests[0]!.headers).not.toHaveProperty('authorization');
    expect(foreign.requests[0]!.headers['user-agent']).toBe('pks/0.1.0');
  });

  it('within the server origin: the token stays', async () => {
    api.on('GET', '/api/papers/x/pdf', redirect('/api/papers/x/pdf/v2'));
    api.on('GET', '/api/papers/x/pdf/v2', { status: 200, body: '%PDF' });
    const res = await client().request('GET', '/api/papers/x/pdf', { kind: 'read' });
    expect(await res.text()).toBe('%PDF');
    expect(api.calls('GET', '/api/papers/x/pdf/v2')[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('once the chain left the origin, the token stays dropped even when it comes back', async () => {
    const bouncer = await startHttpDouble(
      (_req, res) => void res.writeHead(302, { location: `${api.baseUrl}/api/papers/x/pdf/back` }).end(),
    );
    try {
      api.on('GET', '/api/papers/x/pdf', redirect(`${bouncer.baseUrl}/hop`));
      api.on('GET', '/api/papers/x/pdf/back', { status: 200, body: '%PDF' });
      const res = await client().request('GET', '/api/papers/x/pdf', { kind: 'read' });
      expect(await res.text()).toBe('%PDF');
      expect(bouncer.requests[0]!.headers).not.toHaveProperty('authorization');
      expect(api.calls('GET', '/api/papers/x/pdf/back')[0]!.headers).not.toHaveProperty('authorization');
    } finally {
      await bouncer.close();
    }
  });

  it('send(): credential headers (Authorization, Cookie, Proxy-Authorization) are not forwarded cross-origin', async () => {
    api.on('GET', '/file', redirect(`${foreign.baseUrl}/file`));
    const res = await send({
      url: new URL(`${api.baseUrl}/file`),
      method: 'GET',
      headers: { Authorization: 'Bearer secret', cookie: 'sid=1', 'proxy-authorization': 'Basic x', accept: '*/*' },
      timeoutMs: 5_000,
      maxRedirects: 5,
    });
    await res.text();
    expect(api.calls('GET', '/file')[0]!.headers).toMatchObject({ authorization: 'Bearer secret', cookie: 'sid=1' });
    const sent = foreign.requests[0]!.headers;
    expect(sent).not.toHaveProperty('authorization');
    expect(sent).not.toHaveProperty('cookie');
    expect(sent).not.toHaveProperty('proxy-authorization');
    expect(sent.accept).toBe('*/*');
  });
});
