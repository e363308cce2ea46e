/**
 * Fastify's per-request logger, made when a request first logs. Fastify gives every request
 * `parent.child({ reqId })` before routing; with the service's redaction paths, pino runs the
 * redaction stringifier over the bindings for each child: about 3 KB of garbage and a few
 * µs per request, for a logger that almost no request uses (request logging is off; errors
 * and client aborts log through it). This logger holds the parent and the bindings, and
 * makes that same child on its first log line at an enabled level, or on `child()`.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, Logger } from 'pino';

const METHODS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type Method = (typeof METHODS)[number];

class LazyChildLogger {
  private made?: Logger;

  constructor(
    private readonly parent: Logger,
    private readonly childBindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get real(): Logger {
    return (this.made ??= this.parent.child(this.childBindings, this.options));
  }

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.real.level = level;
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    return this.made || this.options.level ? this.real.isLevelEnabled(level) : this.parent.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.real.child(bindings, options);
  }

  silent(): void {
    /* a silent line is no line */
  }
}

for (const method of METHODS) {
  Object.defineProperty(LazyChildLogger.prototype, method, {
    value(this: LazyChildLogger, ...args: unknown[]) {
      if (!this.isLevelEnabled(method)) return;
      (this as unknown as { real: Record<Method, (...a: unknown[]) => void> }).real[method](...args);
    },
  });
}

/** Fastify's `childLoggerFactory`: the request's child logger, made on first use. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  // The service's logger is pino (app.ts), which Fastify was given as its loggerInstance.
  return new LazyChildLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger;
}
