/** REST routes for payment intents: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { RouteKit } from '../module';
import type { paymentOperations } from './payment.operations';
import type { PaymentService } from './payment.service';
import { listRoute, operationRoute, readRoute } from '../../http/dispatch';
import { PAYMENT_ROUTES as doc } from './payment.schemas';
import { PAYMENT_LIST } from './payment.wire';

export function registerPaymentRoutes(
  fastify: FastifyInstance,
  { payments, ops }: { payments: PaymentService; ops: ReturnType<typeof paymentOperations> },
  { pipeline }: RouteKit,
): void {
  operationRoute(fastify, pipeline, 'post', '/v1/payment_intents', ops.create, { doc: doc.create });
  listRoute(fastify, '/v1/payment_intents', doc.list, PAYMENT_LIST, async (ctx, query) => payments.list(ctx, payments.parseList(ctx, query)));
  readRoute(fastify, '/v1/payment_intents/:id', doc.get, (ctx, _query, { id }) => payments.get(ctx, id));
  operationRoute(fastify, pipeline, 'post', '/v1/payment_intents/:id/cancel', ops.cancel, { doc: doc.cancel });
  operationRoute(fastify, pipeline, 'post', '/v1/test_helpers/payment_intents/:id/succeed', ops.testSucceed, { doc: doc.testSucceed });
  operationRoute(fastify, pipeline, 'post', '/v1/test_helpers/payment_intents/:id/fail', ops.testFail, { doc: doc.testFail });
  operationRoute(fastify, pipeline, 'post', '/v1/test_helpers/payment_intents/:id/expire', ops.testExpire, { doc: doc.testExpire });
}
