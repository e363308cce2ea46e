/**
 * The SQL of a list page (the rules it follows, and the cursor, are src/domain/listing.ts):
 * scope, filters, the keyset predicate and order on the query builder (`applyList`), and the
 * index each page must read, which the builder cannot say: `FORCE INDEX` on MySQL/MariaDB,
 * `INDEXED BY` on SQLite, and one UNION ALL branch per status (`prepareListRows`), written
 * into the builder's SQL text. Run with `listRows`, or `compiledSelect` with `listValues`.
 */
import type { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { TOTAL_COUNT_CAP, type ListParams, type ListTotal } from '../domain/listing';
import type { Scope } from '../domain/scope';
import { mainTable, runSelect, type MainTable, type Select, type SelectValues } from './compiled-select';

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
  const keys = sortKeys(qb, alias, params);
  // The list's order is descending (newest first, largest amount first, ...) unless `reverse`.
  const descending = !params.reverse;
  const type = qb.connection.options.type;
  const mysql = type === 'mysql' || type === 'mariadb';
  // SQLite ranges a row value only over plain columns: its amount key, (length(amount), amount), keeps the nested form.
  const style = !params.sort || (!mysql && params.sort.money) ? 'nested' : mysql ? 'or' : 'row';
  const keysets: string[] = [];
  if (params.after) keysets.push(keyset(qb, keys, 'a', alias, descending ? '<' : '>', style));
  if (params.before) keysets.push(keyset(qb, keys, 'b', alias, descending ? '>' : '<', style));
  for (const clause of keysets) qb.andWhere(clause, keysetValues(params));
  if (keysets.length > 0) keysetClauses.set(qb, keysets);
  // `last` reads from the list's end backwards; toPage puts the page back in the list's order.
  const direction = descending !== !!params.fromEnd ? 'DESC' : 'ASC';
  keys.forEach(([column], i) => (i === 0 ? qb.orderBy(column, direction) : qb.addOrderBy(column, direction)));
  return qb.addOrderBy(`${alias}.id`, direction).limit(params.limit + 1);
}

/**
 * The keyset conditions `applyList` added to a builder, as the builder writes them (their
 * columns quoted as its property-name rewriting would quote them): `countListRows` takes them
 * out of the count's SQL text.
 */
const keysetClauses = new WeakMap<SelectQueryBuilder<ObjectLiteral>, string[]>();

/**
 * The sort's key columns before `id`, each with its cursor parameter (`a`/`b` + suffix):
 * created_at (`:at`/`:bt`); a status (`:ak`); an amount: DECIMAL on MySQL/MariaDB, compared
 * with the key as a DECIMAL (a string would be compared as a double); digit text on SQLite,
 * in numeric order as (length, text), which its expression index keeps.
 */
function sortKeys(qb: SelectQueryBuilder<ObjectLiteral>, alias: string, params: ListParams): [column: string, param: string][] {
  const sort = params.sort;
  if (!sort) return [[`${alias}.created_at`, 't']];
  const column = `${alias}.${sort.column}`;
  if (!sort.money) return [[column, 'k']];
  const type = qb.connection.options.type;
  if (type === 'mysql' || type === 'mariadb') return [[column, 'k:decimal']];
  return [
    [`LENGTH(${column})`, 'kl'],
    [column, 'k'],
  ];
}

/**
 * The keyset predicate "after (or before) the cursor" over (keys..., id), `op` `<` or `>`:
 * - `nested` (created_at, on every engine): `k <= :k AND (k < :k OR id < :id)`, the same rows
 *   as the row-value comparison, with a leading bound on k that every engine reads as an index
 *   range (ties on created_at are few: the range steps over at most a few rows);
 * - a sort key with many ties (a status, a common amount) needs the tie's own range, else a
 *   page reads every tied row beyond the cursor: `or` on MySQL/MariaDB,
 *   `k < :k OR (k = :k AND id < :id)`, two intervals of the forced index read in order; `row`
 *   on SQLite, `(k, id) < (:k, :id)`, which its planner reads as one range. SQLite does not
 *   range a row value over an expression, so its amount key (length(amount), amount) stays
 *   `nested`: a range from the cursor's digit count down, which steps over the rows of that
 *   digit count beyond the cursor (docs/decisions/0179-connections-both-ways.md).
 */
function keyset(
  qb: SelectQueryBuilder<ObjectLiteral>,
  keys: [string, string][],
  side: 'a' | 'b',
  alias: string,
  op: '<' | '>',
  style: 'nested' | 'or' | 'row',
): string {
  const param = (p: string) => (p.endsWith(':decimal') ? `CAST(:${side}${p.slice(0, -8)} AS DECIMAL(38,0))` : `:${side}${p}`);
  // `r.created_at` as the builder writes it: `"r"."created_at"` (so the clause is found as it is in its SQL).
  const quoted = (column: string) => column.replace(/\b(\w+)\.(\w+)\b/g, (_, a: string, c: string) => `${qb.escape(a)}.${qb.escape(c)}`);
  const id = quoted(`${alias}.id`);
  if (style === 'row') return `(${keys.map(([column]) => quoted(column)).join(', ')}, ${id}) ${op} (${keys.map(([, p]) => param(p)).join(', ')}, :${side}id)`;
  let clause = `${id} ${op} :${side}id`;
  for (let i = keys.length - 1; i >= 0; i--) {
    const column = quoted(keys[i][0]);
    const p = keys[i][1];
    const inner = i === keys.length - 1 ? clause : `(${clause})`;
    clause =
      style === 'or'
        ? `(${column} ${op} ${param(p)} OR (${column} = ${param(p)} AND ${inner}))`
        : `${column} ${op}= ${param(p)} AND (${column} ${op} ${param(p)} OR ${inner})`;
  }
  return clause;
}

/** The cursor values of the keyset predicates: `at`/`aid` (created_at) or `ak`(/`akl`)/`aid`, and `b...` for `before`. */
function keysetValues(params: ListParams): SelectValues {
  const v: SelectValues = {};
  const put = (side: 'a' | 'b', pos: { t: number; id: string; k?: string } | undefined) => {
    if (!pos) return;
    if (params.sort) {
      v[`${side}k`] = pos.k ?? '';
      if (params.sort.money) v[`${side}kl`] = (pos.k ?? '').length;
    } else v[`${side}t`] = pos.t;
    v[`${side}id`] = pos.id;
  };
  put('a', params.after);
  put('b', params.before);
  return v;
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
  return Object.assign(v, keysetValues(params));
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
  /**
   * The sorts other than created_at whose index `ix_<table>_<sort>_sort` (merchant_id,
   * environment, <key>, id) a sorted page reads, forced on every engine. A sorted page of a
   * caller whose indexes do not name its sort is left to the optimizer.
   */
  sorts?: readonly string[];
}

/** The conventional names: `ix_<table>_list`, `ix_<table>_status_list` and `ix_<table>_<sort>_sort`. */
export function listIndexesOf(table: string, byStatus: boolean, sorts?: readonly string[]): ListIndexes {
  const indexes: ListIndexes = byStatus ? { list: `ix_${table}_list`, byStatus: `ix_${table}_status_list` } : { list: `ix_${table}_list` };
  if (sorts) indexes.sorts = sorts;
  return indexes;
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
export async function listRows<E extends ObjectLiteral>(
  em: EntityManager,
  qb: SelectQueryBuilder<E>,
  alias: string,
  params: ListParams,
  indexes?: ListIndexes,
): Promise<E[] & { total?: ListTotal }> {
  const rows: E[] & { total?: ListTotal } = await runSelect(em, prepareListRows(qb, alias, params, indexes));
  if (params.count) rows.total = await countListRows(em, qb, alias, params, indexes);
  return rows;
}

/**
 * The size of the list `qb` (built by `applyList`) pages through: the same scope and filters
 * without the keyset, order or page size, counted up to TOTAL_COUNT_CAP + 1 rows
 * (`SELECT COUNT(*) FROM (SELECT 1 ... LIMIT cap + 1)`), through the index the list's first
 * page reads (the status or filter index for a status or `byValue` filter, else `list`; forced
 * as a page's is). A count reads at most cap + 1 index entries, whatever the table's size.
 */
export async function countListRows<E extends ObjectLiteral>(
  em: EntityManager,
  qb: SelectQueryBuilder<E>,
  alias: string,
  params: ListParams,
  indexes?: ListIndexes,
): Promise<ListTotal> {
  const counted = qb
    .clone()
    .select('1', 'one')
    .orderBy()
    .limit(TOTAL_COUNT_CAP + 1);
  // The builder's SQL without the keyset: applyList added each as the last condition of its
  // own, after the scope (`... AND <keyset>`), and nothing else writes that text.
  let sql = counted.getQuery();
  for (const clause of keysetClauses.get(qb) ?? []) sql = replaceOnce(sql, ` AND ${clause}`, '', 'the keyset condition');
  if (indexes && !params.merchantReference) {
    const index = params.statuses && indexes.byStatus ? indexes.byStatus : indexes.byValue ? indexes.byValue.index : indexes.list;
    const type = qb.connection.options.type;
    const mysql = type === 'mysql' || type === 'mariadb';
    if (mysql || (indexes.sqliteToo && index === indexes.list)) sql = withIndex(sql, tableOf(counted, sql).from, qb.escape(index), mysql);
  }
  const [query, values] = qb.connection.driver.escapeQueryWithParameters(
    `SELECT COUNT(*) AS ${qb.escape('n')} FROM (${sql}) ${qb.escape('counted')}`,
    counted.getParameters(),
  );
  const [row]: { n: number | string }[] = await em.query(query, values);
  const n = Number(row.n);
  return n > TOTAL_COUNT_CAP ? { count: TOTAL_COUNT_CAP, capped: true } : { count: n, capped: false };
}

/**
 * `listRows` without running it: the builder as it was (its selection, parameters and
 * entity), with the SQL text that carries the hints and branches; or the builder alone where
 * the optimizer chooses.
 */
export function prepareListRows<E extends ObjectLiteral>(qb: SelectQueryBuilder<E>, alias: string, params: ListParams, indexes?: ListIndexes): Select<E> {
  if (!indexes || params.merchantReference) return qb;
  if (params.sort && !indexes.sorts?.includes(params.sort.name)) return qb;
  const type = qb.connection.options.type;
  const mysql = type === 'mysql' || type === 'mariadb';
  const statuses = params.statuses ?? [];
  if (!params.sort && indexes.byValue && statuses.length > 0) throw new Error('listRows: byValue is not combined with a status filter');
  const split = params.sort
    ? undefined
    : indexes.byValue
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
  // The list index on SQLite, unless asked: the optimizer chooses, the builder runs as it is.
  if (!params.sort && !split?.values.length && !mysql && !indexes.sqliteToo) return qb;
  // The builder's SQL, written once: its text does not depend on the parameters set below.
  const outer = qb.getQuery();
  const { name: table, from } = tableOf(qb, outer);
  if (params.sort) return indexed(qb, outer, from, `ix_${table}_${params.sort.name}_sort`, true);
  if (!split || split.values.length === 0) return indexed(qb, outer, from, indexes.list, indexes.sqliteToo);
  // The split filter as the builder writes it, `... IN (:...values)`, and one of its values instead.
  const list = /^\S+ IN \(:\.\.\.(\w+)\)$/.exec(split.clause);
  if (!list) throw new Error(`listRows: the ${split.column} filter "${split.clause}" is not "<column> IN (:...<param>)"`);
  const oneValue = (sql: string, i: number) => replaceOnce(sql, `IN (:...${list[1]})`, `= :${split.param}${i}`, `the ${split.column} filter`);
  split.values.forEach((value, i) => qb.setParameter(`${split.param}${i}`, value));
  if (split.values.length === 1) {
    const sql = oneValue(outer, 0);
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
  if (type !== 'mysql' && type !== 'mariadb' && !sqliteToo) return qb;
  const sql = qb.getQuery();
  return indexed(qb, sql, tableOf(qb, sql).from, index, sqliteToo);
}

/** `readingIndex` for the builder's SQL `sql`, whose `FROM <table> <alias>` is `from`. */
function indexed<E extends ObjectLiteral>(qb: SelectQueryBuilder<E>, sql: string, from: string, index: string, sqliteToo = false): Select<E> {
  const type = qb.connection.options.type;
  const mysql = type === 'mysql' || type === 'mariadb';
  if (!mysql && !sqliteToo) return qb;
  return { qb, sql: withIndex(sql, from, qb.escape(index), mysql) };
}

/** The table the list query `sql` of `qb` reads (`FROM <table> <alias>`, as the builder writes it). */
function tableOf(qb: SelectQueryBuilder<ObjectLiteral>, sql: string): MainTable {
  const table = mainTable(qb, sql);
  if (!table) throw new Error(`listRows: no "FROM <table> ${qb.escape(qb.alias)}" in the list query`);
  return table;
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
