/**
 * What the log may say about a database error or a statement: never SQL text, never SQL
 * parameters, never a value the database quotes back in its message (docs/contract.md
 * "Errors": details only in the server log; docs/operations.md: logs carry no secrets,
 * account numbers, SQL text or SQL parameters).
 *
 * A TypeORM `QueryFailedError` carries the statement (`query`), its `parameters` (holder
 * names, references, Idempotency-Keys, event JSON, sealed values), and the driver's own
 * fields (`sql`, which mysql2 fills with the parameters interpolated, and `sqlMessage`,
 * e.g. "Duplicate entry 'Somchai Jaidee-ref' for key ..."). pino's standard error
 * serializer copies every enumerable field, so all of it reached the log.
 * `serializeError` keeps a fixed list of fields instead, and for database errors it
 * replaces every quoted literal in the message with `?` (identifiers after `key`,
 * `column`, `table`, `constraint` or `index` stay: they say what failed, not with what).
 */
import { QueryFailedError } from 'typeorm';

/** The fields of an error that are kept: what it is, never what it was about. */
const KEPT_FIELDS = ['code', 'errno', 'sqlState', 'statusCode', 'status'] as const;
const MAX_CAUSES = 3;

export interface SafeError {
  type: string;
  message: string;
  stack?: string;
  code?: string | number;
  errno?: number;
  sqlState?: string;
  statusCode?: number;
  status?: number;
  cause?: SafeError;
}

/** A database driver's error, or TypeORM's wrapper of one: its message may quote values. */
function isDatabaseError(err: Record<string, unknown>): boolean {
  if (err instanceof QueryFailedError) return true;
  if ('sql' in err || 'sqlMessage' in err || 'driverError' in err || 'parameters' in err) return true;
  const code = err.code;
  return typeof code === 'string' && (code.startsWith('ER_') || code.startsWith('SQLITE_'));
}

/**
 * Replaces quoted literals ('...', "...") with '?', except identifiers named as such
 * (`for key 'uq_x'`, `column 'holder_name'`). Backquoted names are identifiers and stay.
 */
export function scrubQuoted(message: string): string {
  return message.replace(
    /(\b(?:key|column|table|constraint|index|database)\s+)?(['"])(?:\\.|(?!\2).|\2\2)*\2/gis,
    (match, label: string | undefined, quote: string) => (label ? match : `${quote}?${quote}`),
  );
}

/** A SyntaxError from JSON.parse quotes the text it could not parse. */
function quotesInput(err: Error): boolean {
  return err instanceof SyntaxError && /JSON/.test(err.message);
}

/** The error as the log shows it; anything not an Error is described by its type only. */
export function serializeError(value: unknown, depth = 0): SafeError {
  if (value === null || typeof value !== 'object') {
    // TypeORM hands its logger a string for some failures: a database message.
    return { type: typeof value, message: typeof value === 'string' ? scrubQuoted(value) : String(value) };
  }
  const err = value as Error & Record<string, unknown>;
  const scrub = isDatabaseError(err) || quotesInput(err);
  const type = typeof err.constructor === 'function' && err.constructor.name ? err.constructor.name : String(err.name ?? 'Error');
  const rawMessage = typeof err.message === 'string' ? err.message : '';
  const message = scrub ? scrubQuoted(rawMessage) : rawMessage;
  const out: SafeError = { type, message };
  const driver = (err.driverError ?? {}) as Record<string, unknown>;
  for (const field of KEPT_FIELDS) {
    const v = err[field] ?? driver[field];
    if (typeof v === 'string' || typeof v === 'number') (out as unknown as Record<string, unknown>)[field] = v;
  }
  if (typeof err.stack === 'string') {
    // The stack's first lines repeat the message: keep only the frames under the safe message.
    const frames = err.stack.split('\n').filter((line) => /^\s+at /.test(line));
    out.stack = [`${type}: ${message}`, ...frames].join('\n');
  }
  if (err.cause !== undefined && depth < MAX_CAUSES) out.cause = serializeError(err.cause, depth + 1);
  return out;
}

/** A statement as the log names it: its verb and the tables it touches, never its text. */
export function describeStatement(sql: string): { statement: string; tables: string[] } {
  const verb = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? 'UNKNOWN';
  const tables = new Set<string>();
  for (const m of sql.matchAll(/\b(?:FROM|INTO|UPDATE|JOIN|TABLE)\s+[`"]?([A-Za-z_][A-Za-z0-9_]*)[`"]?/gi)) tables.add(m[1]);
  return { statement: verb, tables: [...tables] };
}

/**
 * Paths pino removes from every line, should a caller log a request, a GraphQL request or
 * a raw error under another key: credentials, Idempotency-Keys, SQL and its parameters,
 * GraphQL variables and connection parameters.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["idempotency-key"]',
  'authorization',
  'connectionParams',
  'variables',
  'parameters',
  'sql',
  'sqlMessage',
  '*.authorization',
  '*.connectionParams',
  '*.variables',
  '*.parameters',
  '*.sql',
  '*.sqlMessage',
  '*.driverError',
];
