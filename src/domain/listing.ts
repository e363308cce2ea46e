/**
 * The listing rules shared by every list endpoint: query parsing (wire names from
 * CONTRACT.md), filters, and a keyset cursor over (created_at DESC, id DESC).
 * No OFFSET: page N costs the same as page 1.
 */
import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ApiError } from './errors';
import { Type, type TSchema } from '@sinclair/typebox';
import { COUNTRY, CURRENCY } from './validation';
import { check } from './schema';
import type { Scope } from './scope';
import { sha256Hex } from './canonical';
import type { SelectValues } from '../db/compiled-select';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export interface KeysetPosition {
  t: number;
  id: string;
}

export interface ListParams {
  limit: number;
  after?: KeysetPosition;
  statuses?: string[];
  country?: string;
  currency?: string;
  merchantReference?: string;
  createdGte?: number;
  createdLt?: number;
  /** Resource-specific filters (e.g. event `type`), already validated. */
  extra: Record<string, string>;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
  /**
   * The cursor that resumes after element `i` (Relay edge cursors). Computed on demand: REST
   * sends only `nextCursor`, so a page encodes one cursor, not one per row.
   */
  cursorAt(i: number): string;
}

export interface ListSpec {
  /** Cursor namespace, e.g. `payout_intent`; a cursor of another resource is rejected. */
  resource: string;
  statuses: readonly string[];
  /** Extra query parameters this resource accepts: their schema, and what to make of a valid value. */
  extra?: Record<string, { schema: TSchema; parse?: (value: string) => string }>;
  /** Resources without these columns opt out of the filters. */
  noCountryCurrency?: boolean;
  noMerchantReference?: boolean;
}

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

const isLeapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** Days in `month` (1-12) of `year` in the proleptic Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * ISO 8601 date-time with an offset -> epoch ms, rounding sub-millisecond parts up so bounds
 * stay exact. The fields must name a real instant: `2026-02-30`, `2026-13-01`, `2026-02-29`
 * (not a leap year), hour 24, second 60 or an offset beyond 23:59 are refused, never rolled
 * over into the next day or month as `Date.parse` would.
 */
export function parseIsoInstant(value: string, param: string): number {
  const m = ISO_WITH_OFFSET.exec(value);
  if (!m) {
    throw ApiError.validation(param, `${param} must be an ISO 8601 date-time with an offset, e.g. 2026-01-31T23:59:59.000Z.`);
  }
  const [, year, month, day, hour, minute, second = '0', fraction = '', , offHour = '0', offMinute = '0'] = m;
  const real = +month >= 1 && +month <= 12 && +day >= 1 && +day <= daysInMonth(+year, +month)
    && +hour <= 23 && +minute <= 59 && +second <= 59 && +offHour <= 23 && +offMinute <= 59;
  const ms = real ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw ApiError.validation(param, `${param} is not a real calendar date-time: its month, day, time or offset does not exist.`);
  }
  return fraction.length > 3 && /[1-9]/.test(fraction.slice(3)) ? ms + 1 : ms;
}

/** Recent scope tags: a list request decodes one cursor and encodes one, both with its scope's tag. */
const scopeTags = new Map<string, string>();
const SCOPE_TAG_CACHE = 1024;

function scopeTag(scope: Scope): string {
  const key = `${scope.merchantId}/${scope.environment}`;
  let tag = scopeTags.get(key);
  if (tag === undefined) {
    tag = sha256Hex(key).slice(0, 16);
    if (scopeTags.size >= SCOPE_TAG_CACHE) scopeTags.delete(scopeTags.keys().next().value as string);
    scopeTags.set(key, tag);
  }
  return tag;
}

function encodeWithTag(resource: string, tag: string, pos: KeysetPosition): string {
  return Buffer.from(JSON.stringify([1, resource, tag, pos.t, pos.id])).toString('base64url');
}

export function encodeCursor(resource: string, scope: Scope, pos: KeysetPosition): string {
  return encodeWithTag(resource, scopeTag(scope), pos);
}

export function decodeCursor(resource: string, scope: Scope, cursor: string, param = 'cursor'): KeysetPosition {
  const invalid = () => ApiError.validation(param, `${param} is not a cursor returned by this list for this API key.`);
  if (cursor.length === 0 || cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) throw invalid();
  const [version, res, tag, t, id] = parsed;
  if (version !== 1 || res !== resource || tag !== scopeTag(scope) || !Number.isSafeInteger(t) || typeof id !== 'string') {
    throw invalid();
  }
  return { t, id };
}

/** `limit` and `cursor`, as every listing takes them. */
export const PAGING_QUERY = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Page size.' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$', description: "The previous page's next_cursor." })),
};

const Instant = (description: string) => Type.String({ format: 'date-time', pattern: ISO_WITH_OFFSET.source, 'x-expected': 'an ISO 8601 date-time with an offset, e.g. 2026-01-31T23:59:59.000Z', description });

function alternatives(values: readonly string[]): string {
  return values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
}

const querySchemas = new WeakMap<ListSpec, TSchema>();

/** The query string a listing accepts: the schema that validates it and that the OpenAPI document shows. */
export function listQuerySchema(spec: ListSpec): TSchema {
  let schema = querySchemas.get(spec);
  if (schema) return schema;
  const properties: Record<string, TSchema> = { ...PAGING_QUERY };
  if (spec.statuses.length > 0) {
    const one = `\\s*(?:${alternatives(spec.statuses)})\\s*`;
    properties.status = Type.Optional(Type.String({
      pattern: `^${one}(?:,${one})*$`,
      'x-expected': `one or a comma-separated list of: ${spec.statuses.join(', ')}`,
      description: `One state or a comma-separated list of: ${spec.statuses.join(', ')}.`,
    }));
  }
  if (!spec.noCountryCurrency) {
    properties.country = Type.Optional(Type.String({ pattern: COUNTRY.source, 'x-expected': 'an upper-case ISO 3166-1 alpha-2 code such as TH' }));
    properties.currency = Type.Optional(Type.String({ pattern: CURRENCY.source, 'x-expected': 'an upper-case code of 3 to 6 letters such as THB' }));
  }
  if (!spec.noMerchantReference) properties.merchant_reference = Type.Optional(Type.String({ minLength: 1, maxLength: 256 }));
  properties.created_gte = Type.Optional(Instant('Inclusive lower bound of created_at.'));
  properties.created_lt = Type.Optional(Instant('Exclusive upper bound of created_at.'));
  for (const [name, filter] of Object.entries(spec.extra ?? {})) properties[name] = Type.Optional(filter.schema);
  properties.environment = Type.Optional(Type.String({ description: 'Accepted and ignored: the API key alone decides the environment.' }));
  schema = Type.Object(properties, { additionalProperties: false });
  querySchemas.set(spec, schema);
  return schema;
}

/** Parses REST query parameters (or the GraphQL arguments mapped onto them). */
export function parseListQuery(raw: Record<string, unknown>, spec: ListSpec, scope: Scope): ListParams {
  const query = check(listQuerySchema(spec), raw, 'query') as Record<string, string | number | undefined>;
  const text = (name: string) => (query[name] === undefined ? undefined : String(query[name]));
  const params: ListParams = { limit: query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit), extra: {} };
  const cursor = text('cursor');
  if (cursor !== undefined) params.after = decodeCursor(spec.resource, scope, cursor);
  const status = text('status');
  if (status !== undefined) params.statuses = [...new Set(status.split(',').map((s) => s.trim()))];
  params.country = text('country');
  params.currency = text('currency');
  params.merchantReference = text('merchant_reference');
  const gte = text('created_gte');
  if (gte !== undefined) params.createdGte = parseIsoInstant(gte, 'created_gte');
  const lt = text('created_lt');
  if (lt !== undefined) params.createdLt = parseIsoInstant(lt, 'created_lt');
  for (const [name, filter] of Object.entries(spec.extra ?? {})) {
    const value = text(name);
    if (value !== undefined) params.extra[name] = filter.parse ? filter.parse(value) : value;
  }
  return params;
}

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
export function applyList<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  alias: string,
  scope: Scope,
  params: ListParams,
): SelectQueryBuilder<E> {
  qb.where(`${alias}.merchant_id = :merchantId AND ${alias}.environment = :environment`, { merchantId: scope.merchantId, environment: scope.environment });
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

function isMysqlFamily(qb: SelectQueryBuilder<ObjectLiteral>): boolean {
  const type = qb.connection.options.type;
  return type === 'mysql' || type === 'mariadb';
}

/**
 * MySQL/MariaDB: `FROM t alias FORCE INDEX (index)`. Without it MariaDB 10.11 reads the
 * (merchant_id, environment) prefix as a `ref` and walks it from the newest row down to the
 * cursor (rows read = depth); forced, the keyset bound is an index range and a page reads
 * limit + 1 rows at any depth. TypeORM's `useIndex` writes USE INDEX, which does not change
 * that choice (ref and range use the same index). SQLite (`sqliteToo`): `INDEXED BY index`.
 */
function forceIndex<E extends ObjectLiteral>(qb: SelectQueryBuilder<E>, alias: string, index: string, mysql = true): void {
  const from = `FROM ${qb.escape(qb.expressionMap.mainAlias!.metadata.tableName)} ${qb.escape(alias)}`;
  const hint = mysql ? `${from} FORCE INDEX (${qb.escape(index)})` : `${from} INDEXED BY ${qb.escape(index)}`;
  const getQuery = qb.getQuery.bind(qb);
  qb.getQuery = () => {
    const sql = getQuery();
    if (!sql.includes(from)) throw new Error(`listRows: no "${from}" in the list query`);
    return sql.replace(from, hint);
  };
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
 * One SQL statement in every case.
 */
export function listRows<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  alias: string,
  params: ListParams,
  indexes?: ListIndexes,
): Promise<E[]> {
  return prepareListRows(qb, alias, params, indexes).getMany();
}

/**
 * The named values of the query that `applyList` + `prepareListRows` build, for running it
 * through `compiledSelect` (which learns their order once per shape).
 */
export function listValues(scope: Scope, params: ListParams): SelectValues {
  const v: SelectValues = { merchantId: scope.merchantId, environment: scope.environment };
  if (params.statuses) {
    v.statuses = params.statuses;
    params.statuses.forEach((status, i) => { v[`listStatus${i}`] = status; });
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

/** `listRows` without running it: the query builder, hints and branches in place. */
export function prepareListRows<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  alias: string,
  params: ListParams,
  indexes?: ListIndexes,
): SelectQueryBuilder<E> {
  if (!indexes || params.merchantReference) return qb;
  const mysql = isMysqlFamily(qb);
  const statuses = params.statuses ?? [];
  if (indexes.byValue && statuses.length > 0) throw new Error('listRows: byValue is not combined with a status filter');
  const split = indexes.byValue
    ? { clause: indexes.byValue.clause, column: indexes.byValue.column, values: indexes.byValue.values, index: indexes.byValue.index, param: 'listValue' }
    : indexes.byStatus && statuses.length > 0
      ? { clause: statusClause(alias), column: 'status', values: statuses, index: indexes.byStatus, param: 'listStatus' }
      : undefined;
  if (!split || split.values.length === 0) {
    if (mysql || indexes.sqliteToo) forceIndex(qb, alias, indexes.list, mysql);
    return qb;
  }
  const withValue = (target: SelectQueryBuilder<E>, condition: string) => {
    let found = false;
    target.expressionMap.wheres = target.expressionMap.wheres.map((w) => {
      if (w.condition !== split.clause) return w;
      found = true;
      return { ...w, condition };
    });
    if (!found) throw new Error(`listRows: the ${split.column} filter "${split.clause}" is missing`);
  };
  if (split.values.length === 1) {
    withValue(qb, `${alias}.${split.column} = :${split.param}0`);
    qb.setParameter(`${split.param}0`, split.values[0]);
    if (mysql) forceIndex(qb, alias, split.index);
    return qb;
  }
  const branches = split.values.map((value, i) => {
    const branch = qb.clone();
    // Whole rows (the outer query picks the columns), and ORDER BY on the table's columns: with
    // an explicit selection TypeORM would order by the selection's aliases (`r_id`).
    branch.expressionMap.selects = [{ selection: alias }];
    withValue(branch, `${alias}.${split.column} = :${split.param}${i}`);
    if (mysql) forceIndex(branch, alias, split.index);
    const sql = branch.getQuery().replace(/^SELECT [\s\S]*? FROM /, `SELECT ${qb.escape(alias)}.* FROM `);
    qb.setParameter(`${split.param}${i}`, value);
    return `SELECT * FROM (${sql}) ${qb.escape(`${alias}_${i}`)}`;
  });
  qb.expressionMap.mainAlias!.subQuery = `(${branches.join(' UNION ALL ')})`;
  qb.expressionMap.wheres = [];
  return qb;
}

export function toPage<R extends { id: string; createdAt: Date }, W>(
  rows: R[],
  params: ListParams,
  resource: string,
  scope: Scope,
  toWire: (row: R) => W,
): Page<W> {
  const hasMore = rows.length > params.limit;
  const pageRows = hasMore ? rows.slice(0, params.limit) : rows;
  const tag = scopeTag(scope);
  const cursorAt = (i: number) => encodeWithTag(resource, tag, { t: pageRows[i].createdAt.getTime(), id: pageRows[i].id });
  return {
    data: pageRows.map(toWire),
    hasMore,
    nextCursor: hasMore ? cursorAt(pageRows.length - 1) : null,
    cursorAt,
  };
}
