/**
 * The listing rules shared by every list endpoint: query parsing (wire names from
 * docs/contract.md), limits, filters, and pages over a keyset cursor (created_at DESC, id DESC;
 * ./list-cursor.ts). No OFFSET: page N costs the same as page 1. The SQL that reads a page
 * (filters, keyset predicate, index hints) is src/db/list-query.ts.
 */
import { ApiError } from './errors';
import { Type, type TSchema } from '@sinclair/typebox';
import { COUNTRY, CURRENCY } from './validation';
import { check } from './schema';
import type { Scope } from './scope';
import { cursorEncoder, decodeCursor, DEFAULT_SORT, type KeysetPosition } from './list-cursor';

export { decodeCursor, encodeCursor, DEFAULT_SORT, type KeysetPosition } from './list-cursor';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/** How a list is sorted by another key than created_at (ties broken by id). */
export interface ListSort {
  /** The sort's name in cursors and index names (`amount`, `status`). */
  name: string;
  /** The entity property the cursor takes the key from. */
  property: string;
  /** The column. */
  column: string;
  /** A money column: DECIMAL on MySQL/MariaDB, digit text on SQLite (ordered by length, then text). */
  money?: boolean;
}

/**
 * The GraphQL sorts of the dashboard's main lists (payment, payout and topup intents, refunds):
 * by amount (numerically) or status, ties broken by id; each has its keyset index
 * `ix_<table>_<name>_sort` (migration 1741617900000).
 */
export const AMOUNT_AND_STATUS_SORTS: Record<string, ListSort> = {
  amount: { name: 'amount', property: 'amount', column: 'amount', money: true },
  status: { name: 'status', property: 'status', column: 'status' },
};

/** `totalCount` counts at most this many records (see `ListTotal`). */
export const TOTAL_COUNT_CAP = 10_000;

/** The size of a filtered list: exact up to TOTAL_COUNT_CAP; `capped` when it has more (count is then the cap). */
export interface ListTotal {
  count: number;
  capped: boolean;
}

export interface ListParams {
  limit: number;
  /** The page starts after this position (in the list's order). */
  after?: KeysetPosition;
  /** GraphQL `before`: the page ends before this position (in the list's order). */
  before?: KeysetPosition;
  /** GraphQL `last`: the page is the `limit` items just before `before` (or the list's end), still in the list's order. */
  fromEnd?: boolean;
  /** GraphQL `sortKey` other than CREATED_AT (absent: created_at, the REST lists' order). */
  sort?: ListSort;
  /** GraphQL `reverse`: ascending by the sort key and id, instead of descending. */
  reverse?: boolean;
  /** GraphQL `totalCount` selected: count the filtered list too (`ListTotal`). */
  count?: boolean;
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
  /** More items follow in the direction the page was read (REST: a next page; GraphQL `last`: a previous one). */
  hasMore: boolean;
  /** The last item's cursor when another page follows (REST's `next_cursor`), else null. */
  nextCursor: string | null;
  /** GraphQL PageInfo; absent: forward only, `hasMore` says hasNextPage. */
  hasNextPage?: boolean;
  hasPreviousPage?: boolean;
  /** The size of the filtered list, when it was asked for (`ListParams.count`). */
  total?: ListTotal;
  /**
   * The cursor that resumes after element `i` (Relay edge cursors). Computed on demand: REST
   * sends only `nextCursor`, so a page encodes one cursor, not one per row. Each position is
   * signed once: GraphQL's `endCursor` is the `nextCursor` already made.
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
  /** Sorts other than created_at the GraphQL list offers (`sortKey`), each read through `ix_<table>_<name>_sort`. */
  sorts?: Record<string, ListSort>;
}

/** The GraphQL-only paging of a connection, beside the REST names (`limit`, `cursor`) in a list query. */
export const GRAPHQL_PAGING = Symbol('graphql paging');

export interface GraphqlPaging {
  /** Whether `first` was given (it has a default, which `last` replaces). */
  firstGiven: boolean;
  last?: number;
  before?: string;
  /** A sort of the spec's `sorts`, or created_at. */
  sort?: string;
  reverse?: boolean;
  count?: boolean;
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
  const real =
    +month >= 1 &&
    +month <= 12 &&
    +day >= 1 &&
    +day <= daysInMonth(+year, +month) &&
    +hour <= 23 &&
    +minute <= 59 &&
    +second <= 59 &&
    +offHour <= 23 &&
    +offMinute <= 59;
  const ms = real ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw ApiError.validation(param, `${param} is not a real calendar date-time: its month, day, time or offset does not exist.`);
  }
  return fraction.length > 3 && /[1-9]/.test(fraction.slice(3)) ? ms + 1 : ms;
}

export const CURSOR_DESCRIPTION =
  "Opaque: the `next_cursor` of the previous page, sent back unchanged. Only a cursor the service issued for this list and API key's environment works; any other value is 400 validation_error naming `cursor`.";

/** `limit` and `cursor`, as every listing takes them. */
export const PAGING_QUERY = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Page size.' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$', description: CURSOR_DESCRIPTION })),
};

const Instant = (description: string) =>
  Type.String({
    format: 'date-time',
    pattern: ISO_WITH_OFFSET.source,
    'x-expected': 'an ISO 8601 date-time with an offset, e.g. 2026-01-31T23:59:59.000Z',
    description,
  });

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
    properties.status = Type.Optional(
      Type.String({
        pattern: `^${one}(?:,${one})*$`,
        'x-expected': `one or a comma-separated list of: ${spec.statuses.join(', ')}`,
        description: `One state or a comma-separated list of: ${spec.statuses.join(', ')}.`,
      }),
    );
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
export function parseListQuery(raw: Record<string, unknown>, spec: ListSpec, scope: Scope, resource = spec.resource): ListParams {
  const paging = (raw as { [GRAPHQL_PAGING]?: GraphqlPaging })[GRAPHQL_PAGING];
  // The REST names only: the GraphQL paging rides beside them under a symbol.
  const query = check(listQuerySchema(spec), paging ? Object.fromEntries(Object.entries(raw)) : raw, 'query') as Record<string, string | number | undefined>;
  const text = (name: string) => (query[name] === undefined ? undefined : String(query[name]));
  const params: ListParams = { limit: query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit), extra: {} };
  let sortName = DEFAULT_SORT;
  if (paging) {
    sortName = paging.sort ?? DEFAULT_SORT;
    if (sortName !== DEFAULT_SORT) {
      const sort = spec.sorts?.[sortName];
      if (!sort) throw ApiError.validation('sortKey', `This list is not sorted by ${sortName}.`);
      params.sort = sort;
    }
    if (paging.reverse) params.reverse = true;
    if (paging.count) params.count = true;
    if (paging.last !== undefined && paging.last !== null) {
      if (paging.firstGiven) throw ApiError.validation('last', 'Give first or last, not both: first pages forward from after, last backward from before.');
      if (!Number.isInteger(paging.last) || paging.last < 1 || paging.last > MAX_LIMIT)
        throw ApiError.validation('last', `last must be a whole number from 1 to ${MAX_LIMIT}.`);
      params.limit = paging.last;
      params.fromEnd = true;
    }
    if (paging.before !== undefined && paging.before !== null) params.before = decodeCursor(resource, scope, paging.before, 'before', sortName);
  }
  const cursor = text('cursor');
  if (cursor !== undefined) params.after = decodeCursor(resource, scope, cursor, 'cursor', sortName);
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
 * A page from the rows of a list query (which fetches limit + 1: a row beyond the page says
 * there is more), each made wire by `toWire`, with the cursor that resumes after it.
 */
export function toPage<R extends { id: string; createdAt: Date }, W>(
  rows: R[] & { total?: ListTotal },
  params: ListParams,
  resource: string,
  scope: Scope,
  toWire: (row: R) => W,
): Page<W> {
  const hasMore = rows.length > params.limit;
  let pageRows = hasMore ? rows.slice(0, params.limit) : rows;
  // `last`: read from the end backwards (limit + 1), shown in the list's order.
  if (params.fromEnd) pageRows = pageRows.slice().reverse();
  const sort = params.sort;
  const encode = cursorEncoder(resource, scope, sort?.name ?? DEFAULT_SORT);
  const positionOf = sort
    ? (row: R) => ({ t: 0, id: row.id, k: String((row as Record<string, unknown>)[sort.property]) })
    : (row: R) => ({ t: row.createdAt.getTime(), id: row.id });
  const cursors: string[] = [];
  const cursorAt = (i: number) => (cursors[i] ??= encode(positionOf(pageRows[i])));
  return {
    data: pageRows.map(toWire),
    hasMore,
    nextCursor: hasMore && !params.fromEnd ? cursorAt(pageRows.length - 1) : null,
    // Relay: the far side of a cursor is known to have items without reading it (the
    // cursor's own row, unless it was deleted since); `hasMore` is the side the page was read.
    hasNextPage: params.fromEnd ? params.before !== undefined : hasMore,
    hasPreviousPage: params.fromEnd ? hasMore : params.after !== undefined,
    total: rows.total,
    cursorAt,
  };
}
