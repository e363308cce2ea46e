/**
 * The SQL of a list page (the rules it follows, and the cursor, are src/domain/listing.ts):
 * scope, filters, the keyset predicate and order on the query builder (`applyList`), and the
 * index each page must read, which the builder cannot say: `FORCE INDEX` on MySQL/MariaDB,
 * `INDEXED BY` on SQLite, and one UNION ALL branch per status (`prepareListRows`), written
 * into the builder's SQL text. Run with `listRows`, or `compiledSelect` with `listValues`.
 */
import type { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { ListParams } from '../domain/listing';
import type { Scope } from '../domain/scope';
import { runSelect, type Select, type SelectValues } from './compiled-select';

/**
 * Adds scope, filters, keyset and order to a query over a table with columns
 * merchant_id, environment, created_at, id (and status, country, currency,
 * merchant_reference unless the spec opts out). Fetches one row more than the page.
 * Run it with `listRows`, which lets the index decide the cost of a page, not its depth.
 *
 * The keyset predicate is `created_at <= :at AND (created_at < :at OR id < :aid)`: the same
 * rows as `created_at < :at OR (created_at = :at AND id < :aid)`, with a leading bound on
 * created_at that every engine turns into an index range.
 */
export function applyList<E extends ObjectLiteral>(qb: SelectQueryBuilder<E>, alias: string, scope: Scope, params: ListParams): SelectQueryBuilder<E> {
  qb.where(`${alias}.merchant_id = :merchantId AND ${alias}.environment = :environment`, {
    merchantId: scope.merchantId,
    environment: scope.environment,
  });
  if (params.statuses) qb.andWhere(statusClause(alias), { statuses: params.statuses });
  if (params.country) qb.andWhere(`${alias}.country = :country`, { country: params.country });
  if (params.currency) qb.andWhere(`${alias}.currency = :currency`, { currency: params.currency });
  if (params.merchantReference) qb.andWhere(`${alias}.merchant_reference = :mref`, { mref: params.merchantReference });
  if (params.createdGte !== undefined) qb.andWhere(`${alias}.created_at >= :gte`, { gte: params.createdGte });
  if (params.createdLt !== undefined) qb.andWhere(`${alias}.created_at < :lt`, { lt: params.createdLt });
  if (params.after) {
    qb.andWhere(`${alias}.created_at <= :at AND (${alias}.created_at < :at OR ${alias}.id < :aid)`, {
      at: params.after.t,
      aid: params.after.id,
    });
  }
  return qb
    .orderBy(`${alias}.created_at`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .limit(params.limit + 1);
}

const statusClause = (alias: string) => `${alias}.status IN (:...statuses)`;

/**
 * The named values of the query that `applyList` + `prepareListRows` build, for running it
 * through `compiledSelect` (which learns their order once per shape).
 */
export function listValues(scope: Scope, params: ListParams): SelectValues {
  const v: SelectValues = { merchantId: scope.merchantId, environment: scope.environment };
  if (params.statuses) {
    v.statuses = params.statuses;
    params.statuses.forEach((status, i) => {
      v[`listStatus${i}`] = status;
    });
  }
  if (params.country) v.country = params.country;
  if (params.currency) v.currency = params.currency;
  if (params.merchantReference) v.mref = params.merchantReference;
  if (params.createdGte !== undefined) v.gte = params.createdGte;
  if (params.createdLt !== undefined) v.lt = params.createdLt;
  if (params.after) {
    v.at = params.after.t;
    v.aid = params.after.id;
  }
  return v;
}

/** The indexes a listed table offers the list (see `listRows`). */
export interface ListIndexes {
  /** (merchant_id, environment[, the caller's equality filter], created_at, id). */
  list: string;
  /** (merchant_id, environment, status, created_at, id), for lists filtered by status. */
  byStatus?: string;
  /**
   * A filter of the caller's own, `${alias}.<column> IN (:...<param>)` as its `where` has it,
   * answered by `index` (merchant_id, environment, <column>, created_at, id): read as the
   * statuses are, one branch per value (e.g. event types). Not combined with a status filter.
   */
  byValue?: { clause: string; column: string; values: readonly string[]; index: string };
  /**
   * Also on SQLite (`INDEXED BY`) for `list`: where the planner's statistics can't tell (one
   * payment's refunds: a status index that yields the order looked cheaper than the payment's own).
   */
  sqliteToo?: boolean;
}

/** The conventional names: `ix_<table>_list` and `ix_<table>_status_list`. */
export function listIndexesOf(table: string, byStatus: boolean): ListIndexes {
  return byStatus ? { list: `ix_${table}_list`, byStatus: `ix_${table}_status_list` } : { list: `ix_${table}_list` };
}

/**
 * Runs a list query built by `applyList` (plus the caller's own filters), so that a page
 * reads about limit + 1 index entries whatever its depth:
 * - no status filter: the list index, as a range from the cursor down (forced on MySQL/MariaDB);
 * - one status: the status index (merchant_id, environment, status, created_at, id);
 * - several statuses: one branch per status over the status index, each ordered and limited
 *   to limit + 1, merged by UNION ALL and ordered again: at most statuses x (limit + 1) rows,
 *   where one IN over the status index would read every matching row below the cursor and sort.
 *   Each branch is the whole query (the caller's own filters included) with one status, so
 *   its LIMIT is taken after every filter;
 * - `byValue` (a caller's own IN filter with an index of its own, e.g. event types): the same,
 *   one value or one branch per value over that index.
 * `list` need not be the scope's list index: a caller's equality filter with an index
 * (merchant_id, environment, <column>, created_at, id), or (<column>, created_at, id) for a
 * column that names one parent record, serves as `list` (audit resource_id, refund payment_intent).
 * Without `indexes` (a caller whose extra filter has a better index of its own), or with a
 * merchant_reference filter (the unique index answers it), the optimizer chooses alone.
 * One SQL statement in every case, sent through `em` (the unit of work the builder came from).
 */
export function listRows<E extends ObjectLiteral>(
  em: EntityManager,
  qb: SelectQueryBuilder<E>,
  alias: string,
  params: ListParams,
  indexes?: ListIndexes,
): Promise<E[]> {
  return runSelect(em, prepareListRows(qb, alias, params, indexes));
}

/**
 * `listRows` without running it: the builder as it was (its selection, parameters and
 * entity), with the SQL text that carries the hints and branches; or the builder alone where
 * the optimizer chooses.
 */
export function prepareListRows<E extends ObjectLiteral>(qb: SelectQueryBuilder<E>, alias: string, params: ListParams, indexes?: ListIndexes): Select<E> {
  if (!indexes || params.merchantReference) return qb;
  const type = qb.connection.options.type;
  const mysql = type === 'mysql' || type === 'mariadb';
  const from = `FROM ${qb.escape(qb.expressionMap.mainAlias!.metadata.tableName)} ${qb.escape(alias)}`;
  const statuses = params.statuses ?? [];
  if (indexes.byValue && statuses.length > 0) throw new Error('listRows: byValue is not combined with a status filter');
  const split = indexes.byValue
    ? {
        clause: indexes.byValue.clause,
        column: indexes.byValue.column,
        values: indexes.byValue.values,
        index: indexes.byValue.index,
        param: 'listValue',
      }
    : indexes.byStatus && statuses.length > 0
      ? { clause: statusClause(alias), column: 'status', values: statuses, index: indexes.byStatus, param: 'listStatus' }
      : undefined;
  if (!split || split.values.length === 0) return readingIndex(qb, indexes.list, indexes.sqliteToo);
  // The split filter as the builder writes it, `... IN (:...values)`, and one of its values instead.
  const list = /^\S+ IN \(:\.\.\.(\w+)\)$/.exec(split.clause);
  if (!list) throw new Error(`listRows: the ${split.column} filter "${split.clause}" is not "<column> IN (:...<param>)"`);
  const oneValue = (sql: string, i: number) => replaceOnce(sql, `IN (:...${list[1]})`, `= :${split.param}${i}`, `the ${split.column} filter`);
  split.values.forEach((value, i) => qb.setParameter(`${split.param}${i}`, value));
  if (split.values.length === 1) {
    const sql = oneValue(qb.getQuery(), 0);
    return { qb, sql: mysql ? withIndex(sql, from, qb.escape(split.index), true) : sql };
  }
  // Whole rows (the outer query picks the columns), and ORDER BY on the table's columns: with
  // an explicit selection the builder would order by the selection's aliases (`r_id`).
  const whole = qb.clone().select(alias).getQuery();
  const branches = split.values.map((_, i) => {
    let sql = oneValue(whole, i);
    if (mysql) sql = withIndex(sql, from, qb.escape(split.index), true);
    sql = sql.replace(/^SELECT [\s\S]*? FROM /, `SELECT ${qb.escape(alias)}.* FROM `);
    return `SELECT * FROM (${sql}) ${qb.escape(`${alias}_${i}`)}`;
  });
  // The outer query: the builder's selection and order, over the branches instead of the table.
  const outer = qb.getQuery();
  const start = outer.indexOf(from);
  const order = outer.lastIndexOf(' ORDER BY ');
  if (start < 0 || order < start) throw new Error(`listRows: no "${from} ... ORDER BY" in the list query`);
  return { qb, sql: `${outer.slice(0, start)}FROM (${branches.join(' UNION ALL ')}) ${qb.escape(alias)}${outer.slice(order)}` };
}

/**
 * `qb` reading `index` (a keyset over (merchant_id, environment[, column], created_at, id), in
 * either direction): forced on MySQL/MariaDB, and on SQLite with `sqliteToo`; otherwise the
 * builder as it is, the optimizer choosing.
 */
export function readingIndex<E extends ObjectLiteral>(qb: SelectQueryBuilder<E>, index: string, sqliteToo = false): Select<E> {
  const type = qb.connection.options.type;
  const mysql = type === 'mysql' || type === 'mariadb';
  if (!mysql && !sqliteToo) return qb;
  const from = `FROM ${qb.escape(qb.expressionMap.mainAlias!.metadata.tableName)} ${qb.escape(qb.alias)}`;
  return { qb, sql: withIndex(qb.getQuery(), from, qb.escape(index), mysql) };
}

/**
 * MySQL/MariaDB: `FROM t alias FORCE INDEX (index)`. Without it MariaDB 10.11 reads the
 * (merchant_id, environment) prefix as a `ref` and walks it from the newest row down to the
 * cursor (rows read = depth); forced, the keyset bound is an index range and a page reads
 * limit + 1 rows at any depth. TypeORM's `useIndex` writes USE INDEX, which does not change
 * that choice (ref and range use the same index). SQLite (`sqliteToo`): `INDEXED BY index`.
 */
function withIndex(sql: string, from: string, quoted: string, mysql: boolean): string {
  return replaceOnce(sql, from, mysql ? `${from} FORCE INDEX (${quoted})` : `${from} INDEXED BY ${quoted}`, 'the FROM clause');
}

/** `sql` with the one occurrence of `find` replaced: any other count is a query this module does not know. */
function replaceOnce(sql: string, find: string, by: string, what: string): string {
  const at = sql.indexOf(find);
  if (at < 0 || sql.indexOf(find, at + 1) >= 0) throw new Error(`listRows: ${what} ("${find}") is not in the list query once`);
  return sql.slice(0, at) + by + sql.slice(at + find.length);
}
