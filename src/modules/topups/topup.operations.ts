/** The topup operations: what each command parses and which service method performs it. */
import { defineOperation } from '../../domain/operation';
import { parseEmptyBody, parseTestOutcome } from '../../domain/validation';
import { parseCreateTopup, TOPUP_TEST_FAILURE, TopupService } from './topup.service';

type ById = { id: string };

export function topupOperations(topups: TopupService) {
  return {
    create: defineOperation({
      name: 'topup.create', label: 'POST /v1/topup_intents', idempotencyKey: 'required',
      parse: (raw) => parseCreateTopup(raw),
      execute: (em, ctx, input) => topups.create(em, ctx, input),
    }),
    testSucceed: defineOperation({
      name: 'topup.test.succeed', label: 'POST /v1/test_helpers/topup_intents/:id/succeed', testOnly: true,
      parse: (raw, { id }: ById) => ({ id, ...parseEmptyBody(raw) }),
      execute: (em, ctx, { id }) => topups.settle(em, ctx, id, { status: 'succeeded' }),
    }),
    testFail: defineOperation({
      name: 'topup.test.fail', label: 'POST /v1/test_helpers/topup_intents/:id/fail', testOnly: true,
      parse: (raw, { id }: ById) => ({ id, outcome: parseTestOutcome(raw, TOPUP_TEST_FAILURE, 'Topup') }),
      execute: (em, ctx, { id, outcome }) => topups.settle(em, ctx, id, outcome),
    }),
  };
}
