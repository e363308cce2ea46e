/**
 * GraphQL over WebSocket (graphql-ws, subprotocol graphql-transport-ws) on /graphql, on
 * the same port as HTTP. Apollo's plugins never see this traffic, so the same rules are
 * applied here: authentication from `connectionParams.authorization`, or without it the dashboard's
 * session cookie on the upgrade (its Origin checked; a bad key or session closes the socket with 4401), the per-key rate limit (a connection and each subscribe take one
 * point; a connection over the limit closes with 4429, a subscribe over it is refused
 * with `rate_limited`), at most MAX_SUBSCRIPTIONS_PER_SOCKET operations at a time, the
 * token limit at parse time, graphql-armor's validation rules (depth, aliases,
 * directives), the query cost limit (cost.ts), and a fresh per-operation context. Only subscription operations are served.
 *
 * A key revoked (or a session ended) after connecting closes the socket with 4403: at its next subscribe, or
 * when the process's revocation watcher learns of it (at once in the revoking process,
 * through Redis or the database poll elsewhere: within REVOCATION_POLL_MS, default
 * 250 ms). Its streams read nothing committed after the revocation meanwhile.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import {
  createSourceEventStream,
  execute,
  getOperationAST,
  GraphQLError,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import { WebSocketServer, type WebSocket } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import type { TrustedDocuments } from './trusted-documents';
import { ApiError, ERROR_CODES } from '../domain/errors';
import { toGraphQLError } from './errors';
import { grantsOf } from '../domain/permissions';
import { newRequestId } from '../domain/ids';
import type { AuthenticatedKey } from '../domain/scope';
import type { RateLimiter } from '../http/rate-limit';
import { ARMOR_LIMITS, createArmor } from './apollo';
import { createContext } from './context';
import { graphServices, type GraphQLHost } from './services';
import { buildGraphQLSchema } from './schema';
import { QUERY_COST, requestedCost } from './cost';
import { writeSocketError } from '../http/error-replies';
import { pathOf } from '../http/request';

type Extra = {
  socket: WebSocket;
  key?: AuthenticatedKey;
  /** The connection's credentials, checked again at every subscribe (a revoked key closes the socket). */
  authorization?: string;
};

/** Concurrent subscriptions one socket may hold; each holds a database-backed event stream. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 20;

/** Message types only a server sends. graphql-ws answers one from a client as its own failure (4500, and a console line). */
const SERVER_ONLY_TYPES = new Set(['connection_ack', 'next', 'error']);

function serverOnlyMessage(data: unknown): boolean {
  try {
    const message = JSON.parse(String(data)) as { type?: unknown } | null;
    return typeof message === 'object' && message !== null && SERVER_ONLY_TYPES.has(message.type as string);
  } catch {
    return false; // graphql-ws closes 4400 for what does not parse
  }
}

/**
 * What a client gets wrong is the client's: a message type only a server sends is closed
 * with 4400 (Bad Request) before graphql-ws sees it, and a frame WebSocket itself refuses
 * (text that is not UTF-8, over 64 KiB, a protocol violation: `ws` has already closed
 * with 1007/1009/1002) is not passed on as a socket error, which graphql-ws would report
 * as an internal one (4500 and a console line).
 */
function guardClientMessages(socket: WebSocket): void {
  const emit = socket.emit.bind(socket);
  socket.emit = ((event: string, ...args: unknown[]) => {
    if (event === 'message' && serverOnlyMessage(args[0])) {
      socket.close(4400, 'Invalid message received');
      return true;
    }
    if (event === 'error' && typeof (args[0] as { code?: unknown })?.code === 'string' && (args[0] as { code: string }).code.startsWith('WS_ERR_')) return true;
    return emit(event, ...args);
  }) as typeof socket.emit;
}

const isAuthError = (err: unknown) => err instanceof ApiError && (err.status === 401 || err.status === 403);
const isRateLimited = (err: unknown): err is ApiError & { retryAfter: number } => err instanceof ApiError && err.code === 'rate_limited';

/** Close codes (docs/subscriptions.md). 4429: the key's rate limit; the reason says when to retry. */
export const WS_CLOSE = { unauthorized: 4401, forbidden: 4403, rateLimited: 4429 } as const;

/** Event streams onSubscribe opened (to refuse with an `error` message), by the operation's context: subscribeShared reads from them. */
const openedSources = new WeakMap<object, AsyncIterable<unknown>>();

/**
 * A refusal while setting a stream up (permission_denied, not_found, a bad `after`) as the
 * errors of graphql-ws's `error` message, with the contract's code, instead of a `next` that
 * carries errors and then completes.
 */
function setupErrors(errors: readonly GraphQLError[]): GraphQLError[] {
  return errors.map((e) => {
    const original = e.originalError;
    if (original instanceof ApiError) {
      const mapped = toGraphQLError(original, '');
      return new GraphQLError(mapped.message, { path: e.path, extensions: mapped.extensions });
    }
    const code = e.extensions?.code;
    if (typeof code === 'string' && Object.hasOwn(ERROR_CODES, code)) return new GraphQLError(e.message, { path: e.path, extensions: e.extensions });
    // A request error (no path: variables that do not coerce, no such operation): the caller's document.
    if (e.path === undefined) return new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'validation_error' } });
    return new GraphQLError(ApiError.internal().message, { path: e.path, extensions: { code: 'internal_error' } });
  });
}

/** The text an operation was parsed from, with its variables and name: subscriptions with the same one share results. */
const operationKeys = new WeakMap<DocumentNode, string>();
/** Per event row (the object the scope's shared reader hands every stream), per operation key: the executed result. */
const sharedResults = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

/**
 * graphql-js `subscribe`, except that the selection set is executed once per event and
 * distinct operation (same text, variables and operation name), not once per subscriber:
 * the streams of a scope receive the same row object from the hub (EventHub), so the
 * subscribers of one document share the result, and only its serialisation per socket
 * remains. Execution depends on the row alone (the resolver creates its DataLoaders per
 * event), never on the subscriber; rows read on a stream's own (catch-up) are not shared.
 */
async function subscribeShared(args: ExecutionArgs): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
  const source = openedSources.get(args.contextValue as object) ?? (await createSourceEventStream(args));
  openedSources.delete(args.contextValue as object);
  if (!(Symbol.asyncIterator in source)) return source;
  const iterator = source[Symbol.asyncIterator]();
  const key = operationKeys.get(args.document);
  const run = (payload: unknown) => Promise.resolve(execute({ ...args, rootValue: payload }));
  const map = (payload: unknown): Promise<ExecutionResult> => {
    if (key === undefined || typeof payload !== 'object' || payload === null) return run(payload);
    let byKey = sharedResults.get(payload);
    if (!byKey) sharedResults.set(payload, (byKey = new Map<string, Promise<ExecutionResult>>()));
    let result = byKey.get(key);
    if (!result) byKey.set(key, (result = run(payload)));
    return result;
  };
  const mapped: AsyncGenerator<ExecutionResult> = {
    async next() {
      const r = await iterator.next();
      return r.done ? { done: true, value: undefined } : { done: false, value: await map(r.value) };
    },
    async return() {
      await iterator.return?.();
      return { done: true, value: undefined };
    },
    async throw(err?: unknown) {
      if (iterator.throw) await iterator.throw(err);
      throw err;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  } as AsyncGenerator<ExecutionResult>;
  return mapped;
}

export function registerGraphQLWs(fastify: FastifyInstance, app: GraphQLHost, limiter: RateLimiter, trusted: TrustedDocuments): void {
  const schema = buildGraphQLSchema();
  const armor = createArmor();
  const rules = [...specifiedRules, ...armor.validationRules];
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });

  // An upgrade that cannot proceed is answered in the contract's shape, not with ws's plain text.
  const refuseUpgrade = (socket: Duplex, error: ApiError, headers: Record<string, string> = {}) => {
    writeSocketError(socket, error, headers);
    socket.once('finish', () => socket.destroy());
    socket.end();
  };
  wss.on('wsClientError', (err: Error, socket: Duplex) => {
    if (err.message === 'Invalid HTTP method') {
      refuseUpgrade(socket, new ApiError('method_not_allowed', 'A WebSocket upgrade must be a GET.'), { Allow: 'GET' });
    } else {
      refuseUpgrade(socket, new ApiError('bad_request', `Not a valid WebSocket upgrade: ${err.message}.`));
    }
  });
  fastify.server.on('upgrade', (req, socket, head) => {
    if (pathOf(req.url ?? '') !== '/graphql') {
      refuseUpgrade(socket, new ApiError('bad_request', 'WebSocket connections are served at /graphql only (subprotocol graphql-transport-ws).'));
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  // Registered before graphql-ws's own listener: sees each socket first.
  wss.on('connection', guardClientMessages);

  // A dashboard socket carries the session cookie (and its Origin) on the upgrade and sends no authorization.
  const authenticate = async (extra: Extra & { request: IncomingMessage }): Promise<AuthenticatedKey> => {
    if (extra.authorization === undefined) {
      const member = await app.credentials.authenticateCookie(extra.request.headers, 'GET', app.publicUrl.get());
      if (member) return member;
    }
    return app.credentials.authenticate(extra.authorization);
  };

  const server = useServer<Record<string, unknown> | undefined, Extra>(
    {
      schema,
      subscribe: subscribeShared,
      onConnect: async (ctx) => {
        const authorization = ctx.connectionParams?.authorization;
        ctx.extra.authorization = typeof authorization === 'string' ? authorization : undefined;
        try {
          const key = await authenticate(ctx.extra);
          await limiter.take(key.apiKeyId);
          ctx.extra.key = key;
        } catch (err) {
          if (isRateLimited(err)) {
            ctx.extra.socket.close(WS_CLOSE.rateLimited, `Too many requests; retry after ${err.retryAfter} s`);
            return false;
          }
          // Anything but bad credentials (the database is down, ...) is graphql-ws's 4500, not a 4401.
          if (!isAuthError(err)) throw err;
          ctx.extra.socket.close(WS_CLOSE.unauthorized, 'Unauthorized');
          return false;
        }
        const socket = ctx.extra.socket;
        const watcher = ctx.extra.key.principal.type === 'member' ? app.sessionWatch : app.revocations;
        const unwatch = watcher.watch(ctx.extra.key.apiKeyId, () => socket.close(WS_CLOSE.forbidden, 'Forbidden'));
        socket.once('close', unwatch);
        // Closed while authenticating: 'close' has fired already.
        if (socket.readyState !== socket.OPEN) unwatch();
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        if (!ctx.extra.key) return [new GraphQLError('Unauthorized', { extensions: { code: 'unauthorized' } })];
        // graphql-ws has already registered this operation's id when onSubscribe runs.
        if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_SOCKET) {
          return [
            new GraphQLError(`At most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions per connection; complete one first or open another connection.`, {
              extensions: { code: 'rate_limited' },
            }),
          ];
        }
        // HTTP authenticates every request; a socket re-checks its key at every operation.
        let key: AuthenticatedKey;
        try {
          key = await authenticate(ctx.extra);
        } catch (err) {
          if (!isAuthError(err)) throw err;
          ctx.extra.socket.close(WS_CLOSE.forbidden, 'Forbidden');
          return [new GraphQLError('Forbidden', { extensions: { code: 'unauthorized' } })];
        }
        try {
          await limiter.take(key.apiKeyId);
        } catch (err) {
          if (!isRateLimited(err)) throw err;
          return [new GraphQLError(err.message, { extensions: { code: 'rate_limited' } })];
        }
        let document: DocumentNode;
        try {
          // A registered document (extensions.documentId) runs its registered text, whatever `query` holds.
          const documentId = payload.extensions?.documentId;
          if (documentId === undefined) trusted.refuseText(key.principal, 'query');
          const text = documentId === undefined ? payload.query : trusted.text(documentId, 'extensions.documentId');
          document = parse(text, { maxTokens: ARMOR_LIMITS.maxTokens.n });
        } catch (err) {
          if (err instanceof ApiError) return [toGraphQLError(err, '')];
          return [new GraphQLError((err as Error).message, { extensions: { code: 'validation_error' } })];
        }
        const errors = validate(schema, document, rules);
        if (errors.length > 0) {
          return errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { ...e.extensions, code: 'validation_error' } }));
        }
        const cost = requestedCost(schema, document, payload.variables ?? undefined, payload.operationName);
        if (cost > QUERY_COST.maxCost) {
          return [
            new GraphQLError(`This operation costs ${cost}, over the limit of ${QUERY_COST.maxCost}.`, {
              extensions: { code: 'query_too_complex' },
            }),
          ];
        }
        // Queries and mutations go over HTTP, where rate limits, Idempotency-Key and the
        // request's base URL (hosted checkout links) apply; the socket is for subscriptions.
        const operation = getOperationAST(document, payload.operationName ?? undefined);
        if (!operation || operation.operation !== OperationTypeNode.SUBSCRIPTION) {
          return [
            new GraphQLError('Only subscription operations are served over WebSocket; send queries and mutations to POST /graphql.', {
              extensions: { code: 'validation_error' },
            }),
          ];
        }
        // Subscribers share an execution only when they may read the same things (declared nested fields are checked in it).
        const access = JSON.stringify(grantsOf(key.principal));
        operationKeys.set(document, `${payload.operationName ?? ''}\u0000${JSON.stringify(payload.variables ?? null)}\u0000${access}\u0000${payload.query}`);
        const requestId = newRequestId();
        const contextValue = createContext(graphServices(app), { ...key, requestId, log: app.log.child({ requestId }) });
        const args: ExecutionArgs = {
          schema,
          document,
          contextValue,
          variableValues: payload.variables ?? undefined,
          operationName: payload.operationName ?? undefined,
        };
        // The stream is opened here, so that a refusal is the protocol's `error` message.
        const source = await createSourceEventStream(args);
        if (!(Symbol.asyncIterator in source)) return setupErrors(source.errors ?? []);
        openedSources.set(contextValue, source);
        return args;
      },
    },
    wss,
  );

  fastify.addHook('preClose', async () => {
    for (const client of wss.clients) client.close(1001, 'Going away');
    await server.dispose();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
}
