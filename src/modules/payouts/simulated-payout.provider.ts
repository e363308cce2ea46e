/**
 * The simulated payout provider. In test mode, magic account numbers make a payout fail
 * with a chosen failure_code (Stripe-style), so integrators can exercise every path.
 * Any other account number succeeds. The table is data: add a row to add a case.
 */
import type { PayoutConnector } from '../../domain/connector';
import { sleep } from '../../db/db';

export const PAYOUT_FAILURES: Readonly<Record<string, { failureCode: string; failureMessage: string }>> = {
  '000111111116': { failureCode: 'account_closed', failureMessage: 'The bank account has been closed.' },
  '000111111113': { failureCode: 'no_account', failureMessage: 'The bank account does not exist.' },
  '000222222227': { failureCode: 'account_frozen', failureMessage: 'The bank account has been frozen.' },
  '000333333335': { failureCode: 'invalid_account_number', failureMessage: 'The account number is not valid for this bank.' },
  '000444444440': { failureCode: 'incorrect_account_holder_name', failureMessage: 'The holder name does not match the bank account.' },
  '000555555559': { failureCode: 'could_not_process', failureMessage: 'The bank could not process this payout.' },
};

export const DEFAULT_TEST_FAILURE = PAYOUT_FAILURES['000555555559'];

/** `latencyMs` simulates the provider's network round trip (SIMULATED_PROVIDER_LATENCY_MS). */
export function simulatedPayoutConnector(latencyMs = 0): PayoutConnector {
  return {
    code: 'simulated_bank_transfer',
    async settle({ accountNumber, environment }) {
      if (latencyMs > 0) await sleep(latencyMs);
      const failure = environment === 'test' ? PAYOUT_FAILURES[accountNumber] : undefined;
      return failure ? { status: 'failed', ...failure } : { status: 'succeeded' };
    },
  };
}
