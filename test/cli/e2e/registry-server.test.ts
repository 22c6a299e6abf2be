/**
 * The `pks paper` registry commands (CONTRACT §16.8) against a real pksd (§18.2 routes), papers stored through the
 * real upload routes: list, show, the batch status, figures and the images zip. Formats and options in detail are
 * in registry.test.ts against the stand-in; this checks that client and server agree on the wire.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { addPaper } from '../../server/access/support/papers.js';
import { startAccessServer, type AccessServer } from '../support/access-server.js';
import { pdfBytes } from '../../server/papers/helpers.js';
import { storePaper } from '../../server/papers/registry-support.js';
import { expectPrints } from '../support/expect-output.js';
import { loggedInHome, pks, type PksHome } from '../support/pks.js';

const PAT = 'cli-registry-system-pat-0123456789';
const MARKDOWN = [
  '# Widgets',
  '',
  'We show the widget below.',
  '',
  '![](images/w1.png)',
  '![](images/w2.png)',
  '',
  'Figure 1: The widget, from two sides.',
  '',
  'Text.',
  '',
].join('\n');
const IMAGES = { 'w1.png': Buffer.from('png-one'), 'w2.png': Buffer.from('png-two-longer'), 'spare.png': 'x' };

let srv: TestServer;
let h: PksHome;

beforeAll(async () => {
  srv = await startTestServer({ SVC_SYSTEM_PAT: PAT });
  const target = { fetch: srv.fetch, auth: { Authorization: `Bearer ${PAT}` } };
  await storePaper(target, '2507.00001v1', MARKDOWN, IMAGES);
  await storePaper(target, '2507.00002v1', null);
  await storePaper(target, 'quant-ph/9508027v1', 'plain text\n', { 'q.png': 'q' });
});
afterAll(() => srv?.close());
beforeEach(async () => (h = await loggedInHome(srv.url, PAT)));
afterEach(() => h.cleanup());

describe('against a real pksd (paper access off)', () => {
  it('paper list: count, page, one line per stored version; filters and --json', async () => {
    await expectPrints(
      h,
      ['paper', 'list', '--sort', 'id'],
      [
        '3 paper(s) (page 1 of 1)',
        '2507.00001v1  md:yes  pdf:yes  (no title)',
        '2507.00002v1  md:no  pdf:yes  (no title)',
        'quant-ph/9508027v1  md:yes  pdf:yes  (no title)',
      ],
    );
    const filtered = await pks(h, ['paper', 'list', '--has-md', 'false', '--per-page', '1']);
    expect(filtered.stdout).toBe('1 paper(s) (page 1 of 1)\n2507.00002v1  md:no  pdf:yes  (no title)\n');
    const json = JSON.parse((await pks(h, ['paper', 'list', '-q', 'quant-ph', '--json'])).stdout) as {
      items: { preprint_id: string; image_count: number }[];
      total: number;
    };
    expect(json).toMatchObject({ total: 1, page: 1, per_page: 20 });
    expect(json.items).toMatchObject([{ preprint_id: 'quant-ph/9508027v1', image_count: 1 }]);
  });

  it('paper show: versions with sizes, no claim, no jobs; an unknown paper → exit 1', async () => {
    const run = await pks(h, ['paper', 'show', '2507.00001']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const pdf = pdfBytes('2507.00001v1').length;
    const md = Buffer.byteLength(MARKDOWN);
    expect(run.stdout).toMatch(
      new RegExp(
        [
          '^2507\\.00001',
          'Metadata:  not known to the server',
          'Versions:',
          `  v1: PDF ${pdf} B, markdown ${md} B, 3 images; updated \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ`,
          'Claim:     none',
          'Jobs:      none',
          '$',
        ].join('\\n'),
      ),
    );
    expect(await pks(h, ['paper', 'show', '2509.99999'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'Request failed: HTTP 404 Not Found: not hosted: 2509.99999\n',
    });
  });

  it('paper status with several ids: the batch probe, one line per id in request order', async () => {
    await expectPrints(
      h,
      ['paper', 'status', '2507.00001', 'quant-ph/9508027v1', '2507.00002v1', '2509.00001', 'x!'],
      [
        '2507.00001 → 2507.00001v1  md:yes pdf:yes cached',
        'quant-ph/9508027v1 → quant-ph/9508027v1  md:yes pdf:yes cached',
        '2507.00002v1 → 2507.00002v1  md:no pdf:yes unavailable',
        '2509.00001 → -  md:no pdf:no not found',
        'x! → -  md:no pdf:no invalid paper id',
      ],
    );
  });

  it('paper lookup: a stored paper is hosted (markdown ready or not); an unknown ref unresolved', async () => {
    await expectPrints(
      h,
      ['paper', 'lookup', 'arxiv:2507.00001', 'arxiv:2507.00002v1', 'doi:10.1234/nothing'],
      ['arxiv:2507.00001: hosted, markdown ready', 'arxiv:2507.00002v1: hosted', 'doi:10.1234/nothing: unresolved'],
    );
  });

  it('paper figures: the figure with its caption and images, the image in no figure', async () => {
    await expectPrints(
      h,
      ['paper', 'figures', '2507.00001v1'],
      ['Figure 1: The widget, from two sides.', '  w1.png', '  w2.png', '', 'Images in no figure:', '  spare.png'],
    );
    const none = await pks(h, ['paper', 'figures', '2507.00002v1']);
    expect(none.stdout).toBe(
      'No markdown stored for 2507.00002v1; figures are read from the markdown (pks paper get markdown 2507.00002v1).\n',
    );
  });

  it('paper get images: the zip the server serves, to <stem>-images.zip; none stored → exit 1', async () => {
    const run = await pks(h, ['paper', 'get', 'images', 'quant-ph/9508027v1']);
    const served = Buffer.from(
      await (
        await srv.fetch('/api/papers/quant-ph/9508027v1/images/zip', { headers: { Authorization: `Bearer ${PAT}` } })
      ).arrayBuffer(),
    );
    expect(run).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `Wrote ${served.length} bytes to quant-ph_9508027v1-images.zip\n`,
    });
    expect(readFileSync(path.join(h.cwd, 'quant-ph_9508027v1-images.zip')).equals(served)).toBe(true);
    // A versionless id with paper access off (no X-Svc-Resolved-Id): the name is the stored version's, as the
    // server's Content-Disposition gives it.
    rmSync(path.join(h.cwd, 'quant-ph_9508027v1-images.zip'));
    expect(await pks(h, ['paper', 'get', 'images', 'quant-ph/9508027'])).toMatchObject({
      code: 0,
      stderr: `Wrote ${served.length} bytes to quant-ph_9508027v1-images.zip\n`,
    });
    expect(readFileSync(path.join(h.cwd, 'quant-ph_9508027v1-images.zip')).equals(served)).toBe(true);
    expect(await pks(h, ['paper', 'get', 'images', '2507.00002v1'])).toMatchObject({
      code: 1,
      stderr: 'Request failed: HTTP 404 Not Found: no images stored for 2507.00002v1\n',
    });
  });
});

describe('against a real pksd with paper access on', () => {
  let access: AccessServer;
  let home: PksHome;
  beforeAll(async () => (access = await startAccessServer(PAT)));
  afterAll(() => access?.close());
  beforeEach(async () => (home = await loggedInHome(access.srv.url, PAT)));
  afterEach(() => home.cleanup());

  it('paper fetch enqueues; paper jobs --watch follows the job until it ends; paper get image', async () => {
    addPaper(access.d.arxiv, '2501.00030');
    const fetched = await pks(home, ['paper', 'fetch', '2501.00030', 'not-an-id']);
    expect(fetched).toMatchObject({ code: 0, stderr: '' });
    const lines = fetched.stdout.split('\n');
    expect(lines[0]).toMatch(/^enqueued 2501\.00030 -> 2501\.00030v1 \((queued|running)\)$/);
    expect(lines[1]).toMatch(/^failed not-an-id: \S/);
    expect(lines.slice(2)).toEqual(['enqueued 1/2', '']);

    const watched = await pks(home, ['paper', 'jobs', '--watch', '--interval', '1']);
    expect(watched).toMatchObject({ code: 0, stderr: '' });
    expect(watched.stdout.split('\n\n').at(-1)).toMatch(
      /^0 queued, 0 running\nID +KIND +STATE +PHASE +PROGRESS +QUEUE +ETA\n2501\.00030v1 +markdown +cached +ready +- +- +-\n$/,
    );

    const image = await pks(home, ['paper', 'get', 'image', '2501.00030v1', 'fig1.png']);
    const served = Buffer.from(
      await (
        await access.srv.fetch('/api/papers/2501.00030v1/images/fig1.png', {
          headers: { Authorization: `Bearer ${PAT}` },
        })
      ).arrayBuffer(),
    );
    expect(served.length).toBeGreaterThan(0);
    expect(image).toMatchObject({ code: 0, stdout: '', stderr: `Wrote ${served.length} bytes to fig1.png\n` });
    expect(readFileSync(path.join(home.cwd, 'fig1.png')).equals(served)).toBe(true);
  });

  it('paper show of a versionless id: the note of the applied default, the stored version', async () => {
    addPaper(access.d.arxiv, '2501.00040');
    await storePaper({ fetch: access.srv.fetch, auth: { Authorization: `Bearer ${PAT}` } }, '2501.00040v1', null);
    const run = await pks(home, ['paper', 'show', '2501.00040']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'Note (server applied defaults): 2501.00040 -> 2501.00040v1; version=v1 (no version specified; latest published version used)\n',
    );
    expect(run.stdout).toMatch(/^2501\.00040\n/);
    expect(run.stdout).toMatch(/\n {2}v1: PDF \d+ B, no markdown, no images; updated /);
  });
});
