/** One pass over the needs-parser queue with one parser batch (CONTRACT §16.5 "Queue mode"). */
import path from 'node:path';
import { UnexpectedBodyError, VersionRefusedError } from '../../../errors.js';
import { IN_FLIGHT_STATES, ParserError, failureKind, type TaskResult } from '../../../parser/mineru.js';
import type { Claim } from './claims.js';
import { withNextToken, withTempDir, zipName, type Contributor } from './contributor.js';
import { checkPdfSha256 } from './pdf-check.js';
import { isTrustedPdfUrl } from './trust.js';
import { uploadParserZip } from './upload.js';

export interface PassResult {
  /** The queue was empty. */
  readonly empty: boolean;
  readonly processed: number;
  readonly failures: number;
  readonly dailyLimit: boolean;
}

interface NeedsParser {
  papers: { preprint_id: string }[];
  total_unclaimed: number;
  total_claimed: number;
}

export async function runQueuePass(c: Contributor, options: { quietEmpty?: boolean } = {}): Promise<PassResult> {
  const { ctx } = c;
  const { body: queue } = await c.api.json<NeedsParser>('GET', '/api/papers/needs-parser', {
    ok: [200],
    query: { limit: String(c.input.batchSize) },
    signal: c.signal,
  });
  if (!Array.isArray(queue.papers)) throw new UnexpectedBodyError('server answered 200 without a papers list');
  if (queue.papers.length === 0) {
    if (!options.quietEmpty)
      ctx.io.stderr(
        `Nothing to do — no papers are waiting for the parser. (unclaimed=${queue.total_unclaimed}, claimed=${queue.total_claimed})\n`,
      );
    return { empty: true, processed: 0, failures: 0, dailyLimit: false };
  }
  let failures = 0;
  const fail = async (claim: Claim | null, message: string, release = true) => {
    failures++;
    c.progress.message(message);
    if (claim && release) await c.claims.release(claim);
    else if (claim) c.claims.forget(claim);
  };

  // Claim and check every paper; survivors go into one batch.
  const survivors: Claim[] = [];
  for (const paper of queue.papers.slice(0, c.input.batchSize)) {
    let claim: Claim;
    try {
      const outcome = await c.claims.claim(paper.preprint_id, c.signal);
      if ('skip' in outcome) {
        c.progress.message(outcome.skip);
        continue;
      }
      claim = outcome.claim;
    } catch (err) {
      if (c.signal.aborted || err instanceof VersionRefusedError) throw err;
      await fail(null, `${paper.preprint_id}: claim failed: ${(err as Error).message}`);
      continue;
    }
    if (!isTrustedPdfUrl(claim.pdf_url, c.config.baseUrl, c.config.trustedPdfHosts)) {
      await fail(
        claim,
        `untrusted PDF URL for ${claim.preprint_id}: ${claim.pdf_url} (add its host to trusted_pdf_hosts)`,
      );
      continue;
    }
    if (claim.pdf_sha256) {
      let problem: string | null;
      try {
        problem = await checkPdfSha256(claim.pdf_url, claim.pdf_sha256, {
          insecure: c.config.insecure,
          timeoutMs: c.input.timeoutMs,
          signal: c.signal,
        });
      } catch (err) {
        if (c.signal.aborted) throw err;
        problem = `could not download ${claim.pdf_url}: ${(err as Error).message}`;
      }
      if (problem) {
        await fail(claim, problem);
        continue;
      }
    }
    survivors.push(claim);
  }
  if (survivors.length === 0) return { empty: false, processed: 0, failures, dailyLimit: false };

  let submitted: { token: string; value: string } | null;
  try {
    submitted = await withNextToken(c, (token) =>
      c.parser.submitBatch(
        token,
        survivors.map((claim) => ({ url: claim.pdf_url, dataId: claim.key })),
        c.signal,
      ),
    );
  } catch (err) {
    if (!(err instanceof ParserError)) throw err;
    for (const claim of survivors) await fail(claim, `${claim.preprint_id}: batch submit failed: ${err.message}`);
    return { empty: false, processed: 0, failures, dailyLimit: false };
  }
  if (submitted === null) {
    await c.claims.releaseAll();
    return { empty: false, processed: 0, failures, dailyLimit: true };
  }
  const { token, value: batchId } = submitted;

  const inFlight = new Map(survivors.map((claim) => [claim.key, claim]));
  let processed = 0;
  let done = 0;
  const deadline = Date.now() + c.config.parserTimeout * 1000;
  let dailyLimitHit = false;
  await withTempDir(!c.input.push, async (dir) => {
    while (inFlight.size > 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        for (const claim of [...inFlight.values()]) {
          inFlight.delete(claim.key);
          await fail(claim, `${claim.preprint_id}: parser timed out after ${c.config.parserTimeout}s`);
        }
        return;
      }
      const ids = [...inFlight.values()].map((claim) => claim.preprint_id);
      const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, ... (+${ids.length - 5} more)` : '');
      c.progress.eventOnChange(
        `Batch progress: ${done} done, ${inFlight.size} still in flight (${shown}); sleeping ${c.pollIntervalS}s.`,
      );
      await c.ctx.sleep(Math.min(c.pollIntervalS * 1000, remaining), c.signal);
      let results: TaskResult[] | null;
      try {
        results = await c.parser.getBatch(token, batchId, c.signal);
      } catch (err) {
        if (!(err instanceof ParserError)) throw err;
        if (err.kind === 'daily_limit') {
          c.ring.cool(token);
          await c.claims.releaseAll();
          throw new DailyLimitHit();
        }
        if (err.kind === 'fatal') {
          for (const claim of [...inFlight.values()]) await fail(claim, `${claim.preprint_id}: ${err.message}`);
          inFlight.clear();
          return;
        }
        continue; // transient: poll again
      }
      for (const result of results ?? []) {
        const claim = inFlight.get(result.data_id ?? '');
        if (!claim || IN_FLIGHT_STATES.has(result.state)) continue;
        inFlight.delete(claim.key);
        done++;
        if (result.state === 'done' && result.full_zip_url) {
          if (await deliver(c, claim, result.full_zip_url, dir)) processed++;
          else failures++;
          continue;
        }
        const kind = failureKind(result);
        if (kind === 'daily_limit') {
          c.ring.cool(token);
          failures++;
          await c.claims.release(claim);
          await c.claims.releaseAll();
          throw new DailyLimitHit();
        }
        // A fatal failure keeps the claim: the lease expires and the paper does not loop through the queue.
        await fail(
          claim,
          `${claim.preprint_id}: parser failed (${kind}): ${result.err_msg ?? ''}`.trimEnd(),
          kind !== 'fatal',
        );
      }
    }
  }).catch((err: unknown) => {
    if (!(err instanceof DailyLimitHit)) throw err;
    dailyLimitHit = true;
  });
  c.progress.end();
  return { empty: false, processed, failures, dailyLimit: dailyLimitHit };
}

class DailyLimitHit extends Error {}

/** Download and upload one finished paper; `false` (claim released) on failure. */
async function deliver(c: Contributor, claim: Claim, zipUrl: string, dir: string): Promise<boolean> {
  const zip = path.join(dir, zipName(claim.key));
  try {
    await c.parser.downloadZip(zipUrl, zip, c.signal);
    if (!c.input.push) {
      await c.claims.release(claim);
      c.progress.message(`${claim.preprint_id}: ${zip}`);
      return true;
    }
    const uploaded = await uploadParserZip(c.api, claim, zip, {
      overwrite: c.input.overwrite,
      pdfSha256: claim.pdf_sha256,
      signal: c.signal,
    });
    if (!uploaded.ok) {
      c.progress.message(`${claim.preprint_id}: ${uploaded.message}`);
      await c.claims.release(claim);
      return false;
    }
    c.claims.forget(claim);
    c.progress.message(`${claim.preprint_id}: uploaded`);
    return true;
  } catch (err) {
    if (c.signal.aborted || err instanceof VersionRefusedError) throw err;
    c.progress.message(`${claim.preprint_id}: ${(err as Error).message}`);
    await c.claims.release(claim);
    return false;
  }
}
