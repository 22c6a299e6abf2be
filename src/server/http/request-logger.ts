/**
 * The request logger Fastify hands every request (`childLoggerFactory`), bound only when a line is written.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ChildLoggerOptions, Logger } from 'pino';

const LEVEL_NAMES = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type LevelName = (typeof LEVEL_NAMES)[number];
type LevelMethod = (...args: unknown[]) => void;

/**
 * A request's logger, bound when it first writes a line: until then it holds the request id and the bindings set on
 * it (`setBindings`, the audit labels) and writes nothing, so a request that logs nothing (every request under
 * `SVC_LOG_LEVEL=warn` or `error`) never builds pino's child and never serializes a binding. The first line creates
 * the child exactly as Fastify would (`child({ reqId })`) and replays the bindings in order, so every line is byte
 * for byte the one an eager child writes.
 */
class LazyRequestLogger {
  private bound: Logger | null = null;
  private pending: Record<string, unknown>[] | null = null;

  constructor(
    private readonly parent: Logger,
    private readonly bindingsOfRequest: Record<string, unknown>,
  ) {}

  private logger(): Logger {
    if (this.bound !== null) return this.bound;
    const bound = this.parent.child(this.bindingsOfRequest);
    for (const bindings of this.pending ?? []) bound.setBindings(bindings);
    this.pending = null;
    this.bound = bound;
    return bound;
  }

  /** Writes one line at `level`; the level methods (`info`, `warn`, …) on the prototype call it. */
  write(level: LevelName, args: unknown[]): void {
    if (this.bound === null && !this.parent.isLevelEnabled(level)) return;
    (this.logger()[level] as (...a: unknown[]) => void)(...args);
  }

  declare readonly fatal: LevelMethod;
  declare readonly error: LevelMethod;
  declare readonly warn: LevelMethod;
  declare readonly info: LevelMethod;
  declare readonly debug: LevelMethod;
  declare readonly trace: LevelMethod;
  silent(): void {}

  setBindings(bindings: Record<string, unknown>): void {
    if (this.bound !== null) this.bound.setBindings(bindings);
    else (this.pending ??= []).push(bindings);
  }
  bindings(): Record<string, unknown> {
    return this.logger().bindings();
  }
  child(bindings: Record<string, unknown>, options?: ChildLoggerOptions): Logger {
    return this.logger().child(bindings, options);
  }
  isLevelEnabled(level: string): boolean {
    return (this.bound ?? this.parent).isLevelEnabled(level);
  }
  get level(): string {
    return (this.bound ?? this.parent).level;
  }
  set level(level: string) {
    this.logger().level = level;
  }
}

// The level methods live on the prototype, made once here: fields would cost every request six closures.
for (const level of LEVEL_NAMES) {
  (LazyRequestLogger.prototype as Record<LevelName, LevelMethod>)[level] = function (
    this: LazyRequestLogger,
    ...args: unknown[]
  ): void {
    this.write(level, args);
  };
}

/**
 * Fastify's `childLoggerFactory`: a lazily bound request logger (see `LazyRequestLogger`); a route with its own log
 * level or serializers gets pino's child at once, as Fastify's default factory does.
 */
export function lazyRequestLogger(
  this: unknown,
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const parent = logger as Logger;
  if (options.level !== undefined || options.serializers !== undefined) return parent.child(bindings, options);
  return new LazyRequestLogger(parent, bindings) as unknown as FastifyBaseLogger;
}
