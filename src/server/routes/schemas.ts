/** Schemas shared by the route modules (bodies of CONTRACT §0.2 and common field types). */
import { Type } from '@sinclair/typebox';
import { BOOLEAN_PATTERN } from '../http/query.js';

export { ErrorBody, Nullable, OpenObject, Sha256, Timestamp } from '../../shared/api/common.js';

/** The scope guard's 403 (CONTRACT §7.1). */
export const ScopeDenied = Type.Object(
  { detail: Type.String(), obj: Type.String(), act: Type.String() },
  { description: 'the credential lacks the scope, or is not a browser session' },
);

/** PocketBase's error body (CONTRACT §7.2): `{status, message, data: {}}`. */
export const PbError = Type.Object(
  { status: Type.Integer(), message: Type.String(), data: Type.Object({}) },
  { description: "PocketBase's error shape" },
);

/** A query boolean of CONTRACT §0.2 as the document shows it: `true`/`1` or `false`/`0`, any case. */
export const QueryBoolean = (description: string) => Type.String({ pattern: BOOLEAN_PATTERN, description });
