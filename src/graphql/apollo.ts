/**
 * GraphQL over HTTP (POST and GET) on /graphql with Apollo Server, behind the same
 * authentication as REST, graphql-armor's depth, alias, directive and token limits, and the
 * query cost limit of cost.ts.
 * A document that does not parse or validate is HTTP 400 with `extensions.code`
 * `validation_error` (errors.ts maps Apollo's own codes).
 */
import { ApolloServer, ApolloServerOptions, ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GraphQLError, OperationTypeNode, type ValidationRule } from 'graphql';
import { UNAVAILABLE_RETRY_AFTER_S } from '../db/db';
import { ctxOf, idempotencyKeyOf } from '../http/request';
import { createContext, GqlContext } from './context';
import { graphServices, type GraphQLHost } from './services';
import { formatError } from './errors';
import { ApiError } from '../domain/errors';
import { jitGateway } from './executor';
import { buildGraphQLSchema } from './schema';
import { oneMutationPerKeyPlugin } from './mutation-rules';
import { queryCostPlugin } from './cost';
import { TrustedDocuments } from './trusted-documents';

export const ARMOR_LIMITS = {
  maxDepth: { n: 10 },
  maxAliases: { n: 15 },
  maxDirectives: { n: 20 },
  maxTokens: { n: 2000 },
} as const;

/**
 * The response head of a GraphQL answer, as on REST, in one `willSendResponse`:
 *  - `Idempotent-Replayed: true` when a mutation was answered from the store;
 *  - `extensions: { deduplicated: true, deduplicatedFields: [<response keys>] }` when a
 *    mutation returned an existing record (a replay, or a repeated merchantReference);
 *  - HTTP 503 with Retry-After when the request met a database outage (`extensions.code`
 *    `service_unavailable`): the client retries the whole request later.
 * One plugin whose listener is a single shared object (it keeps no per-request state):
 * Apollo calls every listener of every plugin at each stage of every request.
 */
const responseHeadListener: GraphQLRequestListener<GqlContext> = {
  willSendResponse({ contextValue, response }) {
    if (contextValue.replayed) response.http.headers.set('idempotent-replayed', 'true');
    const deduplicated = contextValue.deduplicated;
    if (deduplicated?.length && response.body.kind === 'single') {
      const result = response.body.singleResult;
      result.extensions = { ...result.extensions, deduplicated: true, deduplicatedFields: deduplicated };
    }
    const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
    if (errors?.some((e) => e.extensions?.code === 'service_unavailable')) {
      response.http.status = 503;
      response.http.headers.set('retry-after', String(UNAVAILABLE_RETRY_AFTER_S));
    }
    return Promise.resolve();
  },
};
const responseHeadPlugin: ApolloServerPlugin<GqlContext> = {
  requestDidStart: () => Promise.resolve(responseHeadListener),
};

/**
 * graphql-armor's protections. Its token limit is off here: as an Apollo plugin it parses the
 * document a second time in `parsingDidStart`, outside Apollo's parse error handling, so a
 * syntax error or a document over the limit became a 500. The same limit is graphql-js's
 * own `maxTokens` parse option instead (Apollo's `parseOptions` below, and ws.ts), whose
 * failure is an ordinary parse error: HTTP 400, `validation_error`.
 */
export function createArmor() {
  return new ApolloArmor({
    ...ARMOR_LIMITS,
    maxTokens: { ...ARMOR_LIMITS.maxTokens, enabled: false },
    // The cost limit is cost.ts's: graphql-armor's rule on the operation with its page sizes
    // written out (variables and defaults), refused as query_too_complex, not as a parse error.
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: true },
  }).protect();
}

/**
 * Subscriptions are served over graphql-ws only (ws.ts). Over HTTP a subscription
 * operation is a validation failure (400 `validation_error`, GET and POST alike), not an
 * execution that cannot produce a stream.
 */
export const NoSubscriptionsOverHttp: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (node.operation === OperationTypeNode.SUBSCRIPTION) {
      context.reportError(
        new GraphQLError('Subscriptions are served over WebSocket (graphql-ws, subprotocol graphql-transport-ws) at /graphql, not over HTTP.', { nodes: node }),
      );
    }
  },
});

/**
 * Apollo's default plugins, off: no cache hint is ever set (the cache-control plugin would
 * wrap every field resolver of the schema to collect them), nothing reports to Apollo's
 * cloud, and there is no landing page.
 */
const DEFAULT_PLUGINS_OFF = [
  ApolloServerPluginCacheControlDisabled(),
  ApolloServerPluginInlineTraceDisabled(),
  ApolloServerPluginLandingPageDisabled(),
  ApolloServerPluginSchemaReportingDisabled(),
  ApolloServerPluginUsageReportingDisabled(),
];

/**
 * The Apollo Server options of /graphql. `executor`: `jit` (what the service runs: queries
 * compiled by graphql-jit, mutations on graphql-js, executor.ts) or `graphql-js` (Apollo's
 * own execution, the reference test/graphql/jit-executor.suite.ts compares against).
 */
export function apolloOptions(
  app: Pick<GraphQLHost, 'config' | 'log'>,
  executor: 'jit' | 'graphql-js',
  plugins: ApolloServerPlugin<GqlContext>[] = [],
): ApolloServerOptions<GqlContext> {
  const armor = createArmor();
  const schema = buildGraphQLSchema();
  return {
    ...(executor === 'jit' ? { gateway: jitGateway(schema) } : { schema }),
    plugins: [...armor.plugins, ...plugins, ...DEFAULT_PLUGINS_OFF, oneMutationPerKeyPlugin, queryCostPlugin, responseHeadPlugin],
    validationRules: [...armor.validationRules, NoSubscriptionsOverHttp],
    parseOptions: { maxTokens: ARMOR_LIMITS.maxTokens.n },
    formatError: formatError(app.log),
    includeStacktraceInErrorResponses: false,
    // Apollo follows the service's NODE_ENV (its configuration), not the process's own. Outside
    // `test` Apollo would add SIGINT/SIGTERM handlers that stop it at once and send the signal
    // again; the process's shutdown (main.ts) closes Fastify, which drains Apollo in its turn.
    nodeEnv: app.config.nodeEnv,
    stopOnTerminationSignals: false,
    // Off in production: the schema is published as a file (schema.graphql), not answered to
    // every key (docs/decisions/0151-production-surface.md). Development and tests keep it.
    introspection: app.config.nodeEnv !== 'production',
    // Off: Apollo's store is one cache for every caller, so a hash one merchant registered would
    // run for another. A request that names one is refused before Apollo (persistedQueryRefusal).
    persistedQueries: false,
    // docs/contract.md serves GraphQL over GET as well as POST, for any GraphQL-over-HTTP client:
    // a GET that carries the Basic credentials is answered without a preflight-forcing
    // header. That stays CSRF-safe here: Apollo refuses mutations over GET (queries have no
    // side effects), a POST must be application/json (415 otherwise), which a browser
    // cannot send cross-site without a CORS preflight, and unauthenticated requests are a
    // 401 before Apollo sees them.
    csrfPrevention: { requestHeaders: ['authorization', 'x-apollo-operation-name', 'apollo-require-preflight'] },
  };
}

/**
 * Automatic persisted queries are not served (see `persistedQueries` above): a request whose
 * `extensions` name a persisted query is 400 validation_error, a contract code, instead of
 * Apollo's own PERSISTED_QUERY_NOT_SUPPORTED answered with 200.
 */
export function persistedQueryRefusal(body: unknown, query: unknown): ApiError | undefined {
  const fromBody = (body as { extensions?: { persistedQuery?: unknown } } | undefined)?.extensions?.persistedQuery;
  const fromQuery = (query as { extensions?: unknown } | undefined)?.extensions;
  const named = fromBody !== undefined || (typeof fromQuery === 'string' && fromQuery.includes('persistedQuery'));
  return named
    ? ApiError.validation(
        'extensions.persistedQuery',
        'Persisted queries are not supported: send the document in `query` (and leave out extensions.persistedQuery).',
      )
    : undefined;
}

/**
 * A POST naming `documentId` runs that registered document: its text goes in `query` before
 * Apollo reads the body. Without one, a member's request is refused when only registered
 * documents are trusted (trusted-documents.ts).
 */
function useTrustedDocument(trusted: TrustedDocuments, request: FastifyRequest): void {
  if (request.method === 'GET') {
    if ((request.query as Record<string, unknown>).documentId !== undefined) throw ApiError.validation('documentId', 'Send documentId in a POST body.');
    trusted.refuseText(ctxOf(request).principal, 'query');
    return;
  }
  const body = request.body;
  const documentId = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).documentId : undefined;
  if (documentId === undefined) {
    trusted.refuseText(ctxOf(request).principal, 'query');
    return;
  }
  const carrier = body as Record<string, unknown>;
  if (carrier.query !== undefined) throw ApiError.validation('documentId', 'Send either documentId or query, not both.');
  carrier.query = trusted.text(documentId, 'documentId');
  delete carrier.documentId;
}

export async function registerGraphQL(fastify: FastifyInstance, app: GraphQLHost, trusted: TrustedDocuments): Promise<ApolloServer<GqlContext>> {
  const apollo = new ApolloServer<GqlContext>(apolloOptions(app, 'jit', [fastifyApolloDrainPlugin(fastify)]));
  await apollo.start();
  fastify.addHook('preHandler', (request, _reply, done) => {
    if (request.routeOptions.url !== '/graphql') return done();
    try {
      const refusal = persistedQueryRefusal(request.body, request.query);
      if (refusal) throw refusal;
      useTrustedDocument(trusted, request);
      done();
    } catch (err) {
      done(err as Error);
    }
  });
  // The integration's route, registered directly so HEAD is not exposed beside GET: Apollo
  // refuses HEAD, so the route table (405 Allow) must not offer it.
  fastify.route({
    method: ['GET', 'POST'],
    url: '/graphql',
    exposeHeadRoute: false,
    handler: fastifyApolloHandler(apollo, {
      context: (request) => Promise.resolve(createContext(graphServices(app), ctxOf(request), idempotencyKeyOf(request))),
    }),
  });
  return apollo;
}
