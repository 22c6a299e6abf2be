/**
 * Field types and bodies shared by every wire schema (CONTRACT §0.2). TypeBox only: the browser imports this too.
 */
import { Type, type TSchema } from '@sinclair/typebox';

/** `{detail}`: the common error body (CONTRACT §0.2); some errors add named fields. */
export const ErrorBody = Type.Object(
  { detail: Type.String() },
  { additionalProperties: true, description: '`{detail}`' },
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
