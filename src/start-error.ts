/**
 * What a failed start says: one line a newcomer can act on (the stack trace only with
 * LOG_LEVEL=debug or trace). Used by src/main.ts and the provisioning CLI.
 */
import type { DatabaseConfig } from './config';

/** The URL with its password replaced by `mask`, safe to print. */
export function redactUrl(url: string, mask = '****'): string {
  try {
    const u = new URL(url);
    if (u.password) return u.toString().replace(`:${u.password}@`, `:${mask}@`);
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, `//$1:${mask}@`);
  }
}

function mysqlTarget(url: string): { host: string; port: string; user: string; password: boolean; database: string } {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: u.port || '3306',
    user: decodeURIComponent(u.username) || 'root',
    password: u.password !== '',
    database: decodeURIComponent(u.pathname.replace(/^\//, '')),
  };
}

/** One line (no newline) saying why the service could not start and what to do about it. */
export function describeStartError(err: unknown, database: DatabaseConfig | undefined): string {
  const e = err as { code?: string; errno?: number; message?: string; address?: string; port?: number };
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  if (database?.kind === 'mysql') {
    const where = redactUrl(database.url);
    let t: ReturnType<typeof mysqlTarget> | undefined;
    try {
      t = mysqlTarget(database.url);
    } catch {
      t = undefined;
    }
    switch (e.code) {
      case 'ER_BAD_DB_ERROR':
        return (
          `database "${t?.database}" does not exist on ${t?.host}:${t?.port} (DATABASE_URL=${where}); create it first: ` +
          `mysql -h ${t?.host} -P ${t?.port} -u ${t?.user}${t?.password ? ' -p' : ''} -e 'CREATE DATABASE \`${t?.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci'`
        );
      case 'ECONNREFUSED':
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `cannot reach the database server at ${t?.host}:${t?.port} (${e.code}; DATABASE_URL=${where}); is MariaDB/MySQL running there?`;
      case 'ER_ACCESS_DENIED_ERROR':
      case 'ER_DBACCESS_DENIED_ERROR':
        return `the database refused the credentials of DATABASE_URL=${where}: ${message}`;
      default:
        if (e.code && /^(ER_|PROTOCOL_)/.test(e.code)) return `database error on DATABASE_URL=${where}: ${message}`;
    }
  }
  if (e.code === 'EADDRINUSE') return `port ${e.port ?? ''} is already in use (${message}); set PORT to another port`;
  if (e.code === 'EACCES' && e.port !== undefined) return `not allowed to listen on port ${e.port}; set PORT to a port above 1023`;
  return message;
}

/** Prints the failure of a start on stderr and exits with 1. */
export function exitOnStartError(program: string, err: unknown, database: DatabaseConfig | undefined): never {
  process.stderr.write(`${program}: cannot start: ${describeStartError(err, database)}\n`);
  if (/^(debug|trace)$/.test(process.env.LOG_LEVEL ?? '') && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  process.exit(1);
}
