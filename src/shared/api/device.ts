/**
 * The device authorization answers (RFC 8628; CONTRACT §7.8): the start and the minted token. TypeBox only: the
 * server documents its routes with these schemas and `pks auth login` reads their bodies through the `Static<>`
 * types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SCOPE_NAMES } from '../scopes.js';
import { Timestamp } from './common.js';

export const ScopeName = Type.String({ enum: [...SCOPE_NAMES] });

/** `POST /api/oauth/device/code`. */
export const DeviceCode = Type.Object({
  device_code: Type.String(),
  user_code: Type.String(),
  verification_uri: Type.String({ description: 'where the user enters user_code' }),
  verification_uri_complete: Type.String({ description: 'verification_uri with user_code filled in' }),
  expires_in: Type.Integer({ description: 'seconds until device_code and user_code expire' }),
  interval: Type.Integer({ description: 'seconds to wait between token polls' }),
});
export type DeviceCode = Static<typeof DeviceCode>;

/** `POST /api/oauth/device/token` 200: the minted PAT. */
export const DeviceToken = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'seconds until the token expires' }),
  pat_id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  plaintext: Type.String(),
  scopes: Type.Array(ScopeName),
  expires_at: Timestamp(),
});
export type DeviceToken = Static<typeof DeviceToken>;
