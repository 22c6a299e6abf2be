/** Parser claims held by this run (CONTRACT §5.2–5.3): taken, released on every failure, forgotten on upload. */
import type { ParserClaim } from '../../../../shared/api/parser-claims.js';
import type { ApiClient } from '../../../http/api-client.js';
import { jsonObject } from '../../../http/json-body.js';
import { HttpStatusError, detailOf } from '../../../errors.js';
import { encodePaperId } from '../../paper/access.js';

/** A claim this run holds: the server's 201 answer. */
export type Claim = ParserClaim;

export type ClaimOutcome = { readonly claim: Claim } | { readonly skip: string };

export class ClaimBook {
  readonly held = new Map<string, Claim>();

  constructor(
    private readonly api: ApiClient,
    private readonly warn: (text: string) => void,
    private readonly ttlSeconds: number | undefined,
  ) {}

  /** Claims `id`; 404/409 → a skip line; other answers throw `HttpStatusError`. */
  async claim(id: string, signal?: AbortSignal): Promise<ClaimOutcome> {
    const res = await this.api.request('POST', `/api/papers/${encodePaperId(id)}/parser-claim`, {
      kind: 'write',
      query: { ttl_seconds: this.ttlSeconds === undefined ? undefined : String(this.ttlSeconds) },
      ...(signal ? { signal } : {}),
    });
    const text = await res.text();
    if (res.status === 201) {
      const claim = jsonObject<Claim>(res, text);
      this.held.set(claim.claim_id, claim);
      return { claim };
    }
    if (res.status === 404 || res.status === 409) {
      return { skip: `[skip] ${id}: HTTP ${res.status}${detailOf(text, res.header('content-type'))}` };
    }
    throw new HttpStatusError(res.status, res.statusText, text, res.header('content-type'));
  }

  /** Releases a held claim; a failure to release is reported, not thrown (the lease expires anyway). */
  async release(claim: Claim): Promise<void> {
    this.held.delete(claim.claim_id);
    try {
      const res = await this.api.request(
        'DELETE',
        `/api/papers/${encodePaperId(claim.preprint_id)}/parser-claim/${encodeURIComponent(claim.claim_id)}`,
        { kind: 'write' },
      );
      const text = await res.text();
      if (res.status !== 204 && res.status !== 200) {
        this.warn(
          `warning: could not release the claim on ${claim.preprint_id}: HTTP ${res.status}${detailOf(text, res.header('content-type'))}\n`,
        );
      }
    } catch (err) {
      this.warn(`warning: could not release the claim on ${claim.preprint_id}: ${(err as Error).message}\n`);
    }
  }

  /** The server deleted the claim (successful upload) or it is kept on purpose (fatal parser failure). */
  forget(claim: Claim): void {
    this.held.delete(claim.claim_id);
  }

  async releaseAll(): Promise<void> {
    for (const claim of [...this.held.values()]) await this.release(claim);
  }
}
