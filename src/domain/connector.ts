/**
 * Providers are plugins. Every connector (payment, payout, and later refund providers)
 * has this shape: a code, and asynchronous calls that the services make only between
 * atomic phases, outside any transaction (`Db.outside`), so a slow provider holds no row
 * lock. Each call carries the record's id, so a call repeated after a crash (the
 * scheduler's recovery, or a retry under the same Idempotency-Key) is recognised by the
 * provider rather than done twice.
 */
import type { Environment } from './scope';

export interface Connector {
  /** The provider's code, as stored on the record it handled. */
  readonly code: string;
}

/** How a provider settles a payment, payout or refund. */
export type SettleOutcome = { status: 'succeeded' } | { status: 'failed'; failureCode: string; failureMessage: string };

export interface PayoutConnector extends Connector {
  /** Sends a processing payout to the bank and answers how it settled. */
  settle(request: { payoutId: string; accountNumber: string; environment: Environment }): Promise<SettleOutcome>;
}

export interface RefundConnector extends Connector {
  /** Sends a pending refund back to the payer through the provider that took the payment, and answers how it settled. */
  settle(request: { refundId: string; paymentIntentId: string; amount: bigint; currency: string; environment: Environment }): Promise<SettleOutcome>;
}
