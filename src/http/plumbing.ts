/**
 * REST plumbing shared by every route, registered once: request ids, authentication and the
 * rate limit, the header and content-type guards (header-guards.ts), the JSON body parser,
 * unknown paths and methods (404 / 405 with Allow, route-table.ts), the 503 while the server
 * closes, an unsupported `Expect`, and the mapping of every failure to the contract's error
 * shape (error-replies.ts). Each answer carries a `Request-Id` header.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import { authorize, isRequirement, type Requirement } from '../domain/access';
import type { RequestContext } from '../domain/scope';
import type { Credentials } from '../domain/scope';
import type { PublicBaseUrl } from '../domain/public-url';
import { BODY_LIMIT, JSON_ANSWER_HEADERS, sendError, toApiError, writeRawError } from './error-replies';
import { checkContentType, checkHeaders } from './header-guards';
import { parseJsonBody } from './json-body';
import type { RateLimiter } from './rate-limit';
import { isApiPath, isGraphqlPath, pathOf, isPublicPath } from './request';
import { routeError, RouteTable, withHeaders } from './route-table';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route's declared requirement, by method and URL pattern (the generated permission tests read it). */
    routePermissions(): readonly { method: string; url: string; permission: Requirement }[];
  }
}

/** Seconds a client is asked to wait before retrying a request refused while the server shuts down. */
const CLOSING_RETRY_AFTER_S = 1;

/** A request's context; its child logger is made on first use (most requests never log). */
class HttpRequestContext implements RequestContext {
  readonly apiKeyId: string;
  readonly principal: RequestContext['principal'];
  readonly merchantId: string;
  readonly environment: RequestContext['environment'];
  private child?: Logger;

  constructor(
    key: Omit<RequestContext, 'requestId' | 'log'>,
    readonly requestId: string,
    private readonly root: Logger,
  ) {
    this.apiKeyId = key.apiKeyId;
    this.principal = key.principal;
    this.merchantId = key.merchantId;
    this.environment = key.environment;
  }

  get log(): Logger {
    return (this.child ??= this.root.child({ requestId: this.requestId }));
  }
}

export function registerPlumbing(
  fastify: FastifyInstance,
  { credentials, log, publicUrl }: { credentials: Credentials; log: Logger; publicUrl: PublicBaseUrl },
  limiter: RateLimiter,
): void {
  const routes = new RouteTable();
  let closing = false;

  const declared: { method: string; url: string; permission: Requirement }[] = [];
  fastify.decorate('routePermissions', () => declared);
  fastify.addHook('onRoute', (route) => {
    const permission = route.config?.permission;
    if (permission) for (const method of [route.method].flat()) declared.push({ method, url: route.url, permission });
    // One rule set: an authenticated /v1 route that does not say what it needs is a startup error, not an open door.
    if (isApiPath(route.url) && !isPublicPath(route.url) && !isRequirement(permission)) {
      throw new Error(`${String(route.method)} ${route.url} declares no permission (config.permission; see src/domain/access.ts)`);
    }
    routes.add(route.method, route.url, route.config?.testOnly === true);
  });
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  (fastify.server as { requireHostHeader?: boolean }).requireHostHeader = false;
  // Node answers an Expect other than 100-continue with a bare 417 unless someone listens.
  fastify.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    writeRawError(req, res, new ApiError('expectation_failed', 'Only "Expect: 100-continue" is supported.'));
  });

  fastify.removeAllContentTypeParsers();
  // UTF-8, well-formed strings, at most MAX_JSON_DEPTH levels (json-body.ts). An empty body
  // with a JSON type is an absent body, as if no Content-Type had been sent.
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  fastify.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
    // Replaces Fastify's return503OnClosing, which answers with its own body and no Request-Id.
    if (closing) {
      throw withHeaders(new ApiError('service_unavailable', 'The server is shutting down; retry the request.'), {
        'Retry-After': String(CLOSING_RETRY_AFTER_S),
      });
    }
    checkHeaders(request);
    const url = request.url;
    const api = isApiPath(url) && !isPublicPath(pathOf(url));
    if (api || (isGraphqlPath(url) && request.method !== 'OPTIONS')) {
      // A dashboard session's cookie, when no Authorization header is sent; an API key otherwise.
      const member =
        request.headers.authorization === undefined ? await credentials.authenticateCookie(request.headers, request.method, publicUrl.get()) : null;
      const key = member ?? (await credentials.authenticate(request.headers.authorization));
      await limiter.take(key.apiKeyId);
      request.ctx = new HttpRequestContext(key, request.id, log);
    }
    // Unknown paths and methods are answered before the body is read: a 404/405 beats a 413/415.
    if (request.is404) throw routeError(request, routes);
    const { permission, testOnly } = request.routeOptions.config;
    // A live key on a test helper is told 404 (testHelperGuard), whatever it may do.
    if (request.ctx && permission && !(testOnly && request.ctx.environment !== 'test')) {
      authorize(request.ctx.principal, permission, request.ctx.log, `${request.method} ${request.routeOptions.url}`);
    }
    if (api && request.method === 'POST') checkContentType(request);
  });

  fastify.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && /^application\/(?:[\w.-]+\+)?json\b/.test(type)) reply.headers(JSON_ANSWER_HEADERS);
    // Every other answer too (CSV reports, QR images, pages): never sniffed, and not stored
    // unless its route chose a cache rule (the dashboard's public assets).
    if (!reply.hasHeader('x-content-type-options')) reply.header('X-Content-Type-Options', 'nosniff');
    if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
    done(null, payload);
  });

  fastify.setErrorHandler((err, request, reply) => {
    const known = toApiError(err, request.routeOptions.bodyLimit ?? BODY_LIMIT);
    if (known) return sendError(request, reply, known);
    // The client went away while its body was read: nobody to answer, nothing went wrong here.
    if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || request.raw.aborted || request.raw.socket?.destroyed) {
      request.log.debug({ err, requestId: request.id }, 'request aborted by the client');
      return sendError(request, reply, new ApiError('bad_request', 'The request was aborted.'));
    }
    request.log.error({ err, requestId: request.id }, 'unhandled error');
    return sendError(request, reply, ApiError.internal());
  });

  fastify.setNotFoundHandler((request, reply) => sendError(request, reply, routeError(request, routes)));
}
