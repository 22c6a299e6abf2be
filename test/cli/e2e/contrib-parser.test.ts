/**
 * `pks contrib parser` (CONTRACT §16.5) end to end: the built client against a real pksd (claims, uploads),
 * the arXiv double (the claim's pdf_url) and the MinerU double (single tasks and batches).
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeZip } from '../../server/papers/zip.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { fakePdf, startArxivDouble, type ArxivDouble } from '../../support/upstreams/arxiv.js';
import { startMineruDouble, type MineruDouble, type MineruTask } from '../../support/upstreams/mineru.js';
import { makeHome, pks, spawnPks, waitForOutput, writeConfig, type PksHome } from '../support/pks.js';

const PAT = 'cli-system-pat-0123456789';
const AUTH = { authorization: `Bearer ${PAT}` };
let srv: TestServer;
let arxiv: ArxivDouble;
let mineru: MineruDouble;
let h: PksHome;
let n = 0;

beforeAll(async () => {
  [arxiv, mineru] = await Promise.all([startArxivDouble(), startMineruDouble()]);
  srv = await startTestServer({ SVC_SYSTEM_PAT: PAT, SVC_PREPRINT_BASE_URL: arxiv.baseUrl });
  mineru.tokens.add('tok-a').add('tok-b');
});
afterAll(async () => {
  await srv.close();
  await Promise.all([arxiv.close(), mineru.close()]);
});
beforeEach(() => {
  h = makeHome();
});
afterEach(async () => {
  h.cleanup();
  // Leave no paper waiting for the parser: queue-mode tests see only their own papers.
  const res = await srv.fetch('/api/papers/needs-parser?limit=100&include_claimed=true', { headers: AUTH });
  for (const p of (await res.json()).papers as { preprint_id: string }[]) await finish(p.preprint_id);
});

const config = (extra = '', parser = mineru.baseUrl, tokens = '[tok-a]') =>
  writeConfig(
    h,
    `server_url: ${srv.url}\nparser_api_base_url: ${parser}\nparser_api_tokens: ${tokens}\nparser_poll_interval: 0.2\n${extra}`,
  );
const login = () => pks(h, ['auth', 'login', '--with-token'], { stdin: PAT });

/** A paper with a stored PDF that arXiv serves with the same bytes. */
async function paper(): Promise<string> {
  const number = String(100 + ++n).padStart(5, '0');
  const id = `2502.${number}v1`;
  const bytes = fakePdf(id);
  arxiv.papers.set(`2502.${number}`, { latestVersion: 1, pdfs: new Map([[1, bytes]]) });
  const form = new FormData();
  form.append('pdf', new Blob([bytes], { type: 'application/pdf' }), `${id}.pdf`);
  const res = await srv.fetch(`/api/papers/${id}/upload-pdf`, { method: 'POST', body: form, headers: AUTH });
  expect(res.status).toBe(201);
  return id;
}

const resultZip = (title: string) =>
  makeZip([
    { name: 'out/full.md', content: `# ${title}\n\n![f](images/f1.png)\n` },
    { name: 'out/images/f1.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]) },
    { name: 'out/layout.json', content: '{}' },
  ]);

/** The claim state the server reports for a paper. */
async function claimOf(id: string): Promise<{ claimed: boolean } | undefined> {
  const res = await srv.fetch('/api/papers/needs-parser?limit=100&include_claimed=true', { headers: AUTH });
  return ((await res.json()).papers as { preprint_id: string; claimed: boolean }[]).find((p) => p.preprint_id === id);
}

/** Stores markdown for a paper so it leaves the queue (first dropping any claim). */
async function finish(id: string): Promise<void> {
  const form = new FormData();
  form.append('parser_zip', new Blob([resultZip(id)], { type: 'application/zip' }), 'r.zip');
  await srv.fetch(`/api/papers/${id}/upload-parser?overwrite=true`, { method: 'POST', body: form, headers: AUTH });
}

afterEach(() => mineru.quota.clear());

async function taskFor(id: string, timeoutMs = 20_000): Promise<MineruTask> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = [...mineru.tasks.values()].find((t) => t.request['data_id'] === id);
    if (task) return task;
    if (Date.now() > deadline) throw new Error(`no parser task for ${id}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('contrib parser <id> (single mode)', () => {
  it('claims, checks the PDF, submits, polls, uploads the zip; the server drops the claim; exit 0', async () => {
    const id = await paper();
    mineru.scripts.set(id, {
      states: ['pending', 'running', 'running', 'done'],
      totalPages: 12,
      zip: resultZip('Parsed'),
    });
    config();
    await login();
    const run = spawnPks(h, ['contrib', 'parser', id]);
    const task = await taskFor(id);
    expect(task.request).toEqual({
      url: `${arxiv.baseUrl}/pdf/${id}`,
      model_version: 'vlm',
      language: 'ch',
      enable_formula: true,
      enable_table: true,
      is_ocr: false,
      no_cache: false,
      data_id: id,
    });
    expect(task.token).toBe('tok-a');
    const result = await run.done;
    expect(result.code).toBe(0);
    const claim = /^Claim taken for (\S+) \(claim (\S+), expires (\S+)\); submitting (\S+) to the parser\.$/m.exec(
      result.stderr,
    );
    expect(claim?.slice(1)).toEqual([id, expect.any(String), expect.any(String), `${arxiv.baseUrl}/pdf/${id}`]);
    expect(result.stderr).toBe(
      `parser key ring: 1 key(s) loaded\n${claim![0]}\nparser state: pending\nparser state: running [2/12]\n` +
        `parser state: running [3/12]\nparser state: done\nUploaded ${id}; the server released the claim. ` +
        "The upload's answer:\n",
    );
    expect(JSON.parse(result.stdout)).toMatchObject({
      preprint_id: id,
      image_count: 1,
      source: 'pks-cli',
      markdown_unchanged: false,
    });
    expect(await claimOf(id)).toBeUndefined(); // markdown stored: off the queue, claim deleted
    const again = await srv.fetch(`/api/papers/${id}/parser-claim`, { method: 'POST', headers: AUTH });
    expect(await again.json()).toEqual({ detail: `${id} cannot be claimed: markdown already exists` });
    expect(arxiv.requests.filter((r) => r.url === `/pdf/${id}`)).toHaveLength(1); // the sha256 check
  });

  it('config values reach the parser request (model, language, OCR, formula, table, --no-cache)', async () => {
    const id = await paper();
    config(
      'parser_model_version: pipeline\nparser_language: en\nparser_is_ocr: "yes"\nparser_enable_formula: false\nparser_enable_table: off\n',
    );
    await login();
    expect((await pks(h, ['contrib', 'parser', id, '--no-cache', '--no-push'])).code).toBe(0);
    expect((await taskFor(id)).request).toMatchObject({
      model_version: 'pipeline',
      language: 'en',
      is_ocr: true,
      enable_formula: false,
      enable_table: false,
      no_cache: true,
    });
  });

  it('404 (no PDF) and 409 (held elsewhere) are skips, exit 0', async () => {
    config();
    await login();
    expect(await pks(h, ['contrib', 'parser', '2502.99999v1'])).toMatchObject({
      code: 0,
      stderr:
        'parser key ring: 1 key(s) loaded\n[skip] 2502.99999v1: HTTP 404: 2502.99999v1 cannot be claimed: no PDF stored; upload the PDF first (upload-pdf)\n',
    });
    const id = await paper();
    expect((await srv.fetch(`/api/papers/${id}/parser-claim`, { method: 'POST', headers: AUTH })).status).toBe(201);
    const held = await pks(h, ['contrib', 'parser', id]);
    expect(held.code).toBe(0);
    expect(held.stderr).toContain(`[skip] ${id}: HTTP 409: ${id} is already claimed\n`);
  });

  it('an untrusted pdf_url: the claim is released, nothing is parsed, exit 1; trusted_pdf_hosts admits it', async () => {
    const localhost = arxiv.baseUrl.replace('127.0.0.1', 'localhost');
    const other = await startTestServer({ SVC_SYSTEM_PAT: PAT, SVC_PREPRINT_BASE_URL: localhost });
    try {
      const id = '2502.00001v1';
      arxiv.papers.set('2502.00001', { latestVersion: 1, pdfs: new Map([[1, fakePdf(id)]]) });
      const form = new FormData();
      form.append('pdf', new Blob([fakePdf(id)]), 'p.pdf');
      await other.fetch(`/api/papers/${id}/upload-pdf`, { method: 'POST', body: form, headers: AUTH });
      const base = `server_url: ${other.url}\nparser_api_base_url: ${mineru.baseUrl}\nparser_api_tokens: [tok-a]\nparser_poll_interval: 0.2\n`;
      writeConfig(h, base);
      await login();
      const creations = mineru.creations.length;
      const run = await pks(h, ['contrib', 'parser', id]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `untrusted PDF URL for ${id}: ${localhost}/pdf/${id} (add its host to trusted_pdf_hosts to allow it)\n`,
      );
      expect(mineru.creations.length).toBe(creations);
      const claim = await other.fetch(`/api/papers/${id}/parser-claim`, { method: 'POST', headers: AUTH });
      expect(claim.status).toBe(201); // it was released
      const { claim_id } = await claim.json();
      await other.fetch(`/api/papers/${id}/parser-claim/${claim_id}`, { method: 'DELETE', headers: AUTH });
      writeConfig(h, `${base}trusted_pdf_hosts: localhost\n`);
      expect((await pks(h, ['contrib', 'parser', id, '--no-push'])).code).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('a PDF whose sha256 differs from the stored one: released, exit 1', async () => {
    const id = await paper();
    arxiv.papers.set(id.replace(/v1$/, ''), { latestVersion: 1, pdfs: new Map([[1, fakePdf('something else')]]) });
    config();
    await login();
    const run = await pks(h, ['contrib', 'parser', id]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `PDF sha256 mismatch: ${arxiv.baseUrl}/pdf/${id} served [0-9a-f]{64} but the server holds [0-9a-f]{64}\n`,
      ),
    );
    expect(await claimOf(id)).toMatchObject({ claimed: false });
  });

  it('daily limit at submit: the same request goes to the next token; every token cooling → released, exit 75', async () => {
    const id = await paper();
    config('', mineru.baseUrl, '[tok-a, tok-b]');
    await login();
    mineru.quota.set('tok-a', 0);
    const run = await pks(h, ['contrib', 'parser', id]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('parser key ring: 2 key(s) loaded\n');
    expect(mineru.creations.filter((c) => c.dataId === id)).toEqual([
      { token: 'tok-a', dataId: id, accepted: false },
      { token: 'tok-b', dataId: id, accepted: true },
    ]);
    const other = await paper();
    mineru.quota.set('tok-b', 0);
    const limited = await pks(h, ['contrib', 'parser', other]);
    expect(limited.code).toBe(75);
    expect(limited.stderr).toContain('[daily-limit] parser quota exhausted; exiting 75. Re-run after local 00:01.\n');
    expect(await claimOf(other)).toMatchObject({ claimed: false });
  });

  it('daily limit while converting: resubmitted with the next token; none left → released, exit 75', async () => {
    const id = await paper();
    config('', mineru.baseUrl, '[tok-a, tok-b]');
    await login();
    mineru.failNextPoll({ code: -60018, msg: 'daily task limit reached' });
    expect((await pks(h, ['contrib', 'parser', id])).code).toBe(0);
    expect(mineru.creations.filter((c) => c.dataId === id).map((c) => c.token)).toEqual(['tok-a', 'tok-b']);
    const other = await paper();
    mineru.scripts.set(other, {
      states: ['pending', 'failed'],
      errMsg: 'Your daily quota is used up; try again tomorrow',
    });
    const limited = await pks(h, ['contrib', 'parser', other]);
    expect(limited.code).toBe(75);
    expect(mineru.creations.filter((c) => c.dataId === other).map((c) => c.token)).toEqual(['tok-a', 'tok-b']);
    expect(await claimOf(other)).toMatchObject({ claimed: false });
  });

  it.each([
    ['fatal', 'file size exceeds the limit'],
    ['unclassified', 'conversion failed (HTTP 503)'],
  ])('a %s parser failure: released, exit 1', async (kind, message) => {
    const id = await paper();
    mineru.scripts.set(id, { states: ['pending', 'failed'], errMsg: message });
    config();
    await login();
    const result = await pks(h, ['contrib', 'parser', id]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`parser failed on ${id} (${kind}): ${message}\n`);
    expect(await claimOf(id)).toMatchObject({ claimed: false });
  });

  it('--no-push: releases the claim and prints the zip path; nothing is uploaded', async () => {
    const id = await paper();
    const zip = resultZip('kept');
    mineru.scripts.set(id, { states: ['done'], zip });
    config();
    await login();
    const result = await pks(h, ['contrib', 'parser', id, '--no-push']);
    expect(result.code).toBe(0);
    expect(readFileSync(result.stdout.trim())).toEqual(zip);
    expect(await claimOf(id)).toMatchObject({ claimed: false });
  });

  it('an upload the server refuses: released, exit 1', async () => {
    const id = await paper();
    mineru.scripts.set(id, { states: ['done'], zip: makeZip([{ name: 'notes.txt', content: 'no markdown here' }]) });
    config();
    await login();
    const result = await pks(h, ['contrib', 'parser', id]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Upload failed: HTTP 400 Bad Request\n\{\n {2}"detail": ".*full\.md/);
    expect(await claimOf(id)).toMatchObject({ claimed: false });
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('%s while polling: the claim is released, exit 130', async (signal) => {
    const id = await paper();
    mineru.scripts.set(id, { states: ['pending'] });
    config();
    await login();
    const run = spawnPks(h, ['contrib', 'parser', id]);
    await waitForOutput(run, (o) => o.stderr.includes('parser state: pending'));
    expect(await claimOf(id)).toMatchObject({ claimed: true });
    run.child.kill(signal);
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`Interrupted (${signal}). Released 1 claim(s).\n`);
    expect(await claimOf(id)).toMatchObject({ claimed: false });
  });

  it('no parser_api_tokens → exit 1 before any request', async () => {
    writeConfig(h, `server_url: ${srv.url}\n`);
    expect(await pks(h, ['contrib', 'parser', '2502.00001v1'])).toMatchObject({
      code: 1,
      stderr: 'parser_api_tokens must be set in your config (pks config set parser_api_tokens)\n',
    });
  });
});

describe('contrib parser (queue mode)', () => {
  const batchFor = async (ids: string[]) => {
    for (let i = 0; i < 1000; i++) {
      const found = mineru.batches.find((b) => ids.every((id) => b.entries.some((e) => e.data_id === id)));
      if (found) return found;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no batch');
  };
  const entry = (b: Awaited<ReturnType<typeof batchFor>>, id: string) => b.entries.find((e) => e.data_id === id)!;

  it('an empty queue → "Nothing to do …", exit 0', async () => {
    config();
    await login();
    expect(await pks(h, ['contrib', 'parser'])).toMatchObject({
      code: 0,
      stderr:
        'parser key ring: 1 key(s) loaded\nNothing to do — no papers are waiting for the parser. (unclaimed=0, claimed=0)\n',
    });
  });

  it('one batch: done → uploaded; fatal → claim kept; unclassified → released; exit 1 for the failures', async () => {
    const [a, b, c] = [await paper(), await paper(), await paper()];
    config();
    await login();
    const run = spawnPks(h, ['contrib', 'parser', '--batch-size', '80']);
    const job = await batchFor([a, b, c]);
    expect(job.request).toMatchObject({ model_version: 'vlm', language: 'ch', no_cache: false });
    expect(job.entries.map((e) => e.url).sort()).toEqual([a, b, c].map((id) => `${arxiv.baseUrl}/pdf/${id}`).sort());
    await waitForOutput(run, (o) => o.stderr.includes('Batch progress: 0 done, 3 still in flight'));
    entry(job, a).zip = resultZip('A');
    entry(job, a).state = 'done';
    entry(job, b).err_msg = 'number of pages exceeds the limit';
    entry(job, b).state = 'failed';
    entry(job, c).err_msg = 'service busy (HTTP 503)';
    entry(job, c).state = 'failed';
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${a}: uploaded\n`);
    expect(await claimOf(a)).toBeUndefined();
    expect(await claimOf(b)).toMatchObject({ claimed: true }); // fatal: the lease runs out, the paper does not loop
    expect(await claimOf(c)).toMatchObject({ claimed: false });
  }, 30_000);

  it('the vetting of single mode: a sha256 mismatch fails that paper (released); the others form the batch', async () => {
    const [good, bad] = [await paper(), await paper()];
    arxiv.papers.set(bad.replace(/v1$/, ''), { latestVersion: 1, pdfs: new Map([[1, fakePdf('something else')]]) });
    config();
    await login();
    const run = spawnPks(h, ['contrib', 'parser']);
    const job = await batchFor([good]);
    expect(job.entries.map((e) => e.data_id)).toEqual([good]);
    entry(job, good).zip = resultZip('Good');
    entry(job, good).state = 'done';
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `PDF sha256 mismatch: ${arxiv.baseUrl}/pdf/${bad} served [0-9a-f]{64} but the server holds [0-9a-f]{64}\n`,
      ),
    );
    expect(result.stderr).toContain(`${good}: uploaded\n`);
    expect(await claimOf(bad)).toMatchObject({ claimed: false });
    expect(await claimOf(good)).toBeUndefined();
  }, 30_000);

  it('a daily-limit failure in the batch: every held claim released, exit 75', async () => {
    const [a, b] = [await paper(), await paper()];
    config();
    await login();
    const run = spawnPks(h, ['contrib', 'parser']);
    const job = await batchFor([a, b]);
    entry(job, a).err_msg = '今日额度已用完';
    entry(job, a).state = 'failed';
    const result = await run.done;
    expect(result.code).toBe(75);
    expect(result.stderr).toContain('[daily-limit] parser quota exhausted; exiting 75. Re-run after local 00:01.\n');
    expect(await claimOf(a)).toMatchObject({ claimed: false });
    expect(await claimOf(b)).toMatchObject({ claimed: false });
  });

  it('daily limit at batch submit on every token → every claim released, exit 75', async () => {
    const [a, b] = [await paper(), await paper()];
    config('', mineru.baseUrl, '[tok-a, tok-b]');
    await login();
    mineru.batchCreateFailures.push({ code: -60018, msg: 'limit' }, { code: 'x', msg: '', status: 429 });
    const result = await pks(h, ['contrib', 'parser']);
    expect(result.code).toBe(75);
    expect(await claimOf(a)).toMatchObject({ claimed: false });
    expect(await claimOf(b)).toMatchObject({ claimed: false });
  });

  it('SIGINT while the batch runs: every claim released, exit 130', async () => {
    const [a, b] = [await paper(), await paper()];
    config();
    await login();
    const run = spawnPks(h, ['contrib', 'parser']);
    await batchFor([a, b]);
    await waitForOutput(run, (o) => o.stderr.includes('Batch progress:'));
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('Interrupted (SIGINT). Released 2 claim(s).\n');
    expect(await claimOf(a)).toMatchObject({ claimed: false });
    expect(await claimOf(b)).toMatchObject({ claimed: false });
  });
});

describe('contrib parser --watch', () => {
  it('processes, sleeps, reports an empty queue once, and exits 0 after the first SIGINT', async () => {
    const a = await paper();
    config();
    await login();
    const run = spawnPks(h, ['contrib', 'parser', '--watch', '--watch-interval', '1']);
    const job = await (async () => {
      for (;;) {
        const found = mineru.batches.find((b) => b.entries.some((e) => e.data_id === a));
        if (found) return found;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    job.entries[0]!.zip = resultZip('A');
    job.entries[0]!.state = 'done';
    await waitForOutput(run, (o) =>
      o.stderr.includes('Batch done: 1 processed, 0 failures. Sleeping 1s before next poll.\n'),
    );
    await waitForOutput(run, (o) => o.stderr.includes('Queue empty. Will keep polling.\n'));
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Watch loop exiting cleanly.\n');
    expect(result.stderr.split('Queue empty. Will keep polling.').length).toBe(2);
  }, 30_000);

  it('after a daily-limit pass it sleeps until 00:01 local tomorrow, saying when; a signal then exits 0', async () => {
    const a = await paper();
    config();
    await login();
    mineru.batchCreateFailures.push({ code: -60018, msg: 'daily task limit reached' });
    const run = spawnPks(h, ['contrib', 'parser', '--watch']);
    await waitForOutput(run, (o) =>
      /\[daily-limit\] parser quota exhausted; sleeping until \d{4}-\d\d-\d\d \d\d:\d\d local\.\n/.test(o.stderr),
    );
    expect(await claimOf(a)).toMatchObject({ claimed: false });
    run.child.kill('SIGTERM');
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Watch loop exiting cleanly.\n');
  });

  it('a second signal during a pass releases the held claims, exit 130', async () => {
    const a = await paper();
    config();
    await login();
    const run = spawnPks(h, ['contrib', 'parser', '--watch']);
    await waitForOutput(run, (o) => o.stderr.includes('Batch progress:'));
    run.child.kill('SIGINT');
    await waitForOutput(run, (o) => o.stderr.includes('finishing the current pass'));
    run.child.kill('SIGTERM');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(await claimOf(a)).toMatchObject({ claimed: false });
    expect(existsSync(h.configPath)).toBe(true);
  });
});
