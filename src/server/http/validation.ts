/**
 * Request validation (CONTRACT §0.2). Query strings, path parameters and headers are text, so their values are
 * coerced to the schema's types (`?limit=5`, a single `?x=` as a one-element list); JSON bodies are typed already
 * and are validated as sent: `{"name": 5}` or `{"description": null}` against a string is a schema violation (400),
 * never silently turned into `"5"` or `""`.
 */
import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';

/** What Fastify hands a validator compiler at run time (the package's declared types name it differently). */
interface RouteSchema {
  readonly schema: unknown;
  readonly httpPart?: string;
}
/** A compiled validator as Fastify uses it: called, then `errors` read; `schemaEnv` marks an Ajv function. */
type Validator = ((...args: unknown[]) => unknown) & { readonly errors?: unknown; readonly schemaEnv?: unknown };
type Compile = (route: RouteSchema) => Validator;
type BuildCompiler = (externalSchemas: object, options: object) => Compile;

const TEXT_PARTS = { removeAdditional: false, coerceTypes: 'array', allErrors: false } as const;
const JSON_BODY = { removeAdditional: false, coerceTypes: false, allErrors: false } as const;

const pool = AjvCompiler() as unknown as BuildCompiler;

function byPart(externalSchemas: object | undefined, options: object | undefined): Compile {
  const text = pool(externalSchemas ?? {}, { ...options, customOptions: TEXT_PARTS });
  const body = pool(externalSchemas ?? {}, { ...options, customOptions: JSON_BODY });
  return (route) => compiledOnFirstUse(() => (route.httpPart === 'body' ? body(route) : text(route)));
}

/**
 * A route's validator compiled when it first validates, not when the route is registered: compiling every route's
 * schemas was ~75 ms of `pksd serve`'s start (docs/decisions.md). To Fastify it is the compiled function: calls,
 * `errors` and `schemaEnv` (read before the first call) are the compiled validator's.
 */
function compiledOnFirstUse(compile: () => Validator): Validator {
  let compiled: Validator | null = null;
  const validator = (): Validator => (compiled ??= compile());
  return Object.defineProperties(
    function validate(this: unknown, ...args: unknown[]) {
      return validator().apply(this, args);
    },
    {
      errors: { get: () => validator().errors },
      schemaEnv: { get: () => validator().schemaEnv },
    },
  ) as Validator;
}

/** Fastify's validator factory: one Ajv for bodies (no coercion), one for the text parts (coercion). */
export const validatorsByPart = byPart as unknown as ValidatorFactory;
