import type { FastifyReply, FastifyRequest } from 'fastify';
import { ctxOf, routeNotFound } from './plumbing';

/** Test helpers do not exist for live keys: a live key gets the same 404 as an unknown route. */
export async function testHelperGuard(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (ctxOf(request).environment !== 'test') throw routeNotFound(request);
}
