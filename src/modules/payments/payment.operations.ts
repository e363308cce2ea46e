/** The payment operations: what each command parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import { cancelReason, CancelBody, EmptyBody } from '../../domain/fields';
import { settleTestOperations } from '../shared/test-helper.operations';
import { parseCreatePayment } from './payment.input';
import { CreatePaymentIntentBody } from './payment-request.schemas';
import type { PaymentService } from './payment.service';
import { DEFAULT_TEST_FAILURE } from './payment.wire';

type ById = { id: string };

/** `baseUrl`: the base of the checkout link a hosted intent gets (PUBLIC_BASE_URL). */
export function paymentOperations(payments: PaymentService, baseUrl: () => string) {
  return {
    create: defineOperation({
      name: 'payment.create',
      label: 'POST /v1/payment_intents',
      ...withBody(CreatePaymentIntentBody, (body) => parseCreatePayment(body)),
      execute: (em, ctx, input) => payments.create(em, ctx, input, baseUrl()),
    }),
    cancel: defineOperation({
      name: 'payment.cancel',
      label: 'POST /v1/payment_intents/:id/cancel',
      ...withBody(CancelBody, (body, { id }: ById) => ({ id, ...cancelReason(body) })),
      execute: (em, ctx, { id, reason }) => payments.cancel(em, ctx, id, reason),
    }),
    ...settleTestOperations('payment', 'payment_intents', DEFAULT_TEST_FAILURE, 'Payment', (em, ctx, id, outcome) => payments.testSettle(em, ctx, id, outcome)),
    testExpire: defineOperation({
      name: 'payment.test.expire',
      label: 'POST /v1/test_helpers/payment_intents/:id/expire',
      testOnly: true,
      ...withBody(EmptyBody, (_body, { id }: ById) => ({ id })),
      execute: (em, ctx, { id }) => payments.testExpire(em, ctx, id),
    }),
  };
}
