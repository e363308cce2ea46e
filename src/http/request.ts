/**
 * What every REST and GraphQL-over-HTTP handler reads from a request: which surface a URL
 * belongs to, the caller's context (set by authentication, plumbing.ts), the Idempotency-Key
 * header; and how a JSON answer is written.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors';
import type { RequestContext } from '../domain/scope';
import type { Requirement } from '../domain/access';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by authentication on /v1 and /graphql. */
    ctx?: RequestContext;
  }
  interface FastifyContextConfig {
    /** The route exists for test-mode keys only (test helpers): a live key is told 404, never 405. */
    testOnly?: boolean;
    /** The route also takes multipart/form-data (a file upload); every other POST takes JSON only. */
    multipart?: boolean;
    /** What the caller needs (src/domain/access.ts); every authenticated /v1 route declares it, or the server refuses to start. */
    permission?: Requirement;
  }
}

/** Routes that need no credentials. */
/** Routes under /v1 that take no API key: the OpenAPI document, and providers' webhooks (verified by their own signature). */
export const PUBLIC_PATHS = new Set(['/v1/openapi.json', '/v1/provider_webhooks/:pa_id']);

/** Whether a request path (or a route pattern) under /v1 takes no API key. */
export function isPublicPath(path: string): boolean {
  return PUBLIC_PATHS.has(path) || path.startsWith('/v1/provider_webhooks/');
}

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
