/**
 * REST side of the operation pipeline: a route names its operation and how the request
 * supplies the operation's arguments; the pipeline does the rest, and the answer is
 * rendered here (outcome -> status, or the stored bytes of a replay).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../app';
import type { Operation } from '../domain/operation';
import { Answer, OUTCOME_STATUS } from '../ops/pipeline';
import { ctxOf, idempotencyKeyOf, routeNotFound, sendJson } from './plumbing';

export function sendAnswer<T>(reply: FastifyReply, answer: Answer<T>): FastifyReply {
  if (!answer.replayed) return sendJson(reply, OUTCOME_STATUS[answer.outcome], answer.value);
  reply.header('Idempotent-Replayed', 'true');
  return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
}

/** Test helpers do not exist for live keys: a live key gets the same 404 as an unknown route. */
export async function testHelperGuard(request: FastifyRequest): Promise<void> {
  if (ctxOf(request).environment !== 'test') throw routeNotFound(request);
}

type Method = 'post' | 'delete';

/**
 * The REST body as the operation reads it. An absent body (no bytes, or an empty body sent
 * as JSON) is an empty object, so the optional bodies of approve, cancel and the test
 * helpers need nothing at all; a body that is present is passed as parsed, and the
 * operation's parser refuses anything but an object (`null`, arrays, scalars) with
 * `validation_error`, `param: "body"`.
 */
export function bodyOf(req: FastifyRequest): unknown {
  return req.body === undefined ? {} : req.body;
}

/**
 * Registers `method path` as operation `op`. Path parameters are the operation's
 * arguments unless `argsOf` says otherwise.
 */
export function operationRoute<A>(
  fastify: FastifyInstance, app: App, method: Method, path: string,
  op: Operation<A, any, unknown>, // eslint-disable-line @typescript-eslint/no-explicit-any
  argsOf: (req: FastifyRequest) => A = (req) => req.params as A,
): void {
  fastify.route({
    method: method.toUpperCase() as 'POST' | 'DELETE',
    url: path,
    preHandler: op.testOnly ? testHelperGuard : undefined,
    config: { testOnly: op.testOnly === true },
    handler: async (req, reply) =>
      sendAnswer(reply, await app.pipeline.run(op, ctxOf(req), bodyOf(req), argsOf(req), idempotencyKeyOf(req))),
  });
}
