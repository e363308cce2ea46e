/** The refund operations: what each command parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import { settleTestOperations } from '../shared/test-helper.operations';
import { CreateRefundBody } from './refund.schemas';
import { parseCreateRefund, RefundService } from './refund.service';
import { DEFAULT_TEST_FAILURE } from './simulated-refund.provider';

const REFUND_TEST_FAILURE = { failure_code: DEFAULT_TEST_FAILURE.failureCode, failure_message: DEFAULT_TEST_FAILURE.failureMessage };

export function refundOperations(refunds: RefundService) {
  return {
    create: defineOperation({
      name: 'refund.create',
      label: 'POST /v1/refunds',
      ...withBody(CreateRefundBody, (body) => parseCreateRefund(body)),
      execute: (em, ctx, input) => refunds.create(em, ctx, input),
    }),
    ...settleTestOperations('refund', 'refunds', REFUND_TEST_FAILURE, 'Refund', (em, ctx, id, outcome) => refunds.settle(em, ctx, id, outcome)),
  };
}
