/** `pks contrib parser <id>`: claim, check, parse, upload, with the claim released on every failure (§16.5). */
import path from 'node:path';
import { EXIT, QuotaExhaustedError } from '../../../errors.js';
import { IN_FLIGHT_STATES, ParserError, failureKind, type TaskResult } from '../../../parser/mineru.js';
import { ByteMeter } from '../../../progress/line.js';
import type { Claim } from './claims.js';
import { DAILY_LIMIT_MESSAGE, withNextToken, withTempDir, zipName, type Contributor } from './contributor.js';
import { checkPdfSha256 } from './pdf-check.js';
import { isTrustedPdfUrl } from './trust.js';
import { uploadParserZip } from './upload.js';

/** A failure of this paper: the claim is released and the command exits 1 with `message`. */
class PaperFailure extends Error {}

export async function runSingle(c: Contributor, id: string): Promise<number> {
  const { ctx } = c;
  const outcome = await c.claims.claim(id, c.signal);
  if ('skip' in outcome) {
    ctx.io.stderr(`${outcome.skip}\n`);
    return EXIT.ok;
  }
  const claim = outcome.claim;
  try {
    const zipUrl = await parseClaim(c, claim);
    return await withTempDir(!c.input.push, async (dir) => {
      const zip = path.join(dir, zipName(claim.key));
      await c.parser.downloadZip(zipUrl, zip, c.signal);
      if (!c.input.push) {
        await c.claims.release(claim);
        ctx.io.stdout(`${zip}\n`);
        return EXIT.ok;
      }
      const meter = new ByteMeter(c.progress, `uploading ${claim.preprint_id}`, null);
      const uploaded = await uploadParserZip(c.api, claim, zip, {
        overwrite: c.input.overwrite,
        pdfSha256: claim.pdf_sha256,
        meter,
        signal: c.signal,
      });
      c.progress.end();
      if (!uploaded.ok) throw new PaperFailure(uploaded.message);
      c.claims.forget(claim);
      ctx.io.stdout(`${JSON.stringify(uploaded.body, null, 2)}\n`);
      return EXIT.ok;
    });
  } catch (err) {
    c.progress.end();
    await c.claims.release(claim);
    if (err instanceof QuotaExhaustedError) throw err;
    if (err instanceof PaperFailure || err instanceof ParserError) {
      ctx.io.stderr(`${err.message}\n`);
      return EXIT.failure;
    }
    throw err;
  }
}

/** Steps (2)–(5): trust, hash, submit, poll; resolves to the result zip URL. */
async function parseClaim(c: Contributor, claim: Claim): Promise<string> {
  const { config } = c;
  if (!isTrustedPdfUrl(claim.pdf_url, config.baseUrl, config.trustedPdfHosts)) {
    throw new PaperFailure(
      `untrusted PDF URL for ${claim.preprint_id}: ${claim.pdf_url} (add its host to trusted_pdf_hosts to allow it)`,
    );
  }
  if (claim.pdf_sha256) {
    const problem = await checkPdfSha256(claim.pdf_url, claim.pdf_sha256, {
      insecure: config.insecure,
      timeoutMs: c.input.timeoutMs,
      signal: c.signal,
    });
    if (problem) throw new PaperFailure(problem);
  }
  const deadline = Date.now() + config.parserTimeout * 1000;
  for (;;) {
    const { token, taskId } = await submit(c, claim);
    const result = await poll(c, token, taskId, deadline);
    if (result.state === 'done' && result.full_zip_url) return result.full_zip_url;
    const kind = result.state === 'failed' ? failureKind(result) : 'retryable';
    if (kind !== 'daily_limit') {
      throw new PaperFailure(`parser failed on ${claim.preprint_id} (${kind}): ${result.err_msg || result.state}`);
    }
    // Daily limit while converting: cool this token and run the same request with the next one.
    c.ring.cool(token);
  }
}

/** Submits with the next token, rotating past tokens at their daily limit; none left → quota exhausted. */
async function submit(c: Contributor, claim: Claim): Promise<{ token: string; taskId: string }> {
  const submitted = await withNextToken(c, (token) =>
    c.parser.submitTask(token, { url: claim.pdf_url, dataId: claim.key }, c.signal),
  );
  if (submitted === null) throw new QuotaExhaustedError(DAILY_LIMIT_MESSAGE);
  return { token: submitted.token, taskId: submitted.value };
}

/** Polls the task until it leaves the in-flight states; daily-limit answers count as a failed task. */
async function poll(c: Contributor, token: string, taskId: string, deadline: number): Promise<TaskResult> {
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new PaperFailure(`parser timed out after ${c.config.parserTimeout}s (task ${taskId})`);
    await c.ctx.sleep(Math.min(c.pollIntervalS * 1000, remaining), c.signal);
    let result: TaskResult;
    try {
      result = await c.parser.getTask(token, taskId, c.signal);
    } catch (err) {
      if (!(err instanceof ParserError)) throw err;
      if (err.kind === 'daily_limit') return { state: 'failed', err_msg: `daily limit: ${err.message}` };
      if (err.kind === 'fatal') throw err;
      continue; // transient: poll again
    }
    const p = result.extract_progress;
    const pages = p && p.total_pages ? ` [${p.extracted_pages ?? 0}/${p.total_pages}]` : '';
    c.progress.eventOnChange(`parser state: ${result.state}${pages}`);
    if (!IN_FLIGHT_STATES.has(result.state)) {
      c.progress.end();
      return result;
    }
  }
}
