/**
 * REST plumbing shared by every route: request ids, authentication, content-type and
 * body-size rules, and the mapping of every failure to the contract's error shape.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorBody } from '../domain/errors';
import type { App } from '../app';
import type { RequestContext } from '../modules/auth/request-context';
import { RateLimiter } from './rate-limit';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by authentication on /v1 and /graphql. */
    ctx?: RequestContext;
  }
}

export const BODY_LIMIT = 64 * 1024;
const JSON_TYPE = /^application\/json\s*(;.*)?$/i;
/** Routes that need no credentials. */
const PUBLIC_PATHS = new Set(['/v1/openapi.json']);

export function isApiPath(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');
}

export function isGraphqlPath(url: string): boolean {
  return url === '/graphql' || url.startsWith('/graphql?') || url.startsWith('/graphql/');
}

export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

export function ctxOf(request: FastifyRequest): RequestContext {
  if (!request.ctx) throw new ApiError('unauthorized', 'Authentication required.');
  return request.ctx;
}

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  if (Array.isArray(value)) throw ApiError.validation('Idempotency-Key', 'Send one Idempotency-Key header.');
  return value;
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

export function routeNotFound(request: FastifyRequest): ApiError {
  return new ApiError('not_found', `Unrecognized request URL (${request.method} ${pathOf(request.url)}).`);
}

/**
 * Router-level failures (a URL that cannot be percent-decoded, a path parameter over
 * fastify's length limit) are answered before any hook runs. Without this they would get
 * fastify's own body and no Request-Id; with it they get the same treatment as an
 * unknown route: authentication first on /v1 and /graphql, then 404 not_found.
 */
export function frameworkErrorHandler(app: App) {
  return (_err: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('Request-Id', request.id);
    const answer = async () => {
      if ((isApiPath(request.url) && !PUBLIC_PATHS.has(pathOf(request.url))) || isGraphqlPath(request.url)) {
        await app.auth.authenticate(request.headers.authorization);
      }
      throw routeNotFound(request);
    };
    answer().catch((err: unknown) => sendError(request, reply, err instanceof ApiError ? err : ApiError.internal()));
  };
}

/** Fastify's own errors, translated to contract codes. */
function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  const e = err as { code?: string; statusCode?: number };
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The request body exceeds ${BODY_LIMIT} bytes.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send request bodies as Content-Type: application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  return undefined;
}

export function errorBodyFor(request: FastifyRequest, err: ApiError): unknown {
  if (isGraphqlPath(request.url)) {
    return { errors: [{ message: err.message, extensions: { code: err.code, ...(err.param ? { param: err.param } : {}) } }] };
  }
  return err.toBody() satisfies ErrorBody;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
  if (err.code === 'unauthorized') reply.header('WWW-Authenticate', 'Basic realm="payments"');
  const retryAfter = (err as ApiError & { retryAfter?: number }).retryAfter;
  if (err.code === 'rate_limited' && retryAfter) reply.header('Retry-After', String(retryAfter));
  return sendJson(reply, err.status, errorBodyFor(request, err));
}

export function registerPlumbing(fastify: FastifyInstance, app: App): void {
  const limiter = new RateLimiter(app.config.rateLimitPerSecond);
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError('invalid_json', 'The request body is not valid JSON.'), undefined);
    }
  });

  fastify.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
    const url = request.url;
    const api = isApiPath(url) && !PUBLIC_PATHS.has(pathOf(url));
    if (api || (isGraphqlPath(url) && request.method !== 'OPTIONS')) {
      const key = await app.auth.authenticate(request.headers.authorization);
      limiter.take(key.apiKeyId);
      request.ctx = { ...key, requestId: request.id, log: app.log.child({ requestId: request.id }) };
    }
    if (api && request.method === 'POST' && !JSON_TYPE.test(request.headers['content-type'] ?? '')) {
      throw new ApiError('unsupported_media_type', 'POST requests must be sent with Content-Type: application/json.');
    }
  });

  fastify.setErrorHandler((err, request, reply) => {
    const known = toApiError(err);
    if (known) return sendError(request, reply, known);
    request.log.error({ err, requestId: request.id }, 'unhandled error');
    return sendError(request, reply, ApiError.internal());
  });

  fastify.setNotFoundHandler((request, reply) => sendError(request, reply, routeNotFound(request)));
}
