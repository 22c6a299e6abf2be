/**
 * The original service's published clients, unchanged (CONTRACT §18, §19), against a real pksd with paper access on
 * the upstream stand-ins: `qatlas-cli` 0.34.0 for every command it has (login, contributions, markdown by id and
 * DOI, batch status, figures, images, metadata, list, lookup, batch fetch, jobs), `quantum-atlas` 0.20.0 for the
 * commands it has (login, `contrib pdf`, `paper get markdown`, and `ingest`, which sends no token: 401). Each step
 * asserts its effect on the server, not only the exit code. The clients are installed by
 * scripts/install-test-deps.sh.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qatlasClientMissing, runQatlas, writeQatlasConfig, type QatlasClient } from '../../support/qatlas-clients.js';
import { PNG, resultZip, startMineruDouble } from '../../support/upstreams/mineru.js';
import { arxivWork } from '../../support/upstreams/openalex.js';
import { until } from '../access/support/clocks.js';
import { addPaper } from '../access/support/papers.js';
import { AUTH, PAT, startAccessStack, stopAccessStack } from '../access/support/server.js';

/** The contributor's own MinerU: a second stand-in, so the server's converter and the client never share one. */
const CONTRIBUTOR_TOKEN = 'contributor-mineru-token';

const FIGURES_MD = [
  '# A paper with figures',
  '',
  'We prepare the state below.',
  '',
  '![](images/a.png)',
  '',
  '![](images/b.png)',
  'Figure 1: Two panels of the circuit.',
  '',
  'More text.',
  '',
  '图 2: 中文的图注',
  '![](images/c.png)',
  '',
].join('\n');

const IMAGES = {
  'a.png': PNG,
  'b.png': Buffer.concat([PNG, Buffer.from('b')]),
  'c.png': Buffer.concat([PNG, Buffer.from('c')]),
};

async function setUp(client: QatlasClient) {
  const missing = qatlasClientMissing(client);
  if (missing !== null) throw new Error(missing);
  const stack = await startAccessStack();
  const contributorMineru = await startMineruDouble();
  contributorMineru.tokens.add(CONTRIBUTOR_TOKEN);
  const home = await mkdtemp(path.join(os.tmpdir(), 'pks-qatlas-'));
  writeQatlasConfig(home, {
    serverUrl: stack.s.url,
    token: null,
    mineruBaseUrl: contributorMineru.baseUrl,
    mineruToken: CONTRIBUTOR_TOKEN,
  });
  const run = (args: readonly string[], options: { input?: string } = {}) =>
    runQatlas(client, args, home, { ...options, cwd: home });
  return {
    stack,
    contributorMineru,
    home,
    run,
    async close() {
      await stopAccessStack(stack);
      await contributorMineru.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

type Env = Awaited<ReturnType<typeof setUp>>;

/** Logs in with the system PAT on stdin; the next request carries it. */
async function login(env: Env) {
  const run = await env.run(['auth', 'login', '-s', env.stack.s.url, '--with-token'], { input: `${PAT}\n` });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain(`Logged in to ${new URL(env.stack.s.url).host}`);
  const hosts = await readFile(path.join(env.home, 'qatlas', 'hosts.yml'), 'utf8');
  expect(hosts).toContain(PAT);
}

/**
 * `contrib pdf` of the paper's arXiv PDF (a claim's `pdf_url` is arXiv's: the client checks its sha256 against the
 * stored PDF's): the PDF lands in the store, and the server serves those bytes at once, no job.
 */
async function contribPdf(env: Env, id: string): Promise<Buffer> {
  const pdf = addPaper(env.stack.d.arxiv, id.replace(/v1$/, '')).get(1)!;
  const file = path.join(env.home, `${id.replace('/', '_')}.pdf`);
  await writeFile(file, pdf);
  const run = await env.run(['contrib', 'pdf', id, '--pdf', file]);
  expect(run.code, run.stderr).toBe(0);
  const served = await env.stack.s.get(`/api/papers/${id}/pdf`);
  expect(served.status).toBe(200);
  expect(Buffer.from(await served.arrayBuffer()).equals(pdf)).toBe(true);
  return pdf;
}

describe('qatlas-cli 0.34 against pksd', () => {
  let env: Env;
  const withFigures = '2505.00001v1';
  const queued = ['2505.00002v1', '2505.00003v1'];
  const doi = '10.1103/physrevlett.2505.4';
  const byDoi = '2505.00004';

  beforeAll(async () => {
    env = await setUp('qatlas-cli');
    env.stack.d.arxiv.entries.set(withFigures.replace(/v1$/, ''), {
      title: 'Figures of merit for surface codes',
      authors: ['Ada Lovelace', 'Alan Turing'],
      abstract: 'We count figures.',
      published: '2025-05-01',
    });
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  it('auth login --with-token stores the PAT; contrib pdf stores the PDFs', async () => {
    await login(env);
    for (const id of [withFigures, ...queued]) await contribPdf(env, id);
  }, 120_000);

  it('contrib mineru <id>: claims, converts with the contributor token, uploads; the markdown is then served', async () => {
    const usual = env.contributorMineru.defaultScript;
    env.contributorMineru.defaultScript = { states: ['done'], zip: resultZip(FIGURES_MD, IMAGES) };
    const run = await env.run(['contrib', 'mineru', withFigures]);
    env.contributorMineru.defaultScript = usual;
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ preprint_id: withFigures, image_count: 3 });
    const markdown = await env.stack.s.get(`/api/papers/${withFigures}/markdown`);
    expect(markdown.status).toBe(200);
    expect(await markdown.text()).toBe(FIGURES_MD);
  }, 120_000);

  it('contrib mineru (queue mode): one batch of the waiting papers, each uploaded', async () => {
    const running = env.run(['contrib', 'mineru']);
    let batch: (typeof env.contributorMineru.batches)[number] | undefined;
    await until(
      'the queue-mode batch',
      () => {
        batch = env.contributorMineru.batches.find((b) =>
          queued.every((id) => b.entries.some((e) => e.data_id === id)),
        );
        return batch !== undefined;
      },
      120_000,
      20,
    );
    for (const entry of batch!.entries) {
      entry.zip = resultZip(`# ${entry.data_id}\n\nQueued conversion.\n`);
      entry.state = 'done';
    }
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    for (const id of queued) {
      const markdown = await env.stack.s.get(`/api/papers/${id}/markdown`);
      expect(markdown.status).toBe(200);
      expect(await markdown.text()).toBe(`# ${id}\n\nQueued conversion.\n`);
    }
    const needs = (await (await env.stack.s.get('/api/papers/needs-mineru')).json()) as { papers: unknown[] };
    expect(needs.papers).toEqual([]);
  }, 180_000);

  it('paper get markdown by versionless id and by DOI (the DOI paper is fetched and converted by the server)', async () => {
    const out = path.join(env.home, 'by-id.md');
    const byId = await env.run(['paper', 'get', 'markdown', withFigures.replace(/v1$/, ''), '--output', out]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(FIGURES_MD);

    addPaper(env.stack.d.arxiv, byDoi);
    env.stack.d.openalex.works.set(doi, arxivWork(doi, byDoi, 'Found by DOI'));
    const doiOut = path.join(env.home, 'by-doi.md');
    const viaDoi = await env.run(['paper', 'get', 'markdown', doi, '--output', doiOut]);
    expect(viaDoi.code, viaDoi.stderr).toBe(0);
    const stored = await env.stack.s.get(`/api/papers/${byDoi}v1/markdown`);
    expect(stored.status).toBe(200);
    expect(await readFile(doiOut, 'utf8')).toBe(await stored.text());
  }, 180_000);

  it('paper status A B: the batch probe, in request order', async () => {
    const run = await env.run(['paper', 'status', withFigures, '2501.99999v1']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      results: [
        expect.objectContaining({
          requested_id: withFigures,
          resolved_id: withFigures,
          md_ready: true,
          state: 'cached',
        }),
        expect.objectContaining({ requested_id: '2501.99999v1', md_ready: false, state: 'none', error: '' }),
      ],
    });
  }, 60_000);

  it('paper get figures: the figures with their captions and image URLs', async () => {
    const run = await env.run(['paper', 'get', 'figures', withFigures]);
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout) as {
      figures: { fig_no: number; caption: string; images: { name: string }[] }[];
    };
    expect(body.figures.map((f) => [f.fig_no, f.caption, f.images.map((i) => i.name)])).toEqual([
      [1, 'Figure 1: Two panels of the circuit.', ['a.png', 'b.png']],
      [2, '图 2: 中文的图注', ['c.png']],
    ]);
  }, 60_000);

  it('paper get image and paper get images: the stored bytes, and the zip the server serves', async () => {
    const image = path.join(env.home, 'b.png');
    const one = await env.run(['paper', 'get', 'image', withFigures, 'b.png', '-o', image]);
    expect(one.code, one.stderr).toBe(0);
    expect((await readFile(image)).equals(IMAGES['b.png'])).toBe(true);

    const zip = path.join(env.home, 'images.zip');
    const all = await env.run(['paper', 'get', 'images', withFigures, '-o', zip]);
    expect(all.code, all.stderr).toBe(0);
    const served = await env.stack.s.get(`/api/papers/${withFigures}/images/zip`);
    expect(served.status).toBe(200);
    expect((await readFile(zip)).equals(Buffer.from(await served.arrayBuffer()))).toBe(true);
  }, 60_000);

  it('paper get metadata: the registry record with versions', async () => {
    const run = await env.run(['paper', 'get', 'metadata', withFigures]);
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout) as {
      preprint_id: string;
      versions: { version: number; has_md: boolean }[];
      metadata: { title: string; authors: string[]; source: string };
    };
    expect(body.preprint_id).toBe(withFigures.replace(/v1$/, ''));
    expect(body.metadata).toMatchObject({
      title: 'Figures of merit for surface codes',
      authors: ['Ada Lovelace', 'Alan Turing'],
      source: 'arxiv',
    });
    expect(body.versions).toEqual([expect.objectContaining({ version: 1, has_md: true, has_pdf: true })]);
  }, 60_000);

  it('paper list: the stored papers, and --json the body', async () => {
    const run = await env.run(['paper', 'list', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout) as { items: { preprint_id: string }[]; total: number };
    expect(body.items.map((i) => i.preprint_id).sort()).toEqual([withFigures, ...queued, `${byDoi}v1`].sort());
    const text = await env.run(['paper', 'list', '-q', 'figures of MERIT']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(
      '1 paper(s) (page 1, 20 per page)\n  2505.00001v1 md:yes ready   Figures of merit for surface codes\n',
    );
  }, 60_000);

  it('paper lookup: hosted, not hosted and unresolved references', async () => {
    const run = await env.run(['paper', 'lookup', `arxiv:${withFigures}`, 'arxiv:2501.99998', 'isbn:123']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `arxiv:${withFigures}: hosted, markdown ready (2025) — Figures of merit for surface codes`,
    );
    expect(run.stdout).toContain('isbn:123: unresolved');
  }, 60_000);

  it('paper fetch: jobs are started for the good items, a bad item fails alone; paper jobs lists them', async () => {
    addPaper(env.stack.d.arxiv, '2505.00005');
    const run = await env.run(['paper', 'fetch', '2505.00005', 'https://arxiv.org/abs/2505.00005', 'not-a-paper']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('failed   not-a-paper');
    expect(run.stdout).toMatch(/enqueued [12]\/3/);
    const converted = async () => {
      const status = await env.stack.s.get('/api/papers/2505.00005v1/markdown/status');
      return ((await status.json()) as { state: string }).state === 'cached';
    };
    await until('the fetched paper converted', converted, 120_000, 20);

    const jobs = await env.run(['paper', 'jobs']);
    expect(jobs.code, jobs.stderr).toBe(0);
    expect(jobs.stdout).toContain('counters: ');
    expect(jobs.stdout).toContain('2505.00005v1 state=done');
  }, 180_000);
});

describe('quantum-atlas 0.20 against pksd', () => {
  let env: Env;
  const id = '2506.00001v1';

  beforeAll(async () => {
    env = await setUp('quantum-atlas');
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  it('auth login --with-token, contrib pdf, paper get markdown (the server converts it)', async () => {
    await login(env);
    await contribPdf(env, id);
    const out = path.join(env.home, 'paper.md');
    const run = await env.run(['paper', 'get', 'markdown', id, '--output', out]);
    expect(run.code, run.stderr).toBe(0);
    const stored = await env.stack.s.get(`/api/papers/${id}/markdown`);
    expect(stored.status).toBe(200);
    expect(await readFile(out, 'utf8')).toBe(await stored.text());
  }, 180_000);

  it('ingest sends no token: 401, and no task is created', async () => {
    const run = await env.run(['ingest', '2506.00002', '--no-poll']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('401');
    const tasks = await env.stack.s.fetch('/api/ingests', { headers: AUTH });
    expect(tasks.status).toBe(200);
    expect(JSON.stringify(await tasks.json())).not.toContain('2506.00002');
  }, 60_000);
});
