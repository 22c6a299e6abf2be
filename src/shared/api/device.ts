/**
 * The device authorization answers (RFC 8628; CONTRACT §7.8): the start, the minted token, and a request as the
 * approving user sees it, approves and denies it. TypeBox only: the server documents its routes with these schemas,
 * `pks auth login` and the web read their bodies through the `Static<>` types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { MAX_EXPIRY_DAYS, SCOPE_NAMES } from '../scopes.js';
import { Timestamp } from './common.js';

export const ScopeName = Type.String({ enum: [...SCOPE_NAMES] });

/** The states of a device request (CONTRACT §7.8); `consumed`: its token was answered. */
export const DEVICE_STATUSES = ['pending', 'approved', 'denied', 'consumed', 'expired'] as const;
export const DeviceStatus = Type.Unsafe<(typeof DEVICE_STATUSES)[number]>(Type.String({ enum: [...DEVICE_STATUSES] }));
export type DeviceStatus = Static<typeof DeviceStatus>;

/** `POST /api/oauth/device/code`: the start response (RFC 8628 §3.2). */
export const DeviceCode = Type.Object({
  device_code: Type.String(),
  user_code: Type.String(),
  verification_uri: Type.String({ description: 'where the user enters user_code' }),
  verification_uri_complete: Type.String({ description: 'verification_uri with user_code filled in' }),
  expires_in: Type.Integer({ description: 'seconds until device_code and user_code expire' }),
  interval: Type.Integer({ description: 'seconds to wait between token polls' }),
});
export type DeviceCode = Static<typeof DeviceCode>;

/** `POST /api/oauth/device/token` 200: the minted PAT, answered exactly once by the token poll. */
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

/** `GET /api/oauth/device/code`: a request as the approving user sees it. */
export const DeviceRequestView = Type.Object({
  user_code: Type.String(),
  name: Type.String(),
  description: Type.String(),
  scopes: Type.Array(ScopeName),
  expires_in_days: Type.Integer(),
  status: DeviceStatus,
  available_scopes: Type.Array(ScopeName),
  scope_descriptions: Type.Record(Type.String(), Type.String()),
  max_expiry_days: Type.Integer({ minimum: MAX_EXPIRY_DAYS, maximum: MAX_EXPIRY_DAYS }),
  /** ★ When the request expires (RFC 3339), so the approval page can count down to it. */
  expires_at: Timestamp('when the request expires (★; requests live 600 s)'),
});
export type DeviceRequestView = Static<typeof DeviceRequestView>;

/** `POST /api/oauth/device/approve` 200. */
export const DeviceApproved = Type.Object({
  ok: Type.Literal(true),
  status: Type.Literal('approved'),
  user_code: Type.String(),
  name: Type.String(),
  scopes: Type.Array(ScopeName),
  expires_in_days: Type.Integer(),
});
export type DeviceApproved = Static<typeof DeviceApproved>;

/** `POST /api/oauth/device/deny` 200. */
export const DeviceDenied = Type.Object({
  ok: Type.Literal(true),
  status: Type.Literal('denied'),
  user_code: Type.String(),
});
export type DeviceDenied = Static<typeof DeviceDenied>;
