/** `pks contrib parser <id>`: claim, check, parse, upload, with the claim released on every failure (§16.5). */
import path from 'node:path';
import { EXIT, QuotaExhaustedError } from '../../../errors.js';
import { IN_FLIGHT_STATES, ParserCallError, type ParserTask } from '../../../../parser-api/client.js';
import { classifyParserText } from '../../../../parser-api/classify.js';
import { ByteMeter } from '../../../progress/line.js';
import type { Claim } from './claims.js';
import {
  DAILY_LIMIT_MESSAGE,
  downloadZipTo,
  withNextToken,
  withTempDir,
  zipName,
  type Contributor,
} from './contributor.js';
import { uploadParserZip } from './upload.js';
import { vetClaim } from './vetting.js';

/** A failure of this paper: the claim is released and the command exits 1 with `message`. */
class PaperFailure extends Error {}

export async function runSingle(c: Contributor, id: string): Promise<number> {
  const { ctx } = c;
  const vetting = await vetClaim(c, id);
  if (vetting.kind === 'skip') {
    ctx.io.stderr(`${vetting.line}\n`);
    return EXIT.ok;
  }
  const { claim } = vetting;
  try {
    if (vetting.kind === 'refused') throw new PaperFailure(vetting.problem);
    // Say what is happening, as the original client does: the claim taken, what goes to the parser.
    ctx.io.stderr(
      `Claim taken for ${claim.preprint_id} (claim ${claim.claim_id}, expires ${claim.expires_at}); ` +
        `submitting ${claim.pdf_url} to the parser.\n`,
    );
    const zipUrl = await parseClaim(c, claim);
    return await withTempDir(!c.input.push, async (dir) => {
      const zip = path.join(dir, zipName(claim.key));
      await downloadZipTo(c, zipUrl, zip);
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
      ctx.io.stderr(`Uploaded ${claim.preprint_id}; the server released the claim. The upload's answer:\n`);
      ctx.io.stdout(`${JSON.stringify(uploaded.body, null, 2)}\n`);
      return EXIT.ok;
    });
  } catch (err) {
    c.progress.end();
    await c.claims.release(claim);
    if (err instanceof QuotaExhaustedError) throw err;
    if (err instanceof PaperFailure || err instanceof ParserCallError) {
      ctx.io.stderr(`${err.message}\n`);
      return EXIT.failure;
    }
    throw err;
  }
}

/** Steps (4)–(5): submit and poll; resolves to the result zip URL. */
async function parseClaim(c: Contributor, claim: Claim): Promise<string> {
  const { config } = c;
  const deadline = Date.now() + config.parserTimeout * 1000;
  for (;;) {
    const { token, taskId } = await submit(c, claim);
    const result = await poll(c, token, taskId, deadline);
    if (result === 'daily_limit') {
      // Daily limit while converting: cool this token and run the same request with the next one.
      c.ring.coolDown(token);
      continue;
    }
    if (result.state === 'done' && result.fullZipUrl) return result.fullZipUrl;
    const kind = result.state === 'failed' ? classifyParserText(result.errMsg) : 'retryable';
    if (kind !== 'daily_limit') {
      throw new PaperFailure(`parser failed on ${claim.preprint_id} (${kind}): ${result.errMsg || result.state}`);
    }
    c.ring.coolDown(token);
  }
}

/** Submits with the next token, rotating past tokens at their daily limit; none left → quota exhausted. */
async function submit(c: Contributor, claim: Claim): Promise<{ token: string; taskId: string }> {
  const submitted = await withNextToken(c, (token) =>
    c.parser.submitTask(token, { url: claim.pdf_url, data_id: claim.key }, c.parserOptions, c.signal),
  );
  if (submitted === null) throw new QuotaExhaustedError(DAILY_LIMIT_MESSAGE);
  return { token: submitted.token, taskId: submitted.value };
}

/** Polls the task until it leaves the in-flight states, or until the token answers with its daily limit. */
async function poll(
  c: Contributor,
  token: string,
  taskId: string,
  deadline: number,
): Promise<ParserTask | 'daily_limit'> {
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new PaperFailure(`parser timed out after ${c.config.parserTimeout}s (task ${taskId})`);
    await c.ctx.sleep(Math.min(c.pollIntervalS * 1000, remaining), c.signal);
    let result: ParserTask;
    try {
      result = await c.parser.getTask(token, taskId, c.signal);
    } catch (err) {
      if (!(err instanceof ParserCallError)) throw err;
      if (err.errorClass === 'daily_limit') return 'daily_limit';
      if (err.errorClass === 'fatal') throw err;
      continue; // transient: poll again
    }
    const pages = result.totalPages ? ` [${result.extractedPages ?? 0}/${result.totalPages}]` : '';
    c.progress.eventOnChange(`parser state: ${result.state}${pages}`);
    if (!IN_FLIGHT_STATES.has(result.state)) {
      c.progress.end();
      return result;
    }
  }
}
