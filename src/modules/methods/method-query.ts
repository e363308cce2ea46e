/**
 * The discovery query, parsed without touching the database: GET /v1/payment_method_options
 * (and the GraphQL arguments mapped onto it) becomes EligibilityCriteria; the GraphQL
 * `first`/`after` arguments become a position in the (short, in-memory) result.
 */
import { ApiError } from '../../domain/errors';
import { parseAmount } from '../../domain/money';
import { COUNTRY, CURRENCY } from '../../domain/validation';
import { CHECKOUT_MODES, CheckoutMode } from './catalogue';

export interface EligibilityCriteria {
  amount?: bigint;
  currency?: string;
  country?: string;
  checkoutMode: CheckoutMode;
  /** Strict pin: only this provider's offers. */
  provider?: string;
}

const DISCOVERY_PARAMS = new Set(['amount', 'currency', 'country', 'checkout_mode', 'provider']);
/** Accepted and ignored: the API key alone decides the environment. */
const IGNORED_PARAMS = new Set(['environment']);
const PROVIDER_PIN = /^[a-z0-9_-]{1,64}$/;

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw ApiError.validation(name, `${name} must be given once.`);
  return value;
}

export function parseCheckoutMode(value: string, param: string): CheckoutMode {
  const mode = value.trim().toLowerCase();
  if (!(CHECKOUT_MODES as readonly string[]).includes(mode)) throw ApiError.validation(param, `${param} must be one of: ${CHECKOUT_MODES.join(', ')}.`);
  return mode as CheckoutMode;
}

/** Query of GET /v1/payment_method_options (and the GraphQL arguments mapped onto it). */
export function parseDiscoveryQuery(query: Record<string, unknown>): EligibilityCriteria {
  for (const key of Object.keys(query)) {
    if (!DISCOVERY_PARAMS.has(key) && !IGNORED_PARAMS.has(key)) throw ApiError.validation(key, `Unknown query parameter ${key}.`);
  }
  const criteria: EligibilityCriteria = { checkoutMode: 'direct' };
  const amount = single(query, 'amount');
  if (amount !== undefined) criteria.amount = parseAmount(amount);
  const currency = single(query, 'currency');
  if (currency !== undefined) {
    criteria.currency = currency.trim().toUpperCase();
    if (!CURRENCY.test(criteria.currency)) throw ApiError.validation('currency', 'currency must be 3 to 6 letters, such as THB.');
  }
  if (criteria.amount !== undefined && criteria.currency === undefined) {
    throw ApiError.validation('currency', 'currency is required when amount is given: amounts are in minor units of a currency.');
  }
  const country = single(query, 'country');
  if (country !== undefined) {
    criteria.country = country.trim().toUpperCase();
    if (!COUNTRY.test(criteria.country)) throw ApiError.validation('country', 'country must be an ISO 3166-1 alpha-2 code such as TH.');
  }
  const mode = single(query, 'checkout_mode');
  if (mode !== undefined) criteria.checkoutMode = parseCheckoutMode(mode, 'checkout_mode');
  const provider = single(query, 'provider');
  if (provider !== undefined) {
    criteria.provider = provider.trim().toLowerCase();
    if (!PROVIDER_PIN.test(criteria.provider)) throw ApiError.validation('provider', 'provider must be 1 to 64 letters, digits, "-" or "_".');
  }
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
