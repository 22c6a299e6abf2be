/**
 * The original service's published clients, unchanged (CONTRACT §19): `qatlas contrib mineru <id>` from
 * `quantum-atlas` 0.20.0 claims the paper through `mineru-claim`, from `qatlas-cli` 0.34.0 through
 * `/api/v1/papers/{id}/mineru-lease`; each hands the claim's `pdf_url` (the arXiv double) to
 * the MinerU double, and uploads the result zip through `upload-mineru` as `mineru_zip`. The clients are installed
 * by scripts/install-test-deps.sh.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qatlasClientMissing, runQatlas, writeQatlasConfig, type QatlasClient } from '../../support/qatlas-clients.js';
import { startArxivDouble, type ArxivDouble } from '../../support/upstreams/arxiv.js';
import { startMineruDouble, type MineruDouble } from '../../support/upstreams/mineru.js';
import { addPaper } from '../access/support/papers.js';
import { AUTH, PAT, sha, startBackend, storedBytes, uploadPdf, type Backend } from './helpers.js';

const MINERU_TOKEN = 'mineru-token-for-original-clients';

const CLIENTS: readonly [QatlasClient, string][] = [
  ['quantum-atlas', '2504.00001'],
  ['qatlas-cli', '2504.00002'],
];

describe.each(CLIENTS)('qatlas contrib mineru (%s) against pksd', (client, versionless) => {
  const id = `${versionless}v1`;
  let arxiv: ArxivDouble;
  let mineru: MineruDouble;
  let b: Backend;
  let configHome: string;

  beforeAll(async () => {
    const missing = qatlasClientMissing(client);
    if (missing !== null) throw new Error(missing);
    arxiv = await startArxivDouble();
    mineru = await startMineruDouble();
    mineru.tokens.add(MINERU_TOKEN);
    b = await startBackend('local', null, { SVC_PREPRINT_BASE_URL: `${arxiv.baseUrl}/` });
    configHome = await mkdtemp(path.join(os.tmpdir(), 'pks-qatlas-'));
    writeQatlasConfig(configHome, {
      serverUrl: b.server.url,
      token: PAT,
      mineruBaseUrl: mineru.baseUrl,
      mineruToken: MINERU_TOKEN,
    });
  });
  afterAll(async () => {
    await b?.close();
    await mineru?.close();
    await arxiv?.close();
    if (configHome) await rm(configHome, { recursive: true, force: true });
  });

  it('claims, converts and uploads; the markdown and image are stored and the claim is gone', async () => {
    const pdf = addPaper(arxiv, versionless).get(1)!;
    expect((await uploadPdf(b.server, id, pdf)).status).toBe(201);

    const run = await runQatlas(client, ['contrib', 'mineru', id], configHome);
    expect(run.stderr).not.toContain('[skip]');
    expect(run.code, run.stderr).toBe(0);
    const uploaded = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(uploaded).toMatchObject({ preprint_id: id, image_count: 1, source: 'mineru', overwritten: false });

    // The client fetched the claim's pdf_url to check its sha256, and MinerU was given that URL with its token.
    expect(arxiv.requestsTo('pdf').map((r) => r.url)).toContain(`/pdf/${id}`);
    expect(mineru.creations).toEqual([expect.objectContaining({ token: MINERU_TOKEN, accepted: true })]);
    const markdown = await storedBytes(b.store, `markdown/${id.slice(0, 4)}/${id}.md`);
    expect(markdown?.toString()).toContain('Converted text.');
    expect(sha(markdown!)).toBe(uploaded['markdown_sha256']);

    const queue = await b.server.fetch('/api/papers/needs-mineru?include_claimed=true', { headers: AUTH });
    const { papers } = (await queue.json()) as { papers: { preprint_id: string }[] };
    expect(papers.map((p) => p.preprint_id)).not.toContain(id);
  }, 120_000);

  it('a paper already converted is a skip (the claim alias answers 404), exit 0, nothing sent to MinerU', async () => {
    const before = mineru.creations.length;
    const run = await runQatlas(client, ['contrib', 'mineru', id], configHome);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`[skip] ${id}: skip (HTTP 404): ${id} cannot be claimed: markdown already exists`);
    expect(mineru.creations.length).toBe(before);
  }, 120_000);
});
