/** The topup operations: what each command parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import { settleTestOperations } from '../shared/test-helper.operations';
import { CreateTopupIntentBody } from './topup.schemas';
import { parseCreateTopup, TOPUP_TEST_FAILURE, TopupService } from './topup.service';

export function topupOperations(topups: TopupService) {
  return {
    create: defineOperation({
      name: 'topup.create',
      label: 'POST /v1/topup_intents',
      idempotencyKey: 'required',
      ...withBody(CreateTopupIntentBody, (body) => parseCreateTopup(body)),
      execute: (em, ctx, input) => topups.create(em, ctx, input),
    }),
    ...settleTestOperations('topup', 'topup_intents', TOPUP_TEST_FAILURE, 'Topup', (em, ctx, id, outcome) => topups.settle(em, ctx, id, outcome)),
  };
}
