/**
 * The `pks paper` registry commands (CONTRACT §16.8) against a loopback stand-in of the §18.2 routes
 * (test/cli/support/registry-double.ts): the exact line formats, `--json`, the options (validated before any
 * request, exit 2), the requests sent, and the exit codes.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PaperDetail, RegistryJob, RegistryJobs } from '../../../src/shared/api/registry.js';
import { expectPrints } from '../support/expect-output.js';
import { loggedInHome, PKS_BIN, pks, spawnPks, waitForOutput, type PksHome } from '../support/pks.js';
import { startRegistryDouble, type RegistryDouble, type StandInPaper } from '../support/registry-double.js';
import { loggedInDouble } from '../support/server-double.js';
import { TmuxTerminal } from '../support/terminal.js';

let h: PksHome;
let api: RegistryDouble;

const PNG_A = Buffer.from('\x89PNG\r\n\x1a\nfigure-one-a', 'binary');
const PNG_B = Buffer.from('\x89PNG\r\n\x1a\nfigure-one-b-longer', 'binary');
const ZIP = Buffer.from('PK\x03\x04 a zip of the images', 'binary');

const WIDGETS: StandInPaper = {
  title: 'Quantum widgets for everyone',
  detail: {
    preprint_id: '2501.00010',
    versions: [
      {
        version: 1,
        has_pdf: true,
        has_md: true,
        pdf_size: 1258291,
        pdf_sha256: 'a'.repeat(64),
        md_size: 35328,
        image_count: 2,
        updated_at: '2026-05-01T12:00:00Z',
      },
    ],
    metadata: {
      title: 'Quantum widgets for everyone',
      authors: ['Alice Example', 'Bob Example'],
      abstract: 'We build widgets.',
      published: '2025-01-02',
      doi: '10.1234/widgets',
      openalex_id: 'W123',
      cited_by_count: 12,
      source: 'graph',
    },
    claim: null,
    jobs: { markdown: null, pdf: null },
  },
  figures: {
    preprint_id: '2501.00010v1',
    markdown_ready: true,
    figures: [
      {
        fig_no: 1,
        caption: 'Figure 1: A widget\nin two parts.',
        context: 'We show the widget.',
        images: [
          { name: 'fig1a.png', size: PNG_A.length, url: '/api/papers/2501.00010v1/images/fig1a.png' },
          { name: 'fig1b.png', size: PNG_B.length, url: '/api/papers/2501.00010v1/images/fig1b.png' },
        ],
      },
      { fig_no: 0, caption: '', context: '', images: [{ name: 'sub/x.png', size: 3, url: '/x' }] },
      {
        fig_no: 2,
        caption: '**Fig. 2.** Energy levels',
        context: '',
        images: [{ name: 'fig2.png', size: 1, url: '/api/papers/2501.00010v1/images/fig2.png' }],
      },
    ],
    unmatched_images: [{ name: 'logo.png', size: 4, url: '/api/papers/2501.00010v1/images/logo.png' }],
    image_count: 4,
  },
  images: { 'fig1a.png': PNG_A, 'fig1b.png': PNG_B, 'sub/x.png': Buffer.from('xyz') },
  zip: ZIP,
};

const OLD: StandInPaper = {
  title: null,
  detail: {
    preprint_id: 'quant-ph/9508027',
    versions: [
      {
        version: 1,
        has_pdf: true,
        has_md: false,
        pdf_size: 2048,
        pdf_sha256: 'b'.repeat(64),
        md_size: null,
        image_count: 0,
        updated_at: '2026-04-01T08:00:00Z',
      },
      {
        version: 2,
        has_pdf: true,
        has_md: false,
        pdf_size: 512,
        pdf_sha256: 'c'.repeat(64),
        md_size: null,
        image_count: 1,
        updated_at: '2026-04-02T08:00:00Z',
      },
    ],
    metadata: null,
    claim: { holder: 'contrib@laptop', expires_at: '2026-05-01T13:00:00Z' },
    jobs: {
      markdown: {
        preprint_id: 'quant-ph/9508027v2',
        state: 'running',
        phase: 'converting_md',
        pdf_ready: true,
        md_ready: false,
        convert: {
          started_at: '2026-05-01T12:00:00Z',
          parser_task_id: 'task-7',
          stage: 'running',
          polled_count: 7,
          completed_at: null,
          extracted_pages: null,
          total_pages: null,
        },
      },
      pdf: null,
    },
  },
  figures: null,
  images: {},
  zip: ZIP,
};

const LONG_TITLE = `Entanglement ${'very '.repeat(30)}long title`;
const LONG: StandInPaper = {
  title: LONG_TITLE,
  detail: {
    ...WIDGETS.detail,
    preprint_id: '2502.00020',
    versions: [{ ...WIDGETS.detail.versions[0]!, has_pdf: false, updated_at: '2026-05-02T00:00:00Z' }],
  },
  figures: null,
  images: {},
};

beforeEach(async () => {
  api = await startRegistryDouble();
  api.papers.push(WIDGETS, OLD, LONG);
  h = await loggedInHome(api.baseUrl, 'pat_registry_123456');
});
afterEach(async () => {
  await api.close();
  h.cleanup();
});

const query = (method: string, p: string, i = 0) =>
  Object.fromEntries(new URL(api.calls(method, p)[i]!.url, 'http://x').searchParams);

/** `pks paper <command> <args>` ends with exit 2 and `message`, having sent no request. */
async function expectRefusedBeforeAnyRequest(command: string, args: string[], message: string): Promise<void> {
  const run = await pks(h, ['paper', command, ...args]);
  expect(run).toMatchObject({ code: 2, stdout: '', stderr: `${message}\n` });
  expect(api.requests).toHaveLength(0);
}

describe('paper list', () => {
  it('prints the count and page, then one line per paper (newest first); sends the defaults', async () => {
    await expectPrints(
      h,
      ['paper', 'list'],
      [
        '3 paper(s) (page 1 of 1)',
        `2502.00020v1  md:yes  pdf:no  ${LONG_TITLE}`,
        '2501.00010v1  md:yes  pdf:yes  Quantum widgets for everyone',
        'quant-ph/9508027v2  md:no  pdf:yes  (no title)',
      ],
    );
    expect(query('GET', '/api/papers')).toEqual({ sort: 'updated_at', page: '1', per_page: '20' });
    const call = api.calls('GET', '/api/papers')[0]!;
    expect(call.headers['authorization']).toBe('Bearer pat_registry_123456');
    expect(call.headers['user-agent']).toBe('pks/0.1.0');
  });

  it('passes -q, --has-md, --has-pdf, --sort, --page and --per-page; P of Q from total and per_page', async () => {
    const options = {
      '-q': 'WIDGETS',
      '--has-md': 'true',
      '--has-pdf': 'true',
      '--sort': 'id',
      '--page': '1',
      '--per-page': '5',
    };
    const run = await pks(h, ['paper', 'list', ...Object.entries(options).flat()]);
    expect(run.stdout).toBe('1 paper(s) (page 1 of 1)\n2501.00010v1  md:yes  pdf:yes  Quantum widgets for everyone\n');
    expect(query('GET', '/api/papers')).toEqual({
      q: 'WIDGETS',
      has_md: 'true',
      has_pdf: 'true',
      sort: 'id',
      page: '1',
      per_page: '5',
    });
    const second = await pks(h, ['paper', 'list', '--sort', 'id', '--per-page', '2', '--page', '2']);
    expect(second.stdout).toBe('3 paper(s) (page 2 of 2)\nquant-ph/9508027v2  md:no  pdf:yes  (no title)\n');
    const empty = await pks(h, ['paper', 'list', '-q', 'nothing-matches']);
    expect(empty).toMatchObject({ code: 0, stdout: '0 paper(s) (page 1 of 1)\n' });
  });

  it('--json prints the body as the server sent it', async () => {
    const run = await pks(h, ['paper', 'list', '--has-md', 'false', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      items: [
        {
          preprint_id: 'quant-ph/9508027v2',
          paper_id: 'quant-ph/9508027v2',
          status: 'pending',
          title: null,
          has_pdf: true,
          has_md: false,
          image_count: 1,
          updated_at: '2026-04-02T08:00:00Z',
        },
      ],
      total: 1,
      page: 1,
      per_page: 20,
    });
    expect(run.stdout).toContain('\n  "items": [');
  });

  it.each([
    [['--has-md', 'yes'], "Invalid input: --has-md must be one of true, false, got 'yes'"],
    [['--has-pdf', '1'], "Invalid input: --has-pdf must be one of true, false, got '1'"],
    [['--sort', 'title'], "Invalid input: --sort must be one of updated_at, id, got 'title'"],
    [['--page', '0'], "Invalid input: --page must be an integer of at least 1, got '0'"],
    [
      ['--page', '99999999999999999999'],
      "Invalid input: --page must be an integer of at least 1, got '99999999999999999999'",
    ],
    [['--page', 'two'], "Invalid input: --page must be an integer, got 'two'"],
    [['--per-page', '101'], "Invalid input: --per-page must be in 1..100, got '101'"],
    [['--per-page', '0'], "Invalid input: --per-page must be in 1..100, got '0'"],
    [['--request-timeout', '0'], "Invalid input: --request-timeout must be greater than 0, got '0'"],
  ])('%j → exit 2 before any request', (args, message) => expectRefusedBeforeAnyRequest('list', args, message));

  it('an unknown flag or an abbreviation → exit 2', async () => {
    expect((await pks(h, ['paper', 'list', '--per', '5'])).code).toBe(2);
    expect((await pks(h, ['paper', 'list', '--bogus'])).code).toBe(2);
    expect(api.requests).toHaveLength(0);
  });

  it('a server that cannot be reached → Request failed, exit 1', async () => {
    await api.close();
    const down = await pks(h, ['paper', 'list']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^Request failed: .*ECONNREFUSED/);
  });
});

describe('paper show', () => {
  it('title, authors, published, DOI, versions with sizes, claim and jobs in words', async () => {
    await expectPrints(
      h,
      ['paper', 'show', '2501.00010'],
      `2501.00010
Title:     Quantum widgets for everyone
Authors:   Alice Example, Bob Example
Published: 2025-01-02
DOI:       10.1234/widgets
Cited by:  12
Versions:
  v1: PDF 1.2 MiB, markdown 34.5 KiB, 2 images; updated 2026-05-01T12:00:00Z
Claim:     none
Jobs:      none`,
    );
  });

  it('no metadata, several versions, a claim and a running job; an old-style id is sent with its /', async () => {
    await expectPrints(
      h,
      ['paper', 'show', 'quant-ph/9508027'],
      [
        'quant-ph/9508027',
        'Metadata:  not known to the server',
        'Versions:',
        '  v1: PDF 2.0 KiB, no markdown, no images; updated 2026-04-01T08:00:00Z',
        '  v2: PDF 512 B, no markdown, 1 image; updated 2026-04-02T08:00:00Z',
        'Claim:     held by contrib@laptop until 2026-05-01T13:00:00Z',
        'Jobs:',
        '  markdown: running converting_md convert.running polls=7',
      ],
    );
    expect(api.requests.at(-1)!.url).toBe('/api/papers/quant-ph/9508027');
  });

  it('a failed job shows its detail; more than ten authors are counted', async () => {
    const detail: PaperDetail = {
      ...WIDGETS.detail,
      preprint_id: '2503.00030',
      metadata: { ...WIDGETS.detail.metadata!, authors: Array.from({ length: 12 }, (_, i) => `A${i}`), doi: null },
      jobs: {
        markdown: null,
        pdf: {
          preprint_id: '2503.00030v1',
          state: 'failed',
          phase: 'error_fetching',
          kind: 'fatal',
          pdf_ready: false,
          md_ready: false,
          detail: 'arXiv has no paper 2503.00030v1 (HTTP 404)',
        },
      },
    };
    api.papers.push({ ...WIDGETS, detail });
    const run = await pks(h, ['paper', 'show', '2503.00030']);
    expect(run.stdout).toContain('Authors:   A0, A1, A2, A3, A4, A5, A6, A7, A8, A9 and 2 more\n');
    expect(run.stdout).toContain('DOI:       none\n');
    expect(run.stdout).toContain('\n  pdf:      failed error_fetching: arXiv has no paper 2503.00030v1 (HTTP 404)\n');
  });

  it('--json prints the body', async () => {
    const run = await pks(h, ['paper', 'show', '2501.00010', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(WIDGETS.detail);
  });

  it('404 → Request failed with the detail, exit 1; an empty id → exit 2 without a request', async () => {
    const run = await pks(h, ['paper', 'show', '2501.99999']);
    expect(run).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'Request failed: HTTP 404 Not Found: not hosted: 2501.99999\n',
    });
    const empty = await pks(h, ['paper', 'show', '  ']);
    expect(empty).toMatchObject({ code: 2, stderr: 'Error: empty paper id\n' });
    expect(api.calls('GET', '/api/papers/  ')).toHaveLength(0);
    expect((await pks(h, ['paper', 'show'])).code).toBe(2);
  });
});

describe('paper status', () => {
  it('two or more ids → the batch probe, one line per id in request order', async () => {
    const lineOfId = new Map([
      ['2501.00010', '2501.00010 → 2501.00010v1  md:yes pdf:yes cached'],
      ['quant-ph/9508027v1', 'quant-ph/9508027v1 → quant-ph/9508027v1  md:no pdf:yes none'],
      ['2501.77777v1', '2501.77777v1 → 2501.77777v1  md:no pdf:no none'],
      ['2501.77777', '2501.77777 → -  md:no pdf:no not found'],
      ['x!', 'x! → -  md:no pdf:no invalid paper id'],
    ]);
    const ids = [...lineOfId.keys()];
    await expectPrints(h, ['paper', 'status', ...ids], [...lineOfId.values()]);
    expect(query('GET', '/api/papers/status/batch')).toEqual({ ids: ids.join(',') });
  });

  it('--json prints the body; repeated ids are asked once', async () => {
    const run = await pks(h, ['paper', 'status', '2501.00010v1', ' 2501.00010v1', '2501.77777v1', '--json']);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { results: { requested_id: string }[] };
    expect(body.results.map((r) => r.requested_id)).toEqual(['2501.00010v1', '2501.77777v1']);
    expect(body.results[0]).toEqual({
      requested_id: '2501.00010v1',
      resolved_id: '2501.00010v1',
      md_ready: true,
      pdf_ready: true,
      image_count: 2,
      state: 'cached',
      phase: 'ready',
      error: '',
    });
  });

  it('more than 200 ids are asked in slices of 200, answered as one', async () => {
    const ids = Array.from({ length: 201 }, (_, i) => `2501.${String(i).padStart(5, '0')}v1`);
    const run = await pks(h, ['paper', 'status', ...ids]);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(201);
    expect(run.stdout.split('\n')[10]).toBe('2501.00010v1 → 2501.00010v1  md:yes pdf:yes cached');
    const calls = api.calls('GET', '/api/papers/status/batch');
    expect(calls.map((_, i) => query('GET', '/api/papers/status/batch', i)['ids']!.split(',').length)).toEqual([
      200, 1,
    ]);
  });

  it('one id keeps the job snapshot of --kind (JSON)', async () => {
    const run = await pks(h, ['paper', 'status', '2501.00010v1']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ preprint_id: '2501.00010v1', state: 'cached' });
    expect(api.calls('GET', '/api/papers/2501.00010v1/markdown/status')).toHaveLength(1);
    expect(api.calls('GET', '/api/papers/status/batch')).toHaveLength(0);
  });

  it.each([
    [['a1', 'b2', '--kind', 'pdf'], 'Error: --kind takes one id; the status of several ids covers markdown and PDF'],
    [['2501.00010v1', '--kind', 'html'], "Invalid input: --kind must be one of markdown, pdf, got 'html'"],
    [['2501.00010v1', ''], 'Error: empty paper id'],
    [['10.1/a,b', '2501.00010v1'], "Error: '10.1/a,b' holds a comma, which separates the ids of one request"],
  ])('%j → exit 2 before any request', (args, message) => expectRefusedBeforeAnyRequest('status', args, message));
});

describe('paper lookup', () => {
  beforeEach(() => {
    api.lookups.set('arxiv:2501.00010', {
      resolved: true,
      hosted: true,
      has_md: true,
      preprint_id: '2501.00010',
      title: 'Quantum widgets for everyone',
      authors: ['Alice Example'],
      year: 2025,
    });
    api.lookups.set('doi:10.1234/gadgets', {
      resolved: true,
      hosted: false,
      has_md: false,
      title: 'Gadgets',
      year: 2019,
    });
    api.lookups.set('openalex:W9', { resolved: true, hosted: true, has_md: false });
  });

  it('one line per ref: hosted / not hosted, markdown ready, year and title; unresolved', async () => {
    const refs = ['arxiv:2501.00010', 'doi:10.1234/gadgets', 'openalex:W9', 'doi:10.9/unknown', 'isbn:123'];
    await expectPrints(
      h,
      ['paper', 'lookup', ...refs],
      [
        'arxiv:2501.00010: hosted, markdown ready (2025) — Quantum widgets for everyone',
        'doi:10.1234/gadgets: not hosted (2019) — Gadgets',
        'openalex:W9: hosted',
        'doi:10.9/unknown: unresolved',
        'isbn:123: unresolved',
      ],
    );
    expect(query('GET', '/api/papers/lookup')).toEqual({ ids: refs.join(',') });
  });

  it('--file adds refs (blank lines and # comments skipped), - reads stdin; --json prints the body', async () => {
    const file = path.join(h.cwd, 'refs.txt');
    writeFileSync(file, '# my reading list\n\ndoi:10.1234/gadgets\r\n  openalex:W9  \n');
    const run = await pks(h, ['paper', 'lookup', 'arxiv:2501.00010', '--file', file]);
    expect(run.stdout.split('\n').map((l) => l.split(':')[0])).toEqual(['arxiv', 'doi', 'openalex', '']);
    const stdin = await pks(h, ['paper', 'lookup', '--file', '-', '--json'], { stdin: 'openalex:W9\n' });
    expect(JSON.parse(stdin.stdout)).toEqual({
      results: [{ ref: 'openalex:W9', resolved: true, hosted: true, has_md: false }],
      corpus_available: true,
    });
  });

  it('more than 200 refs are asked in slices of 200', async () => {
    const refs = Array.from({ length: 450 }, (_, i) => `openalex:W${i}`);
    writeFileSync(path.join(h.cwd, 'many.txt'), refs.join('\n'));
    const run = await pks(h, ['paper', 'lookup', '--file', 'many.txt']);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(450);
    expect(run.stdout).toContain('\nopenalex:W9: hosted\n');
    expect(api.calls('GET', '/api/papers/lookup')).toHaveLength(3);
  });

  it('no ref, a ref without a namespace, an empty file → exit 2; a missing file → exit 1; no request', async () => {
    expect(await pks(h, ['paper', 'lookup'])).toMatchObject({
      code: 2,
      stderr: 'Error: give at least one reference or --file\n',
    });
    expect(await pks(h, ['paper', 'lookup', '2501.00010'])).toMatchObject({
      code: 2,
      stderr: "Invalid input: '2501.00010' is not a <kind>:<id> reference (arxiv:…, doi:…, openalex:…)\n",
    });
    writeFileSync(path.join(h.cwd, 'empty.txt'), '# nothing\n');
    expect(await pks(h, ['paper', 'lookup', '--file', 'empty.txt'])).toMatchObject({
      code: 2,
      stderr: 'Error: no references in empty.txt\n',
    });
    const missing = await pks(h, ['paper', 'lookup', '--file', 'absent.txt']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: cannot read absent\.txt: ENOENT/);
    expect(api.requests).toHaveLength(0);
  });
});

describe('paper figures', () => {
  it('one block per figure (caption on one line, then its image names); images in no figure last', async () => {
    await expectPrints(
      h,
      ['paper', 'figures', '2501.00010v1'],
      `Figure 1: A widget in two parts.
  fig1a.png
  fig1b.png

Figure ?: (no caption)
  sub/x.png

Figure 2: Energy levels
  fig2.png

Images in no figure:
  logo.png`,
    );
  });

  it('no markdown → says so, exit 0; --json prints the body; 404 → exit 1', async () => {
    const none = await pks(h, ['paper', 'figures', 'quant-ph/9508027v2']);
    expect(none).toMatchObject({
      code: 0,
      stdout:
        'No markdown stored for quant-ph/9508027v2; figures are read from the markdown (pks paper get markdown quant-ph/9508027v2).\n',
    });
    const json = await pks(h, ['paper', 'figures', '2501.00010v1', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(WIDGETS.figures);
    expect(await pks(h, ['paper', 'figures', '2501.99999v1'])).toMatchObject({
      code: 1,
      stderr: 'Request failed: HTTP 404 Not Found: not hosted: 2501.99999v1\n',
    });
  });
});

describe('paper get image / images', () => {
  it('image: streamed to the image name in the current directory; -o FILE; Wrote N bytes', async () => {
    const run = await pks(h, ['paper', 'get', 'image', '2501.00010v1', 'fig1b.png']);
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: `Wrote ${PNG_B.length} bytes to fig1b.png\n` });
    expect(readFileSync(path.join(h.cwd, 'fig1b.png'))).toEqual(PNG_B);
    const out = path.join(h.cwd, 'chosen.png');
    const named = await pks(h, ['paper', 'get', 'image', '2501.00010v1', 'sub/x.png', '-o', out]);
    expect(named).toMatchObject({ code: 0, stderr: `Wrote 3 bytes to ${out}\n` });
    expect(readFileSync(out, 'utf8')).toBe('xyz');
    expect(api.requests.at(-1)!.url).toBe('/api/papers/2501.00010v1/images/sub/x.png');
    const nested = await pks(h, ['paper', 'get', 'image', '2501.00010v1', 'sub/x.png']);
    expect(nested.stderr).toBe('Wrote 3 bytes to x.png\n');
    expect(readdirSync(h.cwd).sort()).toEqual(['chosen.png', 'fig1b.png', 'x.png']);
  });

  it('image: -o - writes the bytes to stdout', async () => {
    const run = await pks(h, ['paper', 'get', 'image', '2501.00010v1', 'fig1a.png', '-o', '-']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdoutBytes).toEqual(PNG_A);
  });

  it('images: the zip to <stem>-images.zip (old-style stem), or -o FILE.zip', async () => {
    const run = await pks(h, ['paper', 'get', 'images', 'quant-ph/9508027v2']);
    expect(run).toMatchObject({ code: 0, stderr: `Wrote ${ZIP.length} bytes to quant-ph_9508027v2-images.zip\n` });
    expect(readFileSync(path.join(h.cwd, 'quant-ph_9508027v2-images.zip'))).toEqual(ZIP);
    expect(api.requests.at(-1)!.url).toBe('/api/papers/quant-ph/9508027v2/images/zip');
    mkdirSync(path.join(h.cwd, 'into'));
    expect(await pks(h, ['paper', 'get', 'images', '2501.00010', '-o', 'into'])).toMatchObject({
      code: 0,
      stderr: `Wrote ${ZIP.length} bytes to ${path.join('into', '2501.00010-images.zip')}\n`,
    });
    expect(readFileSync(path.join(h.cwd, 'into', '2501.00010-images.zip'))).toEqual(ZIP);
    const out = path.join(h.cwd, 'figs.zip');
    expect(await pks(h, ['paper', 'get', 'images', '2501.00010v1', '-o', out])).toMatchObject({
      code: 0,
      stderr: `Wrote ${ZIP.length} bytes to ${out}\n`,
    });
    expect(readFileSync(out)).toEqual(ZIP);
  });

  it('404 → Request failed with the detail, exit 1, no file; a bad name → exit 2 without a request', async () => {
    expect(await pks(h, ['paper', 'get', 'image', '2501.00010v1', 'nope.png'])).toMatchObject({
      code: 1,
      stderr: 'Request failed: HTTP 404 Not Found: image not found\n',
    });
    expect(await pks(h, ['paper', 'get', 'images', '2502.00020v1'])).toMatchObject({
      code: 1,
      stderr: 'Request failed: HTTP 404 Not Found: no images stored for 2502.00020v1\n',
    });
    expect(readdirSync(h.cwd)).toEqual([]);
    const before = api.requests.length;
    for (const name of ['../secret', 'a//b', '.', '']) {
      const run = await pks(h, ['paper', 'get', 'image', '2501.00010v1', name]);
      expect(run.code, name).toBe(2);
      expect(run.stderr).toMatch(/^Error: invalid image name/);
    }
    expect((await pks(h, ['paper', 'get', 'images', '2501.00010v1', '--no-wait'])).code).toBe(2);
    expect((await pks(h, ['paper', 'get', 'html', '2501.00010v1'])).code).toBe(2);
    expect(api.requests).toHaveLength(before);
    expect(existsSync(path.join(h.cwd, 'secret'))).toBe(false);
  });
});

describe('paper fetch', () => {
  it('one line per item, then enqueued N/M; exit 0 when N > 0', async () => {
    await expectPrints(
      h,
      ['paper', 'fetch', '2501.00010', 'https://arxiv.org/abs/2509.00001v2', 'not-an-id'],
      [
        'enqueued 2501.00010 -> 2501.00010v1 (cached)',
        'enqueued https://arxiv.org/abs/2509.00001v2 -> 2509.00001v2 (queued)',
        'failed not-an-id: invalid paper id',
        'enqueued 2/3',
      ],
    );
    const sent = JSON.parse(api.calls('POST', '/api/papers/fetch')[0]!.body.toString()) as unknown;
    expect(sent).toEqual({
      items: ['2501.00010', 'https://arxiv.org/abs/2509.00001v2', 'not-an-id'],
      kind: 'markdown',
    });
  });

  it('every item failed → exit 1; --pdf asks for the PDF; --json prints the body', async () => {
    expect(await pks(h, ['paper', 'fetch', 'bad-1', 'bad-2'])).toMatchObject({
      code: 1,
      stdout: 'failed bad-1: invalid paper id\nfailed bad-2: invalid paper id\nenqueued 0/2\n',
    });
    const pdf = await pks(h, ['paper', 'fetch', '2509.00001', '--pdf', '--json']);
    expect(pdf.code).toBe(0);
    expect(JSON.parse(pdf.stdout)).toEqual({
      results: [{ input: '2509.00001', resolved_id: '2509.00001v1', state: 'queued', error: null }],
      enqueued: 1,
    });
    expect(JSON.parse(api.calls('POST', '/api/papers/fetch')[1]!.body.toString())).toEqual({
      items: ['2509.00001'],
      kind: 'pdf',
    });
  });

  it('--file items join the command line; more than 50 are sent in slices of 50', async () => {
    const items = Array.from({ length: 60 }, (_, i) => `2509.${String(i).padStart(5, '0')}`);
    writeFileSync(path.join(h.cwd, 'list.txt'), `# to read\n${items.slice(1).join('\n')}\n`);
    const run = await pks(h, ['paper', 'fetch', items[0]!, '--file', 'list.txt']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').at(-2)).toBe('enqueued 60/60');
    const bodies = api
      .calls('POST', '/api/papers/fetch')
      .map((c) => (JSON.parse(c.body.toString()) as { items: string[] }).items);
    expect(bodies.map((b) => b.length)).toEqual([50, 10]);
    expect(bodies.flat()).toEqual(items);
  });

  it('a newer server gets the read warning, not the write refusal (a fetch is the batch form of the trigger GETs)', async () => {
    api.version = '0.2.0';
    expect(await pks(h, ['paper', 'fetch', '2509.00001'])).toMatchObject({
      code: 0,
      stdout: 'enqueued 2509.00001 -> 2509.00001v1 (queued)\nenqueued 1/1\n',
      stderr: 'WARNING: server version 0.2.0 is newer than client 0.1.0. Upgrade pks (npm install -g pks).\n',
    });
    expect(api.calls('GET', '/api/server/info')).toHaveLength(0);
  });

  it('paper access off (404) → says so, exit 1; no item → exit 2 without a request', async () => {
    api.paperAccess = false;
    expect(await pks(h, ['paper', 'fetch', '2501.00010'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'Request failed: HTTP 404 Not Found: this server does not fetch papers (paper access is off)\n',
    });
    const before = api.requests.length;
    expect(await pks(h, ['paper', 'fetch'])).toMatchObject({
      code: 2,
      stderr: 'Error: give at least one item or --file\n',
    });
    expect(await pks(h, ['paper', 'fetch', ' ', ''])).toMatchObject({ code: 2, stderr: 'Error: no items given\n' });
    expect(api.requests).toHaveLength(before);
  });
});

const job = (extra: Partial<RegistryJob> & Pick<RegistryJob, 'preprint_id' | 'state' | 'phase'>): RegistryJob => ({
  asset: 'markdown',
  pdf_ready: false,
  md_ready: false,
  ...extra,
});

const FETCHING = {
  started_at: '2026-05-01T12:00:00Z',
  completed_at: null,
  bytes_received: 1048576,
  bytes_total: 2097152,
  sha256: null,
  attempts: 1,
};
const CONVERTING = {
  started_at: '2026-05-01T12:00:00Z',
  parser_task_id: 'task-3',
  stage: 'running',
  polled_count: 3,
  completed_at: null,
  extracted_pages: 3,
  total_pages: 12,
};
const BUSY: RegistryJobs = {
  queued: 1,
  running: 2,
  jobs: [
    job({
      preprint_id: '2501.00010v1',
      state: 'running',
      phase: 'fetching_pdf',
      fetch: FETCHING,
    }),
    job({
      preprint_id: 'quant-ph/9508027v2',
      state: 'running',
      phase: 'converting_md',
      pdf_ready: true,
      convert: CONVERTING,
    }),
    job({
      preprint_id: '2502.00020v1',
      state: 'queued',
      phase: 'converting_md',
      pdf_ready: true,
      queue: {
        position: 3,
        ahead_of_me: 2,
        running_count: 4,
        max_concurrent: 4,
        eta_seconds: 190,
        avg_duration_seconds: 95,
        eta_basis: 'observed_avg_of_12_jobs',
      },
    }),
    job({ preprint_id: '2503.00030v1', asset: 'pdf', state: 'failed', phase: 'error_fetching', kind: 'fatal' }),
  ],
};
const BUSY_TABLE = [
  '1 queued, 2 running',
  'ID                  KIND      STATE    PHASE           PROGRESS            QUEUE  ETA',
  '2501.00010v1        markdown  running  fetching_pdf    1.0 MiB / 2.0 MiB   -      -',
  'quant-ph/9508027v2  markdown  running  converting_md   running 3/12 pages  -      -',
  '2502.00020v1        markdown  queued   converting_md   -                   #3     3m10s',
  '2503.00030v1        pdf       failed   error_fetching  -                   -      -',
  '',
].join('\n');
const IDLE: RegistryJobs = { queued: 0, running: 0, jobs: [BUSY.jobs[3]!] };

describe('paper jobs', () => {
  it('the table: id, kind, state, phase, progress, queue position, ETA', async () => {
    api.jobs = [BUSY];
    const run = await pks(h, ['paper', 'jobs']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(BUSY_TABLE);
  });

  it('no job → No jobs.; --json prints the body', async () => {
    expect(await pks(h, ['paper', 'jobs'])).toMatchObject({ code: 0, stdout: 'No jobs. (0 queued, 0 running)\n' });
    api.jobs = [BUSY];
    expect(JSON.parse((await pks(h, ['paper', 'jobs', '--json'])).stdout)).toEqual(BUSY);
  });

  it('--watch (not a terminal): a table per change until no job is queued or running, exit 0', async () => {
    api.jobs = [BUSY, BUSY, IDLE];
    const run = await pks(h, ['paper', 'jobs', '--watch', '--interval', '1']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const idleTable = [
      '0 queued, 0 running',
      'ID            KIND  STATE   PHASE           PROGRESS  QUEUE  ETA',
      '2503.00030v1  pdf   failed  error_fetching  -         -      -',
      '',
    ].join('\n');
    expect(run.stdout).toBe(`${BUSY_TABLE}\n${idleTable}`);
    expect(api.calls('GET', '/api/papers/jobs')).toHaveLength(3);
  });

  it('--watch --json: one JSON line per change', async () => {
    api.jobs = [BUSY, IDLE];
    const run = await pks(h, ['paper', 'jobs', '--watch', '--interval', '1', '--json']);
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([BUSY, IDLE]);
  });

  it('--watch ends with 130 on SIGINT while jobs are still running', async () => {
    api.jobs = [BUSY];
    const run = spawnPks(h, ['paper', 'jobs', '--watch', '--interval', '1']);
    await waitForOutput(run, (o) => o.stdout.includes('2502.00020v1'), 20_000);
    run.child.kill('SIGINT');
    const done = await run.done;
    expect(done).toMatchObject({ code: 130, stdout: BUSY_TABLE, stderr: '' });
  });

  it('--interval that is not a positive number → exit 2 without a request', async () => {
    expect(await pks(h, ['paper', 'jobs', '--watch', '--interval', 'soon'])).toMatchObject({
      code: 2,
      stderr: "Invalid input: --interval must be a number, got 'soon'\n",
    });
    expect(api.requests).toHaveLength(0);
  });
});

describe('answers that are not what the route promises (a proxy in between)', () => {
  it.each([
    [200, 'text/html', 'Request failed: server answered 200 with a non-JSON body (text/html)'],
    [502, 'text/html', 'Request failed: server answered 502 with a non-JSON body (text/html)'],
    [200, 'application/json', 'Request failed: server answered 200 with JSON that is not an object'],
  ])('%i %s → one line, exit 1', async (status, type, message) => {
    const scripted = await loggedInDouble('pat_registry_123456');
    try {
      const body = type === 'text/html' ? '<html>bad gateway</html>' : '[1, 2]';
      scripted.api.on('GET', '/api/papers', { status, body, headers: { 'content-type': type } });
      const run = await pks(scripted.h, ['paper', 'list']);
      expect(run).toMatchObject({ code: 1, stdout: '', stderr: `${message}\n` });
    } finally {
      await scripted.close();
    }
  });
});

describe('on a terminal (tmux)', () => {
  const terminal = new TmuxTerminal('pks-registry');
  afterEach(() => terminal.close());

  const onScreen = (command: string, name: string, width = 100): Promise<string> =>
    terminal.onScreen(h, command, name, { width, height: 40 });

  it('paper list cuts titles to the terminal width; piped they stay whole', async () => {
    const screen = await onScreen(`node ${PKS_BIN} paper list`, 'list', 80);
    const line = screen.split('\n').find((l) => l.startsWith('2502.00020v1'))!;
    expect(line).toBe(`2502.00020v1  md:yes  pdf:no  ${LONG_TITLE.slice(0, 79 - 30 - 1)}…`);
    const piped = await onScreen(`node ${PKS_BIN} paper list | cat > out.txt`, 'list-pipe', 80);
    expect(piped).toContain('EXIT=0');
    expect(readFileSync(path.join(h.cwd, 'out.txt'), 'utf8')).toContain(LONG_TITLE);
  });

  it('a lookup in several requests counts the refs asked on the terminal; piped, nothing is added', async () => {
    writeFileSync(path.join(h.cwd, 'many.txt'), Array.from({ length: 450 }, (_, i) => `openalex:W${i}`).join('\n'));
    const screen = await onScreen(`node ${PKS_BIN} paper lookup --file many.txt > out.txt`, 'slices');
    expect(screen.split('\n').filter((l) => l.trim() !== '')).toEqual(['looking up 450/450', 'EXIT=0']);
    expect(readFileSync(path.join(h.cwd, 'out.txt'), 'utf8').split('\n')).toHaveLength(451);
    const piped = await onScreen(`node ${PKS_BIN} paper lookup --file many.txt 2>&1 >/dev/null | cat`, 'slices-pipe');
    expect(piped.split('\n').filter((l) => l.trim() !== '')).toEqual(['EXIT=0']);
  });

  it('paper jobs --watch redraws the table in place until no job is active', async () => {
    api.jobs = [BUSY, BUSY, BUSY, IDLE];
    const screen = await onScreen(`node ${PKS_BIN} paper jobs --watch --interval 1`, 'watch', 120);
    const lines = screen.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toEqual([
      '0 queued, 0 running',
      'ID            KIND  STATE   PHASE           PROGRESS  QUEUE  ETA',
      '2503.00030v1  pdf   failed  error_fetching  -         -      -',
      'EXIT=0',
    ]);
    expect(api.calls('GET', '/api/papers/jobs')).toHaveLength(4);
  });
});
