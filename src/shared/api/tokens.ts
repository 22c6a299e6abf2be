/**
 * The personal access token answers (CONTRACT §7.3): a token as minted (its plaintext shown once) and as listed.
 * TypeBox only: the server documents its routes with these schemas, and the web reads their bodies through the
 * `Static<>` types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.js';
import { ScopeName } from './device.js';

/** `POST /api/pat` 201. */
export const Created = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  plaintext: Type.String({ description: 'shown once' }),
  description: Type.String(),
  scopes: Type.Array(ScopeName),
  expires_at: Timestamp(),
  created: Timestamp(),
});
export type Created = Static<typeof Created>;

/** An item of `GET /api/pat` (no plaintext). */
export const Listed = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  description: Type.String(),
  scopes: Type.Array(ScopeName),
  expires_at: Timestamp(),
  last_used_at: Nullable(Timestamp()),
  created: Timestamp(),
  expired: Type.Boolean(),
});
export type Listed = Static<typeof Listed>;
