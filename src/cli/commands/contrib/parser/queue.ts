/** One pass over the needs-parser queue with one parser batch (CONTRACT §16.5 "Queue mode"). */
import path from 'node:path';
import type { NeedsParser } from '../../../../shared/api/parser-claims.js';
import { UnexpectedBodyError, VersionRefusedError } from '../../../errors.js';
import { IN_FLIGHT_STATES, ParserCallError, type ParserTask } from '../../../../parser-api/client.js';
import { classifyParserText } from '../../../../parser-api/classify.js';
import type { Claim } from './claims.js';
import { downloadZipTo, withNextToken, withTempDir, zipName, type Contributor } from './contributor.js';
import { uploadParserZip } from './upload.js';
import { vetClaim, type Vetting } from './vetting.js';

export interface PassResult {
  /** The queue was empty. */
  readonly empty: boolean;
  readonly processed: number;
  readonly failures: number;
  readonly dailyLimit: boolean;
}

export async function runQueuePass(c: Contributor, options: { quietEmpty?: boolean } = {}): Promise<PassResult> {
  const { body: queue } = await c.api.json<NeedsParser>('GET', '/api/papers/needs-parser', {
    ok: [200],
    query: { limit: String(c.input.batchSize) },
    signal: c.signal,
  });
  if (!Array.isArray(queue.papers)) throw new UnexpectedBodyError('server answered 200 without a papers list');
  if (queue.papers.length === 0) {
    if (!options.quietEmpty)
      c.ctx.io.stderr(
        `Nothing to do — no papers are waiting for the parser. (unclaimed=${queue.total_unclaimed}, claimed=${queue.total_claimed})\n`,
      );
    return { empty: true, processed: 0, failures: 0, dailyLimit: false };
  }
  const tally = new Tally(c);
  const ended = (dailyLimit: boolean): PassResult => ({
    empty: false,
    processed: tally.processed,
    failures: tally.failures,
    dailyLimit,
  });
  const survivors = await claimAll(
    c,
    queue.papers.slice(0, c.input.batchSize).map((paper) => paper.preprint_id),
    tally,
  );
  if (survivors.length === 0) return ended(false);
  const batch = await submitBatch(c, survivors, tally);
  if (batch === 'failed') return ended(false);
  if (batch === 'daily_limit') {
    await c.claims.releaseAll();
    return ended(true);
  }
  const dailyLimit = await followBatch(c, batch, survivors, tally);
  c.progress.end();
  return ended(dailyLimit);
}

/** A pass's count; a failed paper's claim is released, or kept (the lease runs out) when `release` is false. */
class Tally {
  processed = 0;
  failures = 0;

  constructor(private readonly c: Contributor) {}

  async fail(claim: Claim | null, message: string, release = true): Promise<void> {
    this.failures++;
    this.c.progress.message(message);
    if (claim && release) await this.c.claims.release(claim);
    else if (claim) this.c.claims.forget(claim);
  }
}

/** Claims and checks every paper (the vetting of single mode); the survivors go into one batch. */
async function claimAll(c: Contributor, ids: readonly string[], tally: Tally): Promise<Claim[]> {
  const survivors: Claim[] = [];
  for (const id of ids) {
    let vetting: Vetting;
    try {
      vetting = await vetClaim(c, id);
    } catch (err) {
      if (c.signal.aborted || err instanceof VersionRefusedError) throw err;
      await tally.fail(null, `${id}: claim failed: ${(err as Error).message}`);
      continue;
    }
    if (vetting.kind === 'skip') c.progress.message(vetting.line);
    else if (vetting.kind === 'refused') await tally.fail(vetting.claim, vetting.problem);
    else survivors.push(vetting.claim);
  }
  return survivors;
}

interface Batch {
  readonly token: string;
  readonly id: string;
}

/** One batch for the survivors, rotating past tokens at their daily limit; a refused batch fails every paper. */
async function submitBatch(
  c: Contributor,
  survivors: readonly Claim[],
  tally: Tally,
): Promise<Batch | 'failed' | 'daily_limit'> {
  let submitted: { token: string; value: string } | null;
  try {
    submitted = await withNextToken(c, (token) =>
      c.parser.submitBatch(
        token,
        survivors.map((claim) => ({ url: claim.pdf_url, data_id: claim.key })),
        c.parserOptions,
        c.signal,
      ),
    );
  } catch (err) {
    if (!(err instanceof ParserCallError)) throw err;
    for (const claim of survivors) await tally.fail(claim, `${claim.preprint_id}: batch submit failed: ${err.message}`);
    return 'failed';
  }
  return submitted === null ? 'daily_limit' : { token: submitted.token, id: submitted.value };
}

/** Polls the batch until every paper is delivered or failed, or the timeout; `true` when the daily limit ended it. */
async function followBatch(c: Contributor, batch: Batch, survivors: readonly Claim[], tally: Tally): Promise<boolean> {
  const inFlight = new Map(survivors.map((claim) => [claim.key, claim]));
  let done = 0;
  const deadline = Date.now() + c.config.parserTimeout * 1000;
  return withTempDir(!c.input.push, async (dir) => {
    while (inFlight.size > 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        for (const claim of [...inFlight.values()]) {
          inFlight.delete(claim.key);
          await tally.fail(claim, `${claim.preprint_id}: parser timed out after ${c.config.parserTimeout}s`);
        }
        return false;
      }
      const ids = [...inFlight.values()].map((claim) => claim.preprint_id);
      const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, ... (+${ids.length - 5} more)` : '');
      c.progress.eventOnChange(
        `Batch progress: ${done} done, ${inFlight.size} still in flight (${shown}); sleeping ${c.pollIntervalS}s.`,
      );
      await c.ctx.sleep(Math.min(c.pollIntervalS * 1000, remaining), c.signal);
      let results: ParserTask[] | null;
      try {
        results = await c.parser.getBatch(batch.token, batch.id, c.signal);
      } catch (err) {
        if (!(err instanceof ParserCallError)) throw err;
        if (err.errorClass === 'daily_limit') {
          c.ring.coolDown(batch.token);
          await c.claims.releaseAll();
          return true;
        }
        if (err.errorClass === 'fatal') {
          for (const claim of [...inFlight.values()]) await tally.fail(claim, `${claim.preprint_id}: ${err.message}`);
          inFlight.clear();
          return false;
        }
        continue; // transient: poll again
      }
      for (const result of results ?? []) {
        const claim = inFlight.get(result.dataId);
        if (!claim || IN_FLIGHT_STATES.has(result.state)) continue;
        inFlight.delete(claim.key);
        done++;
        if (result.state === 'done' && result.fullZipUrl) {
          if (await deliver(c, claim, result.fullZipUrl, dir)) tally.processed++;
          else tally.failures++;
          continue;
        }
        const kind = classifyParserText(result.errMsg);
        if (kind === 'daily_limit') {
          c.ring.coolDown(batch.token);
          tally.failures++;
          await c.claims.release(claim);
          await c.claims.releaseAll();
          return true;
        }
        // A fatal failure keeps the claim: the lease expires and the paper does not loop through the queue.
        await tally.fail(
          claim,
          `${claim.preprint_id}: parser failed (${kind}): ${result.errMsg}`.trimEnd(),
          kind !== 'fatal',
        );
      }
    }
    return false;
  });
}

/** Download and upload one finished paper; `false` (claim released) on failure. */
async function deliver(c: Contributor, claim: Claim, zipUrl: string, dir: string): Promise<boolean> {
  const zip = path.join(dir, zipName(claim.key));
  try {
    await downloadZipTo(c, zipUrl, zip);
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
