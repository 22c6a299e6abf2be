/**
 * The parser contributors' answers (CONTRACT §9.5, §5.2): the needs-parser queue and a claim (lease). TypeBox only:
 * the server documents its routes with these schemas and `pks contrib parser` reads their bodies through the
 * `Static<>` types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Sha256, Timestamp } from './common.js';

/** `GET /api/papers/stats` (CONTRACT §4.3): `{available: false}` exactly when the index is unavailable. */
export const PaperStats = Type.Union([
  Type.Object({ available: Type.Literal(false) }),
  Type.Object({
    available: Type.Literal(true),
    total: Type.Integer(),
    has_pdf: Type.Integer(),
    has_md: Type.Integer(),
    has_json: Type.Integer(),
    needs_parser: Type.Integer(),
    total_images: Type.Integer(),
    loaded_at: Nullable(Timestamp()),
  }),
]);
export type PaperStats = Static<typeof PaperStats>;

/** `GET /api/papers/needs-parser`: one paper with a PDF and no markdown. */
export const NeedsParserPaper = Type.Object({
  preprint_id: Type.String(),
  arxiv_id: Type.String({ description: 'the same as preprint_id (the original clients read it, CONTRACT §19)' }),
  key: Type.String(),
  pdf_path: Type.String(),
  pdf_uploaded_at: Nullable(Timestamp()),
  claimed: Type.Boolean(),
  claim_expires_at: Nullable(Timestamp()),
  claim_requester: Nullable(Type.String()),
});
export type NeedsParserPaper = Static<typeof NeedsParserPaper>;

export const NeedsParser = Type.Object({
  papers: Type.Array(NeedsParserPaper),
  returned: Type.Integer(),
  total_unclaimed: Type.Integer({ description: 'every unclaimed candidate, not just the returned page' }),
  total_claimed: Type.Integer({ description: 'every claimed candidate, not just the returned page' }),
  available: Type.Boolean({ description: 'false while the paper index is unavailable (then nothing is listed)' }),
});
export type NeedsParser = Static<typeof NeedsParser>;

/** `lease_id` of a claim's answers: the claim id under the name the original clients read. */
const LeaseId = Type.String({ description: 'the same as claim_id (the original clients read it, CONTRACT §19)' });

/** `POST /api/papers/{preprint_id}/parser-claim` 201: the lease. */
export const ParserClaim = Type.Object({
  claim_id: Type.String(),
  lease_id: LeaseId,
  preprint_id: Type.String(),
  key: Type.String(),
  requester: Type.String(),
  created_at: Timestamp(),
  expires_at: Timestamp(),
  ttl_seconds: Type.Integer({ minimum: 60, maximum: 7200 }),
  pdf_url: Type.String(),
  pdf_sha256: Type.Optional(Sha256()),
});
export type ParserClaim = Static<typeof ParserClaim>;

/** `POST …/parser-claim` 409: an unexpired claim is held. */
export const AlreadyClaimed = Type.Object(
  {
    detail: Type.String(),
    claim_id: Type.String(),
    lease_id: LeaseId,
    claim_expires_at: Timestamp(),
    claim_requester: Type.String(),
  },
  { description: 'an unexpired claim is held' },
);
