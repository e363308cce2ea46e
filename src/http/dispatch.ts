/**
 * REST side of the operation pipeline: a route names its operation and how the request
 * supplies the operation's arguments; the pipeline does the rest, and the answer is
 * rendered here (outcome -> status, or the stored bytes of a replay).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Operation } from '../domain/operation';
import { check } from '../domain/schema';
import type { RequestContext } from '../domain/scope';
import { Answer, OUTCOME_STATUS, type OperationPipeline } from '../ops/pipeline';
import { ctxOf, idempotencyKeyOf, sendJson } from './request';
import { routeNotFound } from './route-table';
import { commonFailures, forbidden, invalidWhen, type RouteDoc } from './route-docs';
import { listQuerySchema, type ListSpec, type Page } from '../domain/listing';
import { pageEnvelope } from './envelope';

export function sendAnswer<T>(reply: FastifyReply, answer: Answer<T>): FastifyReply {
  if (!answer.replayed) return sendJson(reply, OUTCOME_STATUS[answer.outcome], answer.value);
  reply.header('Idempotent-Replayed', 'true');
  return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
}

/** Test helpers do not exist for live keys: a live key gets the same 404 as an unknown route. */
// eslint-disable-next-line @typescript-eslint/require-await -- Fastify runs an async hook without a done callback; the throw becomes its rejection
export async function testHelperGuard(request: FastifyRequest): Promise<void> {
  if (ctxOf(request).environment !== 'test') throw routeNotFound(request);
}

type Method = 'post' | 'delete';

/** `:name` segments of a route path, as the OpenAPI path parameters. */
function pathParams(path: string): TSchema | undefined {
  const names = [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  if (names.length === 0) return undefined;
  // No length limit: an id the service never issued, however long, is answered 404 not_found.
  return Type.Object(Object.fromEntries(names.map((n) => [n, Type.String({ minLength: 1 })])));
}

const IDEMPOTENCY_KEY = 'Up to 255 printable ASCII characters; a UUID v4 is suggested. Held for 24 hours per API key.';
/** What the idempotency service accepts (src/ops/key-claim.ts `validateIdempotencyKey`). */
const idempotencyKey = () =>
  Type.String({
    minLength: 1,
    maxLength: 255,
    pattern: '^[\\x21-\\x7E](?:[\\x20-\\x7E]*[\\x21-\\x7E])?$',
    'x-expected': '1 to 255 printable ASCII characters (HTTP drops leading and trailing spaces)',
    description: IDEMPOTENCY_KEY,
  });

/**
 * The route's published schema. Fastify's own validation and serialisation are off
 * (src/server.ts): bodies are checked by the operation pipeline (so GraphQL gets the same
 * checks), query strings by `readRoute`, answers are written by `sendJson`.
 */
function routeSchema(doc: RouteDoc, path: string, extra: { body?: TSchema; idempotencyKey?: 'optional' | 'required' } = {}) {
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    ...(pathParams(path) ? { params: pathParams(path) } : {}),
    ...(doc.query ? { querystring: doc.query } : {}),
    ...(extra.body ? { body: extra.body } : {}),
    // Read by the OpenAPI document only (src/http/openapi.ts): validation knows JSON bodies alone.
    ...(doc.upload ? { 'x-upload': doc.upload } : {}),
    ...(extra.idempotencyKey
      ? {
          headers: Type.Object({
            'Idempotency-Key': extra.idempotencyKey === 'required' ? idempotencyKey() : Type.Optional(idempotencyKey()),
          }),
        }
      : {}),
    // Every route that needs more than credentials may answer 403 permission_denied.
    response: doc.permission === 'authenticated' ? doc.responses : { ...doc.responses, 403: forbidden(doc.permission) },
  };
}

/**
 * The REST body as the operation reads it: `undefined` when absent (no bytes, or an empty
 * body sent as JSON), which the pipeline reads as `{}`, so approve, cancel and the test
 * helpers need no body at all; a body that is present is passed as
 * parsed, and the body schema refuses anything but an object (`null`, arrays, scalars)
 * with `validation_error`, `param: "body"`.
 */
export function bodyOf(req: FastifyRequest): unknown {
  return req.body;
}

/**
 * Registers `method path` as operation `op`, documented by `doc`. Path parameters are the
 * operation's arguments unless `argsOf` says otherwise.
 */
export function operationRoute<A>(
  fastify: FastifyInstance,
  pipeline: Pick<OperationPipeline, 'run'>,
  method: Method,
  path: string,
  op: Operation<A, any, unknown>, // eslint-disable-line @typescript-eslint/no-explicit-any
  {
    doc,
    argsOf = (req) => req.params as A,
    upload,
  }: {
    doc: RouteDoc;
    argsOf?: (req: FastifyRequest) => A;
    /** A route that also takes a multipart upload: its body limit, and the operation (and body) the upload makes. */
    upload?: { bodyLimit: number; read(req: FastifyRequest): Promise<{ op: Operation<A, any, unknown>; body: unknown } | undefined> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  },
): void {
  fastify.route({
    method: method.toUpperCase(),
    url: path,
    schema: routeSchema(doc, path, { body: doc.body ?? op.body, idempotencyKey: op.idempotencyKey ?? 'optional' }),
    preHandler: op.testOnly ? testHelperGuard : undefined,
    config: { testOnly: op.testOnly === true, multipart: upload !== undefined, permission: doc.permission },
    ...(upload ? { bodyLimit: upload.bodyLimit } : {}),
    handler: async (req, reply) => {
      const uploaded = upload ? await upload.read(req) : undefined;
      const [run, body] = uploaded ? [uploaded.op, uploaded.body] : [op, bodyOf(req)];
      return sendAnswer(reply, await pipeline.run(run, ctxOf(req), body, argsOf(req), idempotencyKeyOf(req)));
    },
  });
}

type Params = Record<string, string>;

const CURSOR_RULE = "not a next_cursor this list issued for the API key's merchant and environment";

/**
 * Registers a read (GET): its query string is checked against `doc.query` (the same
 * schema the document shows), and `read` answers 200 with the record or page it returns.
 */
export function readRoute<Q extends TSchema>(
  fastify: FastifyInstance,
  path: string,
  doc: RouteDoc & { query?: Q },
  read: (ctx: RequestContext, query: Static<Q>, params: Params) => Promise<unknown>,
): void {
  fastify.get(path, { schema: routeSchema(doc, path), config: { permission: doc.permission } }, async (req, reply) => {
    const query = doc.query ? check(doc.query, req.query, 'query') : ({} as Static<Q>);
    return sendJson(reply, 200, await read(ctxOf(req), query, req.params as Params));
  });
}

/**
 * Registers a listing (GET): the document shows the query schema the listing derives from
 * `spec`; `list` receives the raw query, and the listing parser behind it checks that same
 * schema once (for REST and GraphQL alike). Answers the page envelope.
 */
export function listRoute(
  fastify: FastifyInstance,
  path: string,
  doc: RouteDoc,
  spec: ListSpec,
  list: (ctx: RequestContext, query: Record<string, unknown>, params: Params) => Promise<Page<unknown>>,
): void {
  const query = listQuerySchema(spec);
  // A cursor the pattern accepts but the service did not issue is refused: the 400 answer lists that rule.
  const responses = doc.responses[400] === commonFailures[400] ? { ...doc.responses, 400: invalidWhen({ cursor: CURSOR_RULE }) } : doc.responses;
  fastify.get(path, { schema: routeSchema({ ...doc, query, responses }, path), config: { permission: doc.permission } }, async (req, reply) => {
    // A bad query is 400 before anything is looked up (a parent that does not exist is 404 only for a good query).
    check(query, req.query, 'query');
    return sendJson(reply, 200, pageEnvelope(await list(ctxOf(req), req.query as Record<string, unknown>, req.params as Params)));
  });
}
