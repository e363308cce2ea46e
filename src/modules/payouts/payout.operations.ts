/** The payout operations: what each command parses and which service method performs it. */
import { defineOperation } from '../../domain/operation';
import { parseCancelReason, parseEmptyBody } from '../../domain/validation';
import { settleTestOperations } from '../shared/test-helper.operations';
import { parseCreatePayout, PayoutService } from './payout.service';
import { DEFAULT_TEST_FAILURE } from './simulated-payout.provider';

type ById = { id: string };
const PAYOUT_TEST_FAILURE = { failure_code: DEFAULT_TEST_FAILURE.failureCode, failure_message: DEFAULT_TEST_FAILURE.failureMessage };

export function payoutOperations(payouts: PayoutService) {
  return {
    create: defineOperation({
      name: 'payout.create', label: 'POST /v1/payout_intents',
      parse: (raw) => parseCreatePayout(raw),
      execute: (em, ctx, input) => payouts.create(em, ctx, input),
    }),
    approve: defineOperation({
      name: 'payout.approve', label: 'POST /v1/payout_intents/:id/approve',
      parse: (raw, { id }: ById) => ({ id, ...parseEmptyBody(raw) }),
      execute: (em, ctx, { id }) => payouts.approve(em, ctx, id),
    }),
    cancel: defineOperation({
      name: 'payout.cancel', label: 'POST /v1/payout_intents/:id/cancel',
      parse: (raw, { id }: ById) => ({ id, ...parseCancelReason(raw) }),
      execute: (em, ctx, { id, reason }) => payouts.cancel(em, ctx, id, reason),
    }),
    ...settleTestOperations('payout', 'payout_intents', PAYOUT_TEST_FAILURE, 'Payout', (em, ctx, id, outcome) => payouts.settle(em, ctx, id, outcome)),
  };
}
