/**
 * Identifiers: a resource prefix and a ULID (time-ordered, 80 random bits), lower-cased,
 * e.g. `po_01jf3x...`. Monotonic within a process, so `id DESC` breaks ties of equal
 * `created_at` in creation order.
 */
import { randomBytes } from 'node:crypto';

/** Crockford base32, lower case (the ULID alphabet). */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const TWO_POW_40 = 2 ** 40;
/**
 * Random bytes drawn in bulk for ids (ULIDs' 10 bytes, request ids' 12): one `randomBytes`
 * call per 8 KiB instead of one per id (16 random values per ULID in the `ulid` package; a
 * call per request id was 3-5% of a REST read's CPU). Ids are not secrets.
 */
const POOL_BYTES = 8192;
let pool = Buffer.alloc(0);
let poolAt = 0;

/** The offset in `pool` of `n` fresh random bytes (the pool is refilled when it runs short). */
function pooled(n: number): number {
  if (poolAt + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += n;
  return at;
}
/** The last id's time and its 80 random bits as two 40-bit halves (monotonic within the process). */
let lastTime = -1;
let randHi = 0;
let randLo = 0;

/** `chars` base32 digits of `value` (< 2^(5 * chars) and < 2^31: bit operations apply). */
function digits(value: number, chars: number): string {
  let out = '';
  for (let shift = 5 * (chars - 1); shift >= 0; shift -= 5) out += ALPHABET[(value >>> shift) & 31];
  return out;
}

/** 40 bits as 8 digits. */
function encode40(value: number): string {
  const hi = Math.floor(value / 2 ** 20);
  return digits(hi, 4) + digits(value - hi * 2 ** 20, 4);
}

/** The 10-digit time part of the last id (recomputed only when the millisecond changes). */
let timePart = '';

/**
 * A lower-case monotonic ULID: 48-bit millisecond time, 80 random bits. Within one
 * millisecond (or if the clock goes back) the previous random part is incremented, as
 * `ulid`'s monotonicFactory does, so ids of one process sort in creation order.
 */
export function ulid(now: number): string {
  if (now <= lastTime) {
    randLo += 1;
    if (randLo === TWO_POW_40) {
      randLo = 0;
      randHi += 1;
      if (randHi === TWO_POW_40) throw new Error('ulid: random part overflow within one millisecond');
    }
  } else {
    lastTime = now;
    const hi = Math.floor(now / 2 ** 25);
    timePart = digits(hi, 5) + digits(now - hi * 2 ** 25, 5);
    const at = pooled(10);
    randHi = pool.readUIntBE(at, 5);
    randLo = pool.readUIntBE(at + 5, 5);
  }
  return timePart + encode40(randHi) + encode40(randLo);
}

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
  user: 'usr',
  membership: 'mem',
  setupLink: 'sul',
  session: 'ses',
  recoveryCode: 'rcv',
  paymentLink: 'plink',
  payoutBatch: 'pob',
  payoutBatchItem: 'pobi',
  approvalPolicy: 'apol',
  balanceTransaction: 'txn',
  reportRun: 'frr',
  reportChunk: 'frc',
  feeSchedule: 'fee',
  feeRate: 'fer',
  providerAccount: 'pa',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

export function newId(kind: IdKind, now = Date.now()): string {
  return `${ID_PREFIX[kind]}_${ulid(now)}`;
}

/** A lower-case ULID (Crockford base32: no i, l, o, u; the first character 0-7). */
const ULID = '[0-7][0-9a-hjkmnp-tv-z]{25}';
const ID_SHAPE = Object.fromEntries(Object.entries(ID_PREFIX).map(([kind, prefix]) => [kind, new RegExp(`^${prefix}_${ULID}$`)])) as Record<IdKind, RegExp>;

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

/**
 * The id of one HTTP request or subscription, sent back as `Request-Id` and logged with
 * everything the request does: 12 random bytes, base64url. Not a secret (it is echoed and
 * logged), so its bytes come from a pool.
 */
export function newRequestId(): string {
  const at = pooled(12);
  return `req_${pool.toString('base64url', at, at + 12)}`;
}
