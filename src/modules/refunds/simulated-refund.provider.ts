/**
 * The simulated refund provider. In test mode, magic refund amounts make a refund fail with
 * a chosen failure_code (as the payout provider's magic account numbers do), so integrators
 * can exercise the failure path; any other amount succeeds. The table is data: add a row
 * to add a case.
 */
import type { RefundConnector } from '../../domain/connector';
import { sleep } from '../../db/db';

/** Refund amounts (minor units, as the wire writes them) that fail in test mode. */
export const REFUND_FAILURES: Readonly<Record<string, { failureCode: string; failureMessage: string }>> = {
  '4001': { failureCode: 'refund_declined', failureMessage: "The payer's bank declined the refund." },
  '4002': { failureCode: 'account_closed', failureMessage: "The payer's account has been closed; the refund could not be credited." },
  '4003': { failureCode: 'expired_or_canceled', failureMessage: 'The payment method used for the payment can no longer receive refunds.' },
};

export const DEFAULT_TEST_FAILURE = REFUND_FAILURES['4001'];

/** `latencyMs` simulates the provider's network round trip. */
export function simulatedRefundConnector(latencyMs = 0): RefundConnector {
  return {
    code: 'simulated_refunds',
    async settle({ amount, environment }) {
      if (latencyMs > 0) await sleep(latencyMs);
      const failure = environment === 'test' ? REFUND_FAILURES[amount.toString()] : undefined;
      return failure ? { status: 'failed', ...failure } : { status: 'succeeded' };
    },
  };
}
