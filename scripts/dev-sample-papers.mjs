#!/usr/bin/env node
/**
 * Stores the sample papers (assets/sample-papers: PDF, then the parser's result zip with markdown and figures) in
 * a starting development server, through its API with the system PAT — the path any contributor's upload takes,
 * so the metadata cache, the index and the graph are filled as for a real upload. scripts/dev-server.sh runs it in
 * the background on every start; the bytes are the same each time, so a second run changes nothing (200).
 *
 *   node scripts/dev-sample-papers.mjs <base URL> <env file with SVC_SYSTEM_PAT>
 *
 * Waits up to three minutes for the server to answer, then exits: 0 when every paper is stored, 1 otherwise.
 */
import { readFileSync } from 'node:fs';
import { register } from 'node:module';

register('../test/support/upstreams/ts-loader.mjs', import.meta.url);
const { samplePapers } = await import('./lib/sample-papers.mjs');

const [base, envFile] = process.argv.slice(2);
if (!base || !envFile) {
  console.error('usage: dev-sample-papers.mjs <base URL> <env file>');
  process.exit(2);
}
const pat = /^SVC_SYSTEM_PAT=(.*)$/m.exec(readFileSync(envFile, 'utf8'))?.[1]?.trim();
if (!pat) {
  console.error(`dev-sample-papers: no SVC_SYSTEM_PAT in ${envFile}`);
  process.exit(2);
}

const deadline = Date.now() + 180_000;
for (;;) {
  const up = await fetch(`${base}/api/health`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) break;
  if (Date.now() > deadline) {
    console.error(`dev-sample-papers: ${base} did not answer within three minutes; no sample paper stored`);
    process.exit(1);
  }
  await new Promise((resolve) => setTimeout(resolve, 250));
}

/** POSTs one file as the multipart part `part`; returns the answer's status and body. */
async function upload(id, kind, part, bytes, type) {
  const boundary = `----pks-dev-${Math.random().toString(16).slice(2)}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${part}"; filename="${part}.bin"\r\nContent-Type: ${type}\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  // The parser upload records where it came from (CONTRACT §9.4 `source`).
  const query = kind === 'parser' ? '?source=dev-server' : '';
  const res = await fetch(`${base}/api/papers/${id}/upload-${kind}${query}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${pat}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body,
  });
  return { status: res.status, body: await res.text() };
}

let failed = 0;
for (const paper of samplePapers()) {
  const pdf = await upload(paper.preprintId, 'pdf', 'pdf', paper.pdf, 'application/pdf');
  const parsed =
    pdf.status < 300 ? await upload(paper.preprintId, 'parser', 'parser_zip', paper.zip, 'application/zip') : pdf;
  if (parsed.status < 300) {
    console.error(`dev-sample-papers: ${paper.preprintId} stored (${parsed.status === 200 ? 'unchanged' : 'new'})`);
  } else {
    failed++;
    console.error(`dev-sample-papers: ${paper.preprintId} not stored: ${parsed.status} ${parsed.body}`);
  }
}
process.exit(failed ? 1 : 0);
