/**
 * The request logger Fastify hands every request (`childLoggerFactory`), bound only when a line is written.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ChildLoggerOptions, Logger } from 'pino';

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

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

  private write(level: LevelName, args: unknown[]): void {
    if (this.bound === null && !this.parent.isLevelEnabled(level)) return;
    (this.logger()[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
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
