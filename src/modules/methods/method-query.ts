/**
 * The discovery query, parsed without touching the database: GET /v1/payment_method_options
 * (and the GraphQL arguments mapped onto it) becomes EligibilityCriteria; the GraphQL
 * `first`/`after` arguments become a position in the (short, in-memory) result.
 */
import { ApiError } from '../../domain/errors';
import { amountOf, upper } from '../../domain/fields';
import { check } from '../../domain/schema';
import { CHECKOUT_MODES, CheckoutMode } from './catalogue';
import { DiscoveryQuery } from './method.schemas';

export interface EligibilityCriteria {
  amount?: bigint;
  currency?: string;
  country?: string;
  checkoutMode: CheckoutMode;
  /** Strict pin: only this provider's offers. */
  provider?: string;
}

export function parseCheckoutMode(value: string, param: string): CheckoutMode {
  const mode = value.trim().toLowerCase();
  if (!(CHECKOUT_MODES as readonly string[]).includes(mode)) throw ApiError.validation(param, `${param} must be one of: ${CHECKOUT_MODES.join(', ')}.`);
  return mode as CheckoutMode;
}

/**
 * Query of GET /v1/payment_method_options (and the GraphQL arguments mapped onto it):
 * checked against DiscoveryQuery (src/modules/methods/method.schemas.ts), then normalised.
 */
export function parseDiscoveryQuery(raw: Record<string, unknown>): EligibilityCriteria {
  const query = check(DiscoveryQuery, raw, 'query');
  const criteria: EligibilityCriteria = { checkoutMode: 'direct' };
  if (query.amount !== undefined) criteria.amount = amountOf(query.amount);
  if (query.currency !== undefined) criteria.currency = upper(query.currency);
  if (query.country !== undefined) criteria.country = upper(query.country);
  if (query.checkout_mode !== undefined) criteria.checkoutMode = query.checkout_mode.trim().toLowerCase() as CheckoutMode;
  if (query.provider !== undefined) criteria.provider = query.provider.trim().toLowerCase();
  return criteria;
}

// ---- paging (GraphQL paymentMethodOptions; REST returns the whole list as one page) ----

export const DISCOVERY_PAGE_DEFAULT = 100;
const DISCOVERY_PAGE_MAX = 100;

export interface DiscoveryPaging {
  /** Index of the first item of the page. */
  start: number;
  first: number;
}

/** The cursor that resumes after the item at `index`. */
export function discoveryCursor(index: number): string {
  return Buffer.from(`pmo:${index}`).toString('base64url');
}

/** `after` is checked before `first`, so a request with both wrong reports `after`. */
export function parseDiscoveryPaging(first: number | null | undefined, after: string | null | undefined): DiscoveryPaging {
  let start = 0;
  if (after !== undefined && after !== null) {
    const m = /^pmo:(\d{1,4})$/.exec(Buffer.from(after, 'base64url').toString('utf8'));
    if (!m) throw ApiError.validation('after', 'after is not a cursor returned by paymentMethodOptions.');
    start = Number(m[1]) + 1;
  }
  const size = first ?? DISCOVERY_PAGE_DEFAULT;
  if (!Number.isInteger(size) || size < 1 || size > DISCOVERY_PAGE_MAX) {
    throw ApiError.validation('first', `first must be a whole number from 1 to ${DISCOVERY_PAGE_MAX}.`);
  }
  return { start, first: size };
}
