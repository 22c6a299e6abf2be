/**
 * Query strings and path parameters declared once (CONTRACT §0.2). A query is an object of fields; each field
 * carries the schema the OpenAPI document shows and the decoder that turns the raw value (absent, text, or a list
 * when repeated) into its typed value — or throws the contract's 400 message, which the field builds from its own
 * name. `querySchema` makes the object a TypeBox Transform: its JSON is the documented object,
 * `StaticDecode<typeof Q>` is the typed query, and `queryDecoder(Q)` (compiled once) decodes a request's query
 * before its handler runs. Parameters the schema does not name are ignored (the original clients send extra ones).
 * `paramsSchema` is the same for a path's parameters: each is always present (the path matched it) and required.
 */
import {
  Type,
  type StaticDecode,
  type TObject,
  type TOptional,
  type TSchema,
  type TTransform,
  type TUnknown,
} from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { TransformDecodeError } from '@sinclair/typebox/value';
import { InvalidInputError } from '../../shared/domain-errors.js';
import { BOOLEAN_PATTERN, queryBoolean, queryInteger, querySha256, queryString } from './query.js';

/** One query parameter: what the document says of it, and how its raw value becomes `T`. */
export interface QueryField<T> {
  readonly schema: TSchema;
  /** `raw` is `undefined` when absent and an array when repeated; `name` is the parameter's (for the message). */
  readonly decode: (raw: unknown, name: string) => T;
}

type Fields = Readonly<Record<string, QueryField<unknown>>>;
type Decoded<F extends Fields> = { readonly [K in keyof F]: F[K] extends QueryField<infer T> ? T : never };

/** A query schema: the documented object, decoding to the typed query `T`. */
export type QuerySchema<T> = TTransform<TObject<Record<string, TOptional<TUnknown>>>, T>;

/** A path's parameters: the documented object (every parameter required), decoding to the typed parameters `T`. */
export type ParamsSchema<T> = TTransform<TObject<Record<string, TUnknown>>, T>;

/**
 * The query of `fields`. Each property is TypeBox's `Unknown` carrying the field's documented schema: TypeBox checks
 * nothing of a query value (a failed check would answer TypeBox's words), the field's decoder does — with the
 * contract's message.
 */
export function querySchema<F extends Fields>(fields: F): QuerySchema<Decoded<F>> {
  const properties = Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [name, Type.Optional(Type.Unknown(field.schema))]),
  );
  return decodedBy(Type.Object(properties), fields);
}

/** The path parameters of `fields`, checked and decoded as a query's are (each field's own 400 message). */
export function paramsSchema<F extends Fields>(fields: F): ParamsSchema<Decoded<F>> {
  const properties = Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [name, Type.Unknown(field.schema)]),
  );
  return decodedBy(Type.Object(properties), fields);
}

/** `object` decoding by `fields` (each property by its field's decoder). */
function decodedBy<O extends TObject, F extends Fields>(object: O, fields: F): TTransform<O, Decoded<F>> {
  return Type.Transform(object)
    .Decode((raw) => {
      const values = raw as Readonly<Record<string, unknown>>;
      return Object.fromEntries(
        Object.entries(fields).map(([name, field]) => [name, field.decode(values[name], name)]),
      ) as Decoded<F>;
    })
    .Encode(() => {
      // TypeBox's builder requires an encoder; a request's query and path are only ever decoded.
      throw new Error('a query or path is never encoded');
    });
}

/**
 * The documented object of a schema built by `querySchema` or `paramsSchema` (a Transform is its input object plus
 * the transform under a symbol).
 */
export const queryDocument = (schema: TSchema): TObject => schema as TObject;

/**
 * The compiled decoder of `schema` (a query's or a path's): the typed value, or the field's domain error (400). A
 * query that is not an object (never, from Fastify's parser) is a server fault.
 */
export function queryDecoder<Q extends TSchema>(schema: Q): (query: unknown) => StaticDecode<Q> {
  const compiled = TypeCompiler.Compile(schema);
  return (query) => {
    try {
      return compiled.Decode(query ?? {});
    } catch (err) {
      throw err instanceof TransformDecodeError ? err.error : err;
    }
  };
}

/** A §0.2 boolean: `true`/`1`, `false`/`0` (any case), absent → false; else `<name> must be a boolean`. */
export const booleanField = (description: string): QueryField<boolean> => ({
  schema: Type.String({ pattern: BOOLEAN_PATTERN, description }),
  decode: queryBoolean,
});

/** A §0.2 boolean where absent means "no filter" (`null`). */
export const booleanFilterField = (description: string): QueryField<boolean | null> => ({
  schema: Type.String({ pattern: BOOLEAN_PATTERN, description }),
  decode: (raw, name) => (raw === undefined ? null : queryBoolean(raw, name)),
});

/** An integer, `fallback` when absent; else `<name> must be an integer` (surrounding blanks and a sign accepted). */
export const integerField = (description: string, fallback: number): QueryField<number> => ({
  schema: Type.Integer({ description }),
  decode: (raw, name) => queryInteger(raw, name, fallback),
});

/** A sha256 in hex (lower-cased), `null` when absent; else `<name> must be 64 hex characters`. */
export const sha256Field = (description: string): QueryField<string | null> => ({
  schema: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description }),
  decode: querySha256,
});

/** Free text, `null` when absent (the first value when repeated). */
export const textField = (description: string): QueryField<string | null> => ({
  schema: Type.String({ description }),
  decode: (raw) => queryString(raw),
});

/** One of `values` (the first value when repeated), `fallback` when absent; else `<name> must be one of a, b`. */
export const oneOfField = <const V extends string>(
  values: readonly V[],
  fallback: V,
  description: string,
): QueryField<V> => ({
  schema: Type.String({ enum: [...values], default: fallback, description }),
  decode: (raw, name) => {
    const value = queryString(raw) ?? fallback;
    if (!(values as readonly string[]).includes(value)) {
      throw new InvalidInputError(`${name} must be one of ${values.join(', ')}`);
    }
    return value as V;
  },
});

/** Every value of a parameter that may be repeated (`?ids=a&ids=b`), in order; none when absent. */
export const listField = (description: string): QueryField<string[]> => ({
  schema: Type.Array(Type.String(), { description }),
  decode: (raw) => [raw].flat().filter((v): v is string => typeof v === 'string'),
});

/** `field`, its decoded value passed through `map` (a clamp, a further check with its own message, a parse). */
export const mapField = <T, U>(field: QueryField<T>, map: (value: T, name: string) => U): QueryField<U> => ({
  schema: field.schema,
  decode: (raw, name) => map(field.decode(raw, name), name),
});
