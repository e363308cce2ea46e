/** The payout operations: what each command parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import { cancelReason, CancelBody, EmptyBody } from '../../domain/fields';
import { settleTestOperations } from '../shared/test-helper.operations';
import { parseCreatePayout, PayoutService } from './payout.service';
import { CreatePayoutIntentBody } from './payout.schemas';
import { DEFAULT_TEST_FAILURE } from './simulated-payout.provider';

type ById = { id: string };
const PAYOUT_TEST_FAILURE = { failure_code: DEFAULT_TEST_FAILURE.failureCode, failure_message: DEFAULT_TEST_FAILURE.failureMessage };

export function payoutOperations(payouts: PayoutService) {
  return {
    create: defineOperation({
      name: 'payout.create',
      label: 'POST /v1/payout_intents',
      ...withBody(CreatePayoutIntentBody, (body) => parseCreatePayout(body)),
      execute: (em, ctx, input) => payouts.create(em, ctx, input),
    }),
    approve: defineOperation({
      name: 'payout.approve',
      label: 'POST /v1/payout_intents/:id/approve',
      ...withBody(EmptyBody, (_body, { id }: ById) => ({ id })),
      execute: (em, ctx, { id }) => payouts.approve(em, ctx, id),
    }),
    cancel: defineOperation({
      name: 'payout.cancel',
      label: 'POST /v1/payout_intents/:id/cancel',
      ...withBody(CancelBody, (body, { id }: ById) => ({ id, ...cancelReason(body) })),
      execute: (em, ctx, { id, reason }) => payouts.cancel(em, ctx, id, reason),
    }),
    ...settleTestOperations('payout', 'payout_intents', PAYOUT_TEST_FAILURE, 'Payout', (em, ctx, id, outcome) => payouts.settle(em, ctx, id, outcome)),
  };
}
