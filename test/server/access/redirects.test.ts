/**
 * Issue 20: the preprint fetcher follows redirects only to `https:` (or the base URL's own scheme) on the preprint
 * host or its subdomains, on the base URL's port. Any other redirect is a fatal fetch failure: nothing is stored,
 * nothing is staged, and the place it pointed at is never asked.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redirectRefusal } from '../../../src/server/access/preprint-fetcher.js';
import { fakePdf } from '../../support/upstreams/arxiv.js';
import { startHttpDouble, type HttpDouble } from '../../support/upstreams/http-double.js';
import { addPaper, pollJson } from './support/papers.js';
import { startAccessStack, stopAccessStack, type AccessStack } from './support/server.js';

describe('redirectRefusal', () => {
  it.each([
    ['https://arxiv.org', 'https://arxiv.org/pdf/2501.00010v1', null],
    ['https://arxiv.org', 'https://export.arxiv.org/pdf/2501.00010v1', null],
    ['https://arxiv.org', 'https://ARXIV.org:443/pdf/x', null],
    ['http://arxiv.org', 'https://arxiv.org/pdf/x', null],
    ['http://127.0.0.1:4000', 'http://127.0.0.1:4000/pdf-mirror/x', null],
    ['https://arxiv.org', 'http://arxiv.org/pdf/x', 'a http: URL (only https: URLs are followed)'],
    ['https://arxiv.org', 'data:application/pdf;base64,JVBERi0=', 'a data: URL (only https: URLs are followed)'],
    ['https://arxiv.org', 'file:///etc/passwd', 'a file: URL (only https: URLs are followed)'],
    ['https://arxiv.org', 'https://evil.example/x', 'another host evil.example (only arxiv.org or its subdomains)'],
    ['https://arxiv.org', 'https://evilarxiv.org/x', 'another host evilarxiv.org (only arxiv.org or its subdomains)'],
    [
      'https://arxiv.org',
      'https://arxiv.org.evil.example/x',
      'another host arxiv.org.evil.example (only arxiv.org or its subdomains)',
    ],
    ['https://arxiv.org', 'https://arxiv.org:8443/x', "port 8443 (the preprint host's port is 443)"],
    ['http://127.0.0.1:4000', 'http://127.0.0.1:4001/x', "port 4001 (the preprint host's port is 4000)"],
    ['http://127.0.0.1:4000', 'http://localhost:4000/x', 'another host localhost (only 127.0.0.1 or its subdomains)'],
    ['https://arxiv.org', 'https://user@arxiv.org/pdf/x', 'a URL with credentials'],
    ['https://arxiv.org', 'https://:secret@export.arxiv.org/pdf/x', 'a URL with credentials'],
  ])('base %s, Location %s → %j', (base, target, expected) => {
    expect(redirectRefusal(new URL(base), new URL(target))).toBe(expected);
  });
});

describe('a refused redirect fails the fetch for good and stores nothing', () => {
  let stack: AccessStack;
  /** Another loopback service the redirects point at: it would hand out a PDF if it were ever asked. */
  let other: HttpDouble;

  beforeAll(async () => {
    stack = await startAccessStack();
    other = await startHttpDouble((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(fakePdf('from elsewhere'));
    });
  });
  afterAll(async () => {
    await other?.close();
    await stopAccessStack(stack);
  });

  it.each([
    ['a data: URL', '2507.00001', () => 'data:application/pdf;base64,JVBERi0xLjcKJSVFT0YK', () => /a data: URL/],
    [
      'another port on the loopback',
      '2507.00002',
      () => `${other.baseUrl}/pdf/2507.00002v1`,
      () => new RegExp(`port ${new URL(other.baseUrl).port} \\(the preprint host's port is \\d+\\)`),
    ],
    [
      'another host (the same double by another name)',
      '2507.00003',
      () => `http://localhost:${new URL(stack.d.arxiv.baseUrl).port}/pdf-mirror/2507.00003v1`,
      () => /another host localhost \(only 127\.0\.0\.1 or its subdomains\)/,
    ],
  ])('%s', async (_what, versionless, location, reason) => {
    const { d, s } = stack;
    const id = `${versionless}v1`;
    addPaper(d.arxiv, versionless);
    d.arxiv.redirectPdfsTo = location();
    try {
      const first = await s.get(`/api/papers/${id}/pdf`);
      expect(first.status).toBe(202);
      const failed = await pollJson(
        s.get,
        `/api/papers/${id}/pdf/status`,
        (b) => b.state !== 'queued' && b.state !== 'running',
      );
      expect(failed).toMatchObject({ state: 'failed', kind: 'fatal', phase: 'error_fetching', pdf_ready: false });
      expect(failed.detail).toMatch(new RegExp(`^arXiv redirect for ${d.arxiv.baseUrl}/pdf/${id} not followed: `));
      expect(failed.detail).toMatch(reason());
      // Fatal: one request to arXiv, no retry; the failure is what a trigger answers too.
      expect(d.arxiv.requestsTo('pdf').filter((r) => r.url === `/pdf/${id}`)).toHaveLength(1);
      const again = await s.get(`/api/papers/${id}/pdf`);
      expect(again.status).toBe(502);
    } finally {
      d.arxiv.redirectPdfsTo = null;
    }
    expect(await s.store.head(`pdf/${versionless.slice(0, 4)}/${id}.pdf`)).toBeNull();
    expect(await readdir(path.join(s.config.dataDir, 'tmp'))).toEqual([]);
    expect(other.requests).toEqual([]);
    expect(d.arxiv.requestsTo('pdf').some((r) => r.url.startsWith('/pdf-mirror/'))).toBe(false);
  });
});
