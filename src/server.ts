/** Builds the HTTP app: REST routes, Apollo (GraphQL over HTTP), health and OpenAPI. */
import Fastify, { FastifyInstance, LogController } from 'fastify';
import type { App } from './app';
import { randomToken } from './domain/ids';
import { registerGraphQL } from './graphql/apollo';
import { registerGraphQLWs } from './graphql/ws';
import { registerHealthRoutes } from './http/health';
import { registerOpenApiRoute } from './http/openapi';
import { BODY_LIMIT, clientErrorHandler, frameworkErrorHandler, registerPlumbing } from './http/plumbing';
import { registerMetrics } from './http/metrics';
import { registerPayoutRoutes } from './modules/payouts/payout.routes';
import { registerTopupRoutes } from './modules/topups/topup.routes';
import { registerBalanceRoutes } from './modules/balances/balance.routes';
import { registerMethodRoutes } from './modules/methods/method.routes';
import { registerPaymentRoutes } from './modules/payments/payment.routes';
import { registerCheckoutRoutes } from './modules/payments/checkout.routes';
import { registerEventRoutes } from './modules/events/event.routes';
import { registerWebhookRoutes } from './modules/webhooks/webhook.routes';
import { registerAuditRoutes } from './modules/audit/audit.routes';

export async function buildServer(app: App): Promise<FastifyInstance> {
  const fastify: FastifyInstance = Fastify({
    loggerInstance: app.log,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    genReqId: () => `req_${randomToken(12)}`,
    requestIdHeader: false,
    return503OnClosing: false, // plumbing answers 503 service_unavailable itself (contract body, Request-Id)
    frameworkErrors: frameworkErrorHandler(app),
    clientErrorHandler,
  }) as unknown as FastifyInstance;
  registerPlumbing(fastify, app);
  registerMetrics(fastify);
  registerHealthRoutes(fastify, app);
  registerOpenApiRoute(fastify);
  registerPayoutRoutes(fastify, app);
  registerTopupRoutes(fastify, app);
  registerBalanceRoutes(fastify, app);
  registerMethodRoutes(fastify, app);
  registerPaymentRoutes(fastify, app);
  await registerCheckoutRoutes(fastify, app);
  registerEventRoutes(fastify, app);
  registerWebhookRoutes(fastify, app);
  registerAuditRoutes(fastify, app);
  await registerGraphQL(fastify, app);
  registerGraphQLWs(fastify, app);
  return fastify;
}
