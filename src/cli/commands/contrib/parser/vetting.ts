/**
 * Steps (1)–(3) of `contrib parser` for one paper (CONTRACT §16.5), the same in single and queue mode: claim it,
 * check that its `pdf_url` is trusted, and when the server holds a hash, that the URL serves those bytes.
 */
import type { Claim } from './claims.js';
import type { Contributor } from './contributor.js';
import { checkPdfSha256 } from './pdf-check.js';
import { isTrustedPdfUrl } from './trust.js';

export type Vetting =
  /** Claimed and checked: hand `claim.pdf_url` to the parser. */
  | { readonly kind: 'ready'; readonly claim: Claim }
  /** Not claimed (404/409): `line` says why; not a failure. */
  | { readonly kind: 'skip'; readonly line: string }
  /** Claimed but its PDF must not be parsed: the caller releases the claim and reports `problem`. */
  | { readonly kind: 'refused'; readonly claim: Claim; readonly problem: string };

/** Claims `id` and checks its PDF; a claim answer other than 201/404/409 throws (`HttpStatusError`, transport). */
export async function vetClaim(c: Contributor, id: string): Promise<Vetting> {
  const outcome = await c.claims.claim(id, c.signal);
  if ('skip' in outcome) return { kind: 'skip', line: outcome.skip };
  const { claim } = outcome;
  const problem = await pdfProblem(c, claim);
  return problem === null ? { kind: 'ready', claim } : { kind: 'refused', claim, problem };
}

/** Why the claim's PDF must not go to the parser, or `null`. */
async function pdfProblem(c: Contributor, claim: Claim): Promise<string | null> {
  const { config } = c;
  if (!isTrustedPdfUrl(claim.pdf_url, config.baseUrl, config.trustedPdfHosts)) {
    return `untrusted PDF URL for ${claim.preprint_id}: ${claim.pdf_url} (add its host to trusted_pdf_hosts to allow it)`;
  }
  if (!claim.pdf_sha256) return null;
  try {
    return await checkPdfSha256(claim.pdf_url, claim.pdf_sha256, {
      insecure: config.insecure,
      timeoutMs: c.input.timeoutMs,
      signal: c.signal,
    });
  } catch (err) {
    if (c.signal.aborted) throw err;
    return `could not download ${claim.pdf_url}: ${(err as Error).message}`;
  }
}
