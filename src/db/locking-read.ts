/**
 * Locking reads (`SELECT ... FOR UPDATE`) in a unit of work. On MySQL/MariaDB the unit's
 * transaction is the Tx's own (src/db/tx.ts), which TypeORM does not know about, so its
 * `setLock('pessimistic_write')` would refuse; the builder's own SQL is sent with
 * `FOR UPDATE` after it, through the unit's EntityManager, and its rows mapped to entities as
 * `getMany()` would (`rowMapper`, src/db/compiled-select.ts). SQLite has no row locks (its
 * units run one at a time): the builder runs as it is.
 */
import type { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { rowMapper } from './compiled-select';

function isMysql(em: EntityManager): boolean {
  return em.connection.options.type === 'mysql';
}

/** The first row `qb` selects, locked until the unit's transaction ends; null when there is none. */
export async function lockedOne<E extends ObjectLiteral>(em: EntityManager, qb: SelectQueryBuilder<E>): Promise<E | null> {
  if (!isMysql(em)) return qb.getOne();
  const sql = qb.getQuery();
  const toEntities = rowMapper(qb, sql);
  if (!toEntities) throw new Error('lockedOne: only a one-table select can lock its rows');
  const [text, params] = em.connection.driver.escapeQueryWithParameters(`${sql} FOR UPDATE`, qb.getParameters());
  const rows = toEntities(await em.query(text, params)) as E[];
  return rows[0] ?? null;
}

/** How many rows `qb` selects, each locked until the unit's transaction ends. */
export async function lockedCount(em: EntityManager, qb: SelectQueryBuilder<ObjectLiteral>): Promise<number> {
  if (!isMysql(em)) return qb.getCount();
  const counting = qb.clone().select('COUNT(*)', 'n');
  const [text, params] = em.connection.driver.escapeQueryWithParameters(`${counting.getQuery()} FOR UPDATE`, counting.getParameters());
  const rows: { n: number | string }[] = await em.query(text, params);
  return Number(rows[0]?.n ?? 0);
}
