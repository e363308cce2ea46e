/**
 * Identifiers: a resource prefix and a ULID (time-ordered, 80 random bits), lower-cased,
 * e.g. `po_01jf3x...`. Monotonic within a process, so `id DESC` breaks ties of equal
 * `created_at` in creation order.
 */
import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

export const ID_PREFIX = {
  merchant: 'mer',
  apiKey: 'key',
  payoutIntent: 'po',
  paymentIntent: 'pi',
  paymentMethodSetting: 'pms',
  topupIntent: 'tu',
  refund: 're',
  event: 'evt',
  idempotencyKey: 'idk',
  webhookEndpoint: 'we',
  webhookDelivery: 'whd',
  webhookAttempt: 'wha',
  auditEntry: 'aud',
  ledgerEntry: 'le',
  balance: 'bal',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

export function newId(kind: IdKind, now = Date.now()): string {
  return `${ID_PREFIX[kind]}_${ulid(now).toLowerCase()}`;
}

/** A lower-case ULID (Crockford base32: no i, l, o, u; the first character 0-7). */
const ULID = '[0-7][0-9a-hjkmnp-tv-z]{25}';
const ID_SHAPE = Object.fromEntries(
  Object.entries(ID_PREFIX).map(([kind, prefix]) => [kind, new RegExp(`^${prefix}_${ULID}$`)]),
) as Record<IdKind, RegExp>;

/**
 * Whether `value` has the exact shape of an id of `kind` this service issues. Lookups
 * answer an id of any other shape (other case, padding, another prefix, any character
 * outside the alphabet) as unknown without asking the database, whose collation and
 * connection character set must then not matter.
 */
export function isId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && ID_SHAPE[kind].test(value);
}

/** URL-safe random token with `bytes` bytes of entropy. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** The id of one HTTP request, sent back as `Request-Id` and logged with everything the request does. */
export function newRequestId(): string {
  return `req_${randomToken(12)}`;
}
