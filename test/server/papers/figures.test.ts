/**
 * `GET /api/papers/{id}/figures` (CONTRACT §18.2) on a running pksd with papers stored through the upload routes:
 * sizes and URLs from the store, every id form (paper access off: only what is stored; on: §11.1 resolution with
 * its headers), no markdown, and the 400/404 answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVersionedId } from '../../../src/shared/ids.js';
import { useMoto } from '../../support/moto.js';
import { PNG } from '../../support/upstreams/mineru.js';
import { addPaper } from '../access/support/papers.js';
import { startAccessStack, stopAccessStack, AUTH as ACCESS_AUTH, type AccessServer } from '../access/support/server.js';
import type { Doubles } from '../access/support/harness.js';
import { AUTH, startBackend, type Backend } from './helpers.js';
import { storePaper } from './registry-support.js';

const moto = useMoto();

const MARKDOWN = [
  '# Results',
  '',
  'The apparatus is shown below.',
  '',
  '![](images/setup.png)',
  '',
  'Figure 1: The apparatus.',
  '',
  '图 2 两个面板',
  '![a](images/left.jpg)',
  '',
  '![b](images/sub/right%20side.jpg)',
  '',
  'Closing text.',
].join('\n');
const IMAGES = { 'setup.png': PNG, 'left.jpg': 'left-bytes', 'sub/right side.jpg': 'right', 'unused.png': 'u' };

describe.each(['local', 's3'] as const)('figures (%s backend, paper access off)', (backendName) => {
  let b: Backend;
  const target = () => ({ fetch: b.server.fetch, auth: AUTH });
  beforeAll(async () => {
    b = await startBackend(backendName, backendName === 's3' ? moto() : null);
    await storePaper(target(), '2505.00001v1', MARKDOWN, IMAGES);
    await storePaper(target(), '2505.00001v2', 'No figures in v2.\n', { 'only.png': 'o' });
    await storePaper(target(), '2505.00002v1', null);
    await storePaper(target(), 'quant-ph/9508027v1', '![](images/q.png)\nFIG. 3. Old style.\n', { 'q.png': 'q' });
    b.server.server.papers.index.update(parseVersionedId('2505.00001v1')!, { doi: '10.5555/figures.v1' });
  });
  afterAll(async () => {
    await b?.close();
  });

  const get = async (id: string) => {
    const res = await b.server.fetch(`/api/papers/${id}/figures`, { headers: AUTH });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('figures with captions, context, sizes and image URLs; unmatched images', async () => {
    const url = (name: string) => `/api/papers/2505.00001v1/images/${name}`;
    expect(await get('2505.00001v1')).toEqual({
      status: 200,
      body: {
        preprint_id: '2505.00001v1',
        markdown_ready: true,
        figures: [
          {
            fig_no: 1,
            caption: 'Figure 1: The apparatus.',
            context: 'The apparatus is shown below.',
            images: [{ name: 'setup.png', size: PNG.length, url: url('setup.png') }],
          },
          {
            fig_no: 2,
            caption: '图 2 两个面板',
            context: 'The apparatus is shown below.',
            images: [
              { name: 'left.jpg', size: 10, url: url('left.jpg') },
              { name: 'sub/right side.jpg', size: 5, url: url('sub/right%20side.jpg') },
            ],
          },
        ],
        unmatched_images: [{ name: 'unused.png', size: 1, url: url('unused.png') }],
        image_count: 4,
      },
    });
  });

  it('a DOI through the index, and the old-style id with its slash raw or encoded', async () => {
    // A DOI names the paper, not a version: the newest stored version of the paper whose row carries it.
    expect((await get('10.5555/FIGURES.V1')).body['preprint_id']).toBe('2505.00001v2');
    for (const id of ['quant-ph/9508027v1', 'quant-ph%2F9508027v1', '9508027v1']) {
      const { status, body } = await get(id);
      expect([id, status, body['preprint_id'], body['figures']]).toEqual([
        id,
        200,
        'quant-ph/9508027v1',
        [
          {
            fig_no: 3,
            caption: 'FIG. 3. Old style.',
            context: '',
            images: [{ name: 'q.png', size: 1, url: '/api/papers/quant-ph/9508027v1/images/q.png' }],
          },
        ],
      ]);
    }
  });

  it('a versionless id is the newest stored version', async () => {
    expect((await get('2505.00001')).body).toEqual({
      preprint_id: '2505.00001v2',
      markdown_ready: true,
      figures: [],
      unmatched_images: [{ name: 'only.png', size: 1, url: '/api/papers/2505.00001v2/images/only.png' }],
      image_count: 1,
    });
  });

  it('no markdown: markdown_ready false, no figures', async () => {
    expect((await get('2505.00002v1')).body).toEqual({
      preprint_id: '2505.00002v1',
      markdown_ready: false,
      figures: [],
      unmatched_images: [],
      image_count: 0,
    });
  });

  it.each([
    ['2505.09999v1', 404, { detail: 'not hosted: 2505.09999v1' }],
    ['2505.09999', 404, { detail: 'not hosted: 2505.09999' }],
    ['10.5555/unknown', 404, { detail: 'not hosted: 10.5555/unknown' }],
    ['not-an-id', 400, { detail: 'invalid preprint id or DOI: "not-an-id"' }],
    ['10.1/x', 400, { detail: 'invalid DOI: expected 10.<4-9 digits>/<suffix>', doi: '10.1/x' }],
  ])('%s → %i', async (id, status, body) => {
    expect(await get(id)).toEqual({ status, body });
  });
});

describe('figures with paper access on', () => {
  let d: Doubles;
  let s: AccessServer;
  beforeAll(async () => {
    ({ d, s } = await startAccessStack());
    await storePaper({ fetch: s.fetch, auth: ACCESS_AUTH }, '2506.00001v2', MARKDOWN, IMAGES);
  });
  afterAll(() => stopAccessStack({ d, s }));

  it('resolves as paper access does (defaults in headers), and every figure URL serves the image', async () => {
    addPaper(d.arxiv, '2506.00001', 2);
    const res = await s.get('/api/papers/2506.00001/figures');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-resolved-id')).toBe('2506.00001v2');
    expect(res.headers.get('x-svc-defaults-applied')).toBe(
      'version=v2 (no version specified; latest published version used)',
    );
    const body = (await res.json()) as { preprint_id: string; figures: { images: { url: string; size: number }[] }[] };
    expect(body.preprint_id).toBe('2506.00001v2');
    const images = body.figures.flatMap((f) => f.images);
    expect(images).toHaveLength(3);
    for (const image of images) {
      const served = await s.get(image.url);
      expect([image.url, served.status, (await served.arrayBuffer()).byteLength]).toEqual([image.url, 200, image.size]);
    }
  });

  it('an id arXiv does not have is the resolution 404; a stored id without markdown is 200', async () => {
    const missing = await s.get('/api/papers/2506.09999/figures');
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { detail: 'arXiv has no paper 2506.09999', requested_id: '2506.09999' },
    ]);
    const unknown = await s.get('/api/papers/2506.09998v1/figures');
    expect([unknown.status, await unknown.json()]).toEqual([
      200,
      { preprint_id: '2506.09998v1', markdown_ready: false, figures: [], unmatched_images: [], image_count: 0 },
    ]);
  });
});
