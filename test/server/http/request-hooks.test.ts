/**
 * The application's per-phase hooks (src/server/http/request-hooks.ts) on a stored object: a paper's markdown above
 * the compression threshold, asked for with `Accept-Encoding`, passes as stored (its `Content-Length`, no
 * `Content-Encoding`) and carries the `/api` and security headers.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { VERSION } from '../../../src/shared/version.js';
import { storePaper } from '../papers/registry-support.js';
import { AUTH, startAccessStack, stopAccessStack, type AccessStack } from '../access/support/server.js';

const ID = '2507.00402v1';
const MARKDOWN = `# Stored as is\n${'A line of markdown that compresses well.\n'.repeat(400)}`;

let stack: AccessStack;
beforeAll(async () => {
  stack = await startAccessStack({});
  await storePaper({ fetch: stack.s.fetch, auth: AUTH }, ID, MARKDOWN);
}, 60_000);
afterAll(async () => {
  if (stack) await stopAccessStack(stack);
});

it('a stored markdown is sent as stored, with the /api and security headers', async () => {
  for (const encoding of ['br', 'gzip', 'br, gzip']) {
    const res = await stack.s.fetch(`/api/papers/${ID}/markdown`, {
      headers: { ...AUTH, 'Accept-Encoding': encoding },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(MARKDOWN)));
    expect(await res.text()).toBe(MARKDOWN);
    expect(res.headers.get('x-svc-server-version')).toBe(VERSION);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).not.toBeNull();
  }
});
