/** `pks contrib pdf` and the `upload` aliases (CONTRACT §16.3) against a real pksd. */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { loginWithToken, makeHome, pks, type PksHome } from '../support/pks.js';

const PAT = 'cli-system-pat-0123456789';
let srv: TestServer;
let h: PksHome;
let n = 0;
beforeAll(async () => {
  srv = await startTestServer({ SVC_SYSTEM_PAT: PAT });
});
afterAll(() => srv.close());
beforeEach(async () => {
  h = makeHome();
  await loginWithToken(h, srv.url, PAT);
});
afterEach(() => h.cleanup());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const file = (name: string, bytes: Buffer) => {
  const p = path.join(h.cwd, name);
  writeFileSync(p, bytes);
  return p;
};
const stored = async (id: string): Promise<boolean> => {
  const res = await srv.fetch('/api/papers/needs-parser?limit=100', { headers: { authorization: `Bearer ${PAT}` } });
  return ((await res.json()).papers as { preprint_id: string }[]).some((p) => p.preprint_id === id);
};
const nextId = () => `2501.${String(10 + ++n).padStart(5, '0')}v1`;

describe('contrib pdf', () => {
  it('uploads with expected_sha256; the JSON answer on stdout (indent 2), exit 0', async () => {
    const id = nextId();
    const bytes = Buffer.from('%PDF-1.7\nfirst paper\n%%EOF\n');
    const run = await pks(h, ['contrib', 'pdf', id, '--pdf', file('a.pdf', bytes)]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const body = JSON.parse(run.stdout);
    expect(body).toMatchObject({ preprint_id: id, pdf_sha256: sha(bytes), pdf_bytes: bytes.length, unchanged: false });
    expect(run.stdout).toContain('\n  "preprint_id"');
    expect(await stored(id)).toBe(true);
    const again = await pks(h, ['contrib', 'pdf', id, '--pdf', file('a.pdf', bytes)]);
    expect(JSON.parse(again.stdout)).toMatchObject({ unchanged: true, pdf_unchanged: true });
  });

  it('different bytes → "Upload failed: HTTP 409 Conflict" + the body, exit 1; --overwrite replaces', async () => {
    const id = nextId();
    await pks(h, ['contrib', 'pdf', id, '--pdf', file('a.pdf', Buffer.from('%PDF-1.7\nversion one\n'))]);
    const second = Buffer.from('%PDF-1.7\nversion two\n');
    const run = await pks(h, ['contrib', 'pdf', id, '--pdf', file('b.pdf', second)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^Upload failed: HTTP 409 Conflict\n\{\n {2}"detail": "pdf\/2501\/.* already exists with different content",/,
    );
    expect(run.stderr).toContain(`"new_sha256": "${sha(second)}"`);
    const forced = await pks(h, ['contrib', 'pdf', id, '--pdf', file('b.pdf', second), '--overwrite']);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ overwritten: true, pdf_sha256: sha(second) });
  });

  it('a file that is not a PDF → the server 400 is shown, exit 1', async () => {
    const run = await pks(h, ['contrib', 'pdf', nextId(), '--pdf', file('x.pdf', Buffer.from('hello'))]);
    expect(run).toMatchObject({
      code: 1,
      stderr:
        'Upload failed: HTTP 400 Bad Request\n{\n  "detail": "uploaded file does not look like a PDF (missing %PDF- header)"\n}\n',
    });
  });

  it('a missing file → "PDF not found: <path>", exit 1; no --pdf → exit 2', async () => {
    const missing = path.join(h.cwd, 'nope.pdf');
    expect(await pks(h, ['contrib', 'pdf', nextId(), '--pdf', missing])).toMatchObject({
      code: 1,
      stderr: `PDF not found: ${missing}\n`,
    });
    const run = await pks(h, ['contrib', 'pdf', nextId()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("required option '--pdf <path>' not specified");
  });

  it('without stored credentials the 401 is shown, exit 1', async () => {
    await pks(h, ['auth', 'logout']);
    const run = await pks(h, ['contrib', 'pdf', nextId(), '--pdf', file('a.pdf', Buffer.from('%PDF-1.7\n'))]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Upload failed: HTTP 401 Unauthorized\n/);
  });
});

describe('upload (deprecated / removed)', () => {
  it('upload pdf warns, then behaves as contrib pdf', async () => {
    const id = nextId();
    const bytes = Buffer.from('%PDF-1.7\nvia the old name\n');
    const run = await pks(h, ['upload', 'pdf', id, '--pdf', file('a.pdf', bytes)]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("warning: 'pks upload pdf' is deprecated; use 'pks contrib pdf'\n");
    expect(JSON.parse(run.stdout)).toMatchObject({ preprint_id: id, pdf_sha256: sha(bytes) });
  });

  it.each(['markdown', 'parser'])('upload %s was removed → exit 2', async (what) => {
    expect(await pks(h, ['upload', what, '2501.00001v1', '--md', 'x.md'])).toMatchObject({
      code: 2,
      stderr: `'pks upload ${what}' was removed; use 'pks contrib parser'\n`,
    });
  });
});
