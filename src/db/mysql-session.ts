/**
 * Session settings that every pooled MySQL/MariaDB connection receives before its first use.
 *
 * TypeORM has no per-connection hook, but its `driver` option takes the mysql2 module: we
 * hand it the module with a `createPool` that listens for the pool's 'connection' event.
 * mysql2 emits it as soon as a new connection is open and before the connection is handed
 * to anyone, and a connection runs its commands in order, so these statements run before
 * any statement of the gateway on that connection (also the very first connection, with
 * which TypeORM checks the credentials). Each new connection is also asked whether its server
 * replicates with Galera (`multiStatementSafe`), gets an 'error' listener of its own, and is
 * kept among the pool's open connections until it ends (`openConnections`: what Db closes by
 * hand when the pool does not end).
 */
import type { DataSource, Logger as TypeOrmLogger } from 'typeorm';

export interface SessionStatement {
  sql: string;
  /** Server error numbers that mean "not applicable on this server" (the statement is skipped quietly). */
  notApplicable: number[];
  /** What the statement is for: logged, with the error code, when it fails for another reason. */
  purpose: string;
}

/** ER_UNKNOWN_SYSTEM_VARIABLE: the server has no such variable (MySQL, or MariaDB built without wsrep). */
const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;

/**
 * Galera causal reads. On a Galera node (`wsrep_on`), bit 1 of `wsrep_sync_wait` makes every
 * SELECT, SHOW and START TRANSACTION wait until the node has applied every write set the
 * cluster had committed when the statement arrived. Without it a read on one node can miss a
 * commit made a moment earlier through another node: a record created through one gateway
 * process could then be 404 through another, and a transaction rerun after a certification
 * conflict could read the same stale row again and lose certification again. Bits the
 * operator set globally are kept (`| 1`). On a MariaDB without Galera the statement only
 * copies the global value (0); on a server without the variable it is skipped.
 */
export const GALERA_CAUSAL_READS: SessionStatement = {
  sql: 'SET SESSION wsrep_sync_wait = IF(@@wsrep_on, @@global.wsrep_sync_wait | 1, @@global.wsrep_sync_wait)',
  notApplicable: [ER_UNKNOWN_SYSTEM_VARIABLE],
  purpose: 'Galera causal reads (wsrep_sync_wait)',
};

interface PoolConnectionLike {
  query(sql: string, cb: (err: (Error & { errno?: number; code?: string }) | null, rows?: unknown) => void): unknown;
  on(event: 'error' | 'end', listener: () => void): unknown;
}

/** Connections known to be on a server without Galera replication (`@@wsrep_on` off, or no such variable). */
const standalone = new WeakSet<object>();

/**
 * Whether several statements may go in one query on this mysql2 connection (src/db/tx.ts):
 * not on a Galera node. There a transaction aborted by a replicated write set (a brute-force
 * abort) in the middle of a multi-statement query did not end the query: statements after the
 * aborted one ran again (seen as duplicate keys of rows the query itself inserts, in
 * test/cluster/galera.test.ts). Not known yet (the probe has not answered): no.
 */
export function multiStatementSafe(conn: unknown): boolean {
  return typeof conn === 'object' && conn !== null && standalone.has(conn);
}
interface PoolLike {
  on(event: 'connection', listener: (conn: PoolConnectionLike) => void): unknown;
}
type Mysql2Module = { createPool(options: unknown): PoolLike } & Record<string, unknown>;

/** The open connections of the pools a module made by `mysqlWithSession` created, and the sets kept equal to them. */
interface Opened {
  open: Set<object>;
  watchers: Set<Set<object>>;
}

/** By the module `mysqlWithSession` made: what TypeORM was handed as its `driver` option. */
const opened = new WeakMap<object, Opened>();

/** The mysql2 module, with pools that run `statements` on each new connection. */
export function mysqlWithSession(mysql2: Mysql2Module, statements: SessionStatement[], logger?: TypeOrmLogger): Mysql2Module {
  const connections: Opened = { open: new Set(), watchers: new Set() };
  const module: Mysql2Module = {
    ...mysql2,
    createPool(options: unknown) {
      const pool = mysql2.createPool(options);
      pool.on('connection', (conn) => {
        // mysql2 gives a pooled connection one `once('error')` listener: a second error on a dead
        // connection (a server killed under load) would otherwise be an uncaught 'error' event.
        const gone = () => {
          connections.open.delete(conn);
          for (const set of connections.watchers) set.delete(conn);
        };
        conn.on('error', gone);
        conn.on('end', gone);
        connections.open.add(conn);
        for (const set of connections.watchers) set.add(conn);
        conn.query('SELECT @@wsrep_on AS w', (err, rows) => {
          const off = err ? err.errno === ER_UNKNOWN_SYSTEM_VARIABLE : !Number((rows as { w?: unknown }[] | undefined)?.[0]?.w);
          if (off) standalone.add(conn);
        });
        for (const s of statements) {
          conn.query(s.sql, (err) => {
            if (err && !s.notApplicable.includes(err.errno ?? -1)) {
              logger?.log('warn', `session setup failed (${s.purpose}): ${err.code ?? err.errno ?? 'error'}`);
            }
          });
        }
      });
      return pool;
    },
  };
  opened.set(module, connections);
  return module;
}

/**
 * Keeps `into` equal to the open pool connections of `ds` (its connections open now, and
 * those it opens or loses later), for a DataSource whose `driver` option is a module made by
 * `mysqlWithSession` (src/db/data-source.ts); false for any other (nothing is kept).
 */
export function openConnections(ds: DataSource, into: Set<object>): boolean {
  const driver: unknown = ds.options.type === 'mysql' ? ds.options.driver : undefined;
  const connections = typeof driver === 'object' && driver !== null ? opened.get(driver) : undefined;
  if (!connections) return false;
  for (const conn of connections.open) into.add(conn);
  connections.watchers.add(into);
  return true;
}
