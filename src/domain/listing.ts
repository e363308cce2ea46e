/**
 * The listing rules shared by every list endpoint: query parsing (wire names from
 * CONTRACT.md), filters, and a keyset cursor over (created_at DESC, id DESC).
 * No OFFSET: page N costs the same as page 1.
 */
import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ApiError } from './errors';
import { COUNTRY, CURRENCY, charLength } from './validation';
import type { Scope } from './scope';
import { sha256Hex } from './canonical';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
const BASE_PARAMS = ['limit', 'cursor', 'status', 'country', 'currency', 'merchant_reference', 'created_gte', 'created_lt'];
/** Accepted and ignored: the API key alone decides the environment. */
const IGNORED_PARAMS = new Set(['environment']);

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
  /** The cursor that resumes after each element (Relay edge cursors). */
  cursors: string[];
}

export interface ListSpec {
  /** Cursor namespace, e.g. `payout_intent`; a cursor of another resource is rejected. */
  resource: string;
  statuses: readonly string[];
  /** Extra query parameters this resource accepts, with their validators. */
  extra?: Record<string, (value: string) => string>;
  /** Resources without these columns opt out of the filters. */
  noCountryCurrency?: boolean;
  noMerchantReference?: boolean;
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw ApiError.validation(name, `${name} must be given once.`);
  return value;
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

function scopeTag(scope: Scope): string {
  return sha256Hex(`${scope.merchantId}/${scope.environment}`).slice(0, 16);
}

export function encodeCursor(resource: string, scope: Scope, pos: KeysetPosition): string {
  return Buffer.from(JSON.stringify([1, resource, scopeTag(scope), pos.t, pos.id])).toString('base64url');
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

/** Parses REST query parameters (or the GraphQL arguments mapped onto them). */
export function parseListQuery(query: Record<string, unknown>, spec: ListSpec, scope: Scope): ListParams {
  const allowed = new Set([...BASE_PARAMS, ...Object.keys(spec.extra ?? {})]);
  if (spec.noCountryCurrency) {
    allowed.delete('country');
    allowed.delete('currency');
  }
  if (spec.noMerchantReference) allowed.delete('merchant_reference');
  for (const key of Object.keys(query)) {
    if (!allowed.has(key) && !IGNORED_PARAMS.has(key)) throw ApiError.validation(key, `Unknown query parameter ${key}.`);
  }
  const params: ListParams = { limit: DEFAULT_LIMIT, extra: {} };

  const limit = single(query, 'limit');
  if (limit !== undefined) {
    if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) {
      throw ApiError.validation('limit', `limit must be a whole number from 1 to ${MAX_LIMIT}.`);
    }
    params.limit = Number(limit);
  }
  const cursor = single(query, 'cursor');
  if (cursor !== undefined) params.after = decodeCursor(spec.resource, scope, cursor);

  const status = single(query, 'status');
  if (status !== undefined) {
    const statuses = status.split(',').map((s) => s.trim());
    for (const s of statuses) {
      if (!spec.statuses.includes(s)) {
        throw ApiError.validation('status', `status must be one or a comma-separated list of: ${spec.statuses.join(', ')}.`);
      }
    }
    params.statuses = [...new Set(statuses)];
  }
  const country = single(query, 'country');
  if (country !== undefined) {
    if (!COUNTRY.test(country)) throw ApiError.validation('country', 'country must match ^[A-Z]{2}$.');
    params.country = country;
  }
  const currency = single(query, 'currency');
  if (currency !== undefined) {
    if (!CURRENCY.test(currency)) throw ApiError.validation('currency', 'currency must match ^[A-Z]{3,6}$.');
    params.currency = currency;
  }
  const reference = single(query, 'merchant_reference');
  if (reference !== undefined) {
    const len = charLength(reference);
    if (len < 1 || len > 256) throw ApiError.validation('merchant_reference', 'merchant_reference must be 1 to 256 characters.');
    params.merchantReference = reference;
  }
  const gte = single(query, 'created_gte');
  if (gte !== undefined) params.createdGte = parseIsoInstant(gte, 'created_gte');
  const lt = single(query, 'created_lt');
  if (lt !== undefined) params.createdLt = parseIsoInstant(lt, 'created_lt');

  for (const [name, validate] of Object.entries(spec.extra ?? {})) {
    const value = single(query, name);
    if (value !== undefined) params.extra[name] = validate(value);
  }
  return params;
}

/**
 * Adds scope, filters, keyset and order to a query over a table with columns
 * merchant_id, environment, created_at, id (and status, country, currency,
 * merchant_reference unless the spec opts out). Fetches one row more than the page.
 */
export function applyList<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  alias: string,
  scope: Scope,
  params: ListParams,
): SelectQueryBuilder<E> {
  qb.where(`${alias}.merchant_id = :merchantId AND ${alias}.environment = :environment`, scope);
  if (params.statuses) qb.andWhere(`${alias}.status IN (:...statuses)`, { statuses: params.statuses });
  if (params.country) qb.andWhere(`${alias}.country = :country`, { country: params.country });
  if (params.currency) qb.andWhere(`${alias}.currency = :currency`, { currency: params.currency });
  if (params.merchantReference) qb.andWhere(`${alias}.merchant_reference = :mref`, { mref: params.merchantReference });
  if (params.createdGte !== undefined) qb.andWhere(`${alias}.created_at >= :gte`, { gte: params.createdGte });
  if (params.createdLt !== undefined) qb.andWhere(`${alias}.created_at < :lt`, { lt: params.createdLt });
  if (params.after) {
    qb.andWhere(`(${alias}.created_at < :at OR (${alias}.created_at = :at AND ${alias}.id < :aid))`, {
      at: params.after.t,
      aid: params.after.id,
    });
  }
  return qb
    .orderBy(`${alias}.created_at`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .limit(params.limit + 1);
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
  const cursors = pageRows.map((r) => encodeCursor(resource, scope, { t: r.createdAt.getTime(), id: r.id }));
  return {
    data: pageRows.map(toWire),
    hasMore,
    nextCursor: hasMore ? cursors[cursors.length - 1] : null,
    cursors,
  };
}
