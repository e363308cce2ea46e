/**
 * The balance model as data: the three buckets of a balance, and the movements each kind
 * of transition makes. State tables name a movement here; the ledger applies it.
 */
export const BUCKETS = ['available', 'pending', 'reserved'] as const;
export type Bucket = (typeof BUCKETS)[number];

export interface Movement {
  bucket: Bucket;
  /** Signed minor units. */
  amount: bigint;
}

export const MOVES = {
  /** A payment or topup succeeded straight away. */
  credit: (amount: bigint): Movement[] => [{ bucket: 'available', amount }],
  /** A fee (or the tax on it) paid out of available. */
  debit: (amount: bigint): Movement[] => [{ bucket: 'available', amount: -amount }],
  /** A payment started processing: its amount is expected but not yet available. */
  pend: (amount: bigint): Movement[] => [{ bucket: 'pending', amount }],
  /** A processing payment succeeded. */
  clearPending: (amount: bigint): Movement[] => [
    { bucket: 'pending', amount: -amount },
    { bucket: 'available', amount },
  ],
  /** A processing payment failed. */
  dropPending: (amount: bigint): Movement[] => [{ bucket: 'pending', amount: -amount }],
  /** A payout or refund was created: its amount is held. */
  reserve: (amount: bigint): Movement[] => [
    { bucket: 'available', amount: -amount },
    { bucket: 'reserved', amount },
  ],
  /** A payout was cancelled or failed, or a refund failed: the hold is returned. */
  release: (amount: bigint): Movement[] => [
    { bucket: 'reserved', amount: -amount },
    { bucket: 'available', amount },
  ],
  /** A payout or refund succeeded: the held money left the merchant's balance. */
  payOut: (amount: bigint): Movement[] => [{ bucket: 'reserved', amount: -amount }],
} as const;

export type MoveName = keyof typeof MOVES;

/**
 * What a transition does about fees (docs/finance.md), beside its movement:
 * - `charge`: a succeeded payment pays its method's fee and the tax on it out of available;
 * - `hold`: a created payout holds its fee and tax with its amount (available -> reserved);
 * - `release`: a cancelled or failed payout gets the fee it held back;
 * - `pay`: a succeeded payout's held fee leaves reserved, as its amount does.
 */
export type FeeEffect = 'charge' | 'hold' | 'release' | 'pay';

/** A ledger effect of a transition: which movement, recorded under which entry type, and its fees. */
export interface LedgerEffect {
  entryType: string;
  move: MoveName;
  fees?: FeeEffect;
}

/** Movements recorded under one entry type (one ledger row per movement). */
export interface Posting {
  entryType: string;
  movements: Movement[];
}

/**
 * The balance transaction each entry type adds up to (its movements on `available`), and
 * whether that part is the tax on a fee. Entry types not listed move no available money
 * (`payment_pending`, `payout_paid`, ...) and make no balance transaction.
 */
export const ENTRY_TRANSACTION: Readonly<Record<string, { type: string; tax?: true }>> = {
  payment_succeeded: { type: 'payment' },
  payment_fee: { type: 'payment_fee' },
  payment_fee_tax: { type: 'payment_fee', tax: true },
  refund_reserved: { type: 'refund' },
  refund_released: { type: 'refund' },
  payout_reserved: { type: 'payout' },
  payout_released: { type: 'payout_reversal' },
  payout_fee_reserved: { type: 'payout_fee' },
  payout_fee_tax_reserved: { type: 'payout_fee', tax: true },
  payout_fee_released: { type: 'payout_fee' },
  payout_fee_tax_released: { type: 'payout_fee', tax: true },
  topup_succeeded: { type: 'topup' },
  adjustment: { type: 'adjustment' },
};
