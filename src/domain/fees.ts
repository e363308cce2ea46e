/**
 * Fees as arithmetic (docs/finance.md): a rate is a percentage in basis points plus a fixed
 * amount, and a tax in basis points on the fee. Every amount is a bigint of minor units; a
 * fraction of a minor unit is rounded half-up (0.5 goes up), once for the percentage and once
 * for the tax. `fee + tax + net = amount` holds exactly for every amount and rate.
 */

export interface FeeRate {
  /** Percentage of the amount, in basis points (165 = 1.65%). */
  percentBps: number;
  /** Fixed part, in minor units of the amount's currency. */
  fixed: bigint;
  /** Tax on the fee, in basis points (700 = 7% VAT). */
  taxBps: number;
}

export interface FeeSplit {
  fee: bigint;
  tax: bigint;
  /** What is left of the amount: amount - fee - tax (negative only where `capped` is false and the fee exceeds the amount). */
  net: bigint;
}

/** The most basis points a rate may have (100%). */
export const MAX_BPS = 10_000;

/** `value * bps / 10000`, rounded half-up to a whole minor unit (value >= 0). */
export function bpsOf(value: bigint, bps: number): bigint {
  if (value < 0n) throw new RangeError('bpsOf needs a non-negative value');
  const scaled = value * BigInt(bps);
  return (scaled + 5_000n) / 10_000n;
}

/**
 * The fee and its tax on `amount` at `rate`. With `capped` (a payment: its fee comes out of
 * it) fee + tax never exceed the amount: when they would, the whole amount goes to fees,
 * the tax being the rate's share of it (amount x tax / (1 + tax), half-up) and net 0.
 * Without (a payout: its fee is charged on top), fee + tax may exceed the amount.
 */
export function feeSplit(amount: bigint, rate: FeeRate, capped: boolean): FeeSplit {
  const fee = bpsOf(amount, rate.percentBps) + rate.fixed;
  const tax = bpsOf(fee, rate.taxBps);
  if (!capped || fee + tax <= amount) return { fee, tax, net: amount - fee - tax };
  const cappedTax = (amount * BigInt(rate.taxBps) * 2n + BigInt(MAX_BPS + rate.taxBps)) / (2n * BigInt(MAX_BPS + rate.taxBps));
  return { fee: amount - cappedTax, tax: cappedTax, net: 0n };
}
