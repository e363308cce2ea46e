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
import { cursorEncoder, decodeCursor, type KeysetPosition } from './list-cursor';

export { decodeCursor, encodeCursor, type KeysetPosition } from './list-cursor';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

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

/** `limit` and `cursor`, as every listing takes them. */
export const PAGING_QUERY = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Page size.' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$', description: "The previous page's next_cursor." })),
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
 * A page from the rows of a list query (which fetches limit + 1: a row beyond the page says
 * there is more), each made wire by `toWire`, with the cursor that resumes after it.
 */
export function toPage<R extends { id: string; createdAt: Date }, W>(
  rows: R[],
  params: ListParams,
  resource: string,
  scope: Scope,
  toWire: (row: R) => W,
): Page<W> {
  const hasMore = rows.length > params.limit;
  const pageRows = hasMore ? rows.slice(0, params.limit) : rows;
  const encode = cursorEncoder(resource, scope);
  const cursorAt = (i: number) => encode({ t: pageRows[i].createdAt.getTime(), id: pageRows[i].id });
  return {
    data: pageRows.map(toWire),
    hasMore,
    nextCursor: hasMore ? cursorAt(pageRows.length - 1) : null,
    cursorAt,
  };
}
