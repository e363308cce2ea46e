/**
 * A mysql2 connection of a test's own (outside the service's pool): to the server a
 * `mysql://` URL names, as its user, and to `database` when given (else none is selected, as
 * for CREATE/DROP DATABASE).
 */
import mysql from 'mysql2/promise';

export function connectMysql(url: string | URL, database?: string): Promise<mysql.Connection> {
  const u = typeof url === 'string' ? new URL(url) : url;
  return mysql.createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    ...(database === undefined ? {} : { database }),
  });
}
