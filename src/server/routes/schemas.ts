/** Schemas shared by the route modules (bodies of CONTRACT §0.2 and common field types). */
import { Type, type TSchema } from '@sinclair/typebox';
import { BOOLEAN_PATTERN } from '../http/query.js';

/** `{detail}`: the common error body (CONTRACT §0.2); some errors add named fields. */
export const ErrorBody = Type.Object(
  { detail: Type.String() },
  { additionalProperties: true, description: '`{detail}`' },
);

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

/** An object whose listed fields are documented while other fields pass through unchanged. */
export const OpenObject = <T extends Record<string, TSchema>>(props: T, description?: string) =>
  Type.Object(props, { additionalProperties: true, ...(description ? { description } : {}) });

/** `T` or `null` (rendered as `x-nullable` in the Swagger 2.0 document). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** RFC 3339 UTC timestamp with second precision (CONTRACT §0.2). */
export const Timestamp = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** Lower-case hex sha256. */
export const Sha256 = (description?: string) =>
  Type.String({ pattern: '^[0-9a-f]{64}$', ...(description ? { description } : {}) });

/** A query boolean of CONTRACT §0.2 as the document shows it: `true`/`1` or `false`/`0`, any case. */
export const QueryBoolean = (description: string) => Type.String({ pattern: BOOLEAN_PATTERN, description });
