/** Builds the HTTP app: REST routes, Apollo (GraphQL over HTTP), health and OpenAPI. */
import type { AddressInfo } from 'node:net';
import Fastify, { FastifyInstance, LogController } from 'fastify';
import type { App } from './app';
import { newRequestId } from './domain/ids';
import { registerGraphQL } from './graphql/apollo';
import { registerGraphQLWs } from './graphql/ws';
import { TrustedDocuments } from './graphql/trusted-documents';
import { registerHealthRoutes } from './http/health';
import { registerDashboardRoutes } from './http/dashboard';
import swagger from '@fastify/swagger';
import { registerModels, registerOpenApiRoute, swaggerOptions } from './http/openapi';
import { BODY_LIMIT, clientErrorHandler, frameworkErrorHandler } from './http/error-replies';
import { registerPlumbing } from './http/plumbing';
import { registerMetrics, serveMetrics } from './http/metrics';
import { RateLimiter } from './http/rate-limit';
import { MODULES } from './modules';

export async function buildServer(app: App): Promise<FastifyInstance> {
  const fastify: FastifyInstance = Fastify({
    loggerInstance: app.log,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    // Slow clients: 408 request_timeout (clientErrorHandler) past the header or request limit; idle sockets closed.
    http: {
      headersTimeout: app.config.http.headersMs,
      requestTimeout: app.config.http.requestMs,
      connectionsCheckingInterval: app.config.http.checkEveryMs,
    },
    requestTimeout: app.config.http.requestMs,
    connectionTimeout: app.config.http.idleMs,
    keepAliveTimeout: app.config.http.keepAliveMs,
    genReqId: newRequestId,
    requestIdHeader: false,
    return503OnClosing: false, // plumbing answers 503 service_unavailable itself (contract body, Request-Id)
    frameworkErrors: frameworkErrorHandler(app.credentials),
    clientErrorHandler,
    // X-Forwarded-* are believed only from the proxies TRUST_PROXY names (links never come from them).
    trustProxy: app.config.trustProxy.length > 0 ? app.config.trustProxy : false,
  }) as unknown as FastifyInstance;
  fastify.addHook('onListen', (done) => {
    app.publicUrl.listeningOn((fastify.server.address() as AddressInfo).port);
    done();
  });
  // One limiter for every surface: REST, POST /graphql and graphql-ws take from the same allowance.
  const limiter = new RateLimiter(app.config.rateLimitPerSecond, app.redis, app.log.child({ component: 'rate-limit' }));
  registerPlumbing(fastify, app, limiter);
  const metrics = registerMetrics(fastify, limiter, app.db, app.auth);
  if (app.config.metrics) serveMetrics(fastify, metrics, app.config.metrics);
  registerHealthRoutes(fastify, app.db);
  registerDashboardRoutes(fastify, app.publicUrl, app.config.nodeEnv === 'production');
  // Route schemas document the API; the pipeline and readRoute validate, sendJson writes.
  fastify.setValidatorCompiler(() => () => true);
  fastify.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await fastify.register(swagger, swaggerOptions());
  registerModels(fastify);
  registerOpenApiRoute(fastify);
  for (const module of MODULES) await module.routes?.(fastify, app.modules.of(module), { pipeline: app.pipeline });
  const trusted = TrustedDocuments.load(app.config.trustedDocuments);
  await registerGraphQL(fastify, app, trusted);
  registerGraphQLWs(fastify, app, limiter, trusted);
  return fastify;
}
