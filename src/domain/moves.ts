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

/** A ledger effect of a transition: which movement, recorded under which entry type. */
export interface LedgerEffect {
  entryType: string;
  move: MoveName;
}
