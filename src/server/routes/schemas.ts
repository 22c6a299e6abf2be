import { Type, type TSchema } from '@sinclair/typebox';

/** `{detail}`: the common error body (CONTRACT §0.2). */
export const ErrorBody = Type.Object({ detail: Type.String() }, { additionalProperties: true });

/** An object whose listed fields are documented while other fields pass through unchanged. */
export const OpenObject = <T extends Record<string, TSchema>>(props: T, description?: string) =>
  Type.Object(props, { additionalProperties: true, ...(description ? { description } : {}) });
