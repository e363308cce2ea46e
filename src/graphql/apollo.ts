/**
 * GraphQL over HTTP (POST and GET) on /graphql with Apollo Server, behind the same
 * authentication as REST and graphql-armor's depth, cost, alias, directive and token limits.
 */
import { ApolloServer, ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { FastifyInstance } from 'fastify';
import type { App } from '../app';
import { ctxOf, idempotencyKeyOf } from '../http/plumbing';
import { createContext, GqlContext } from './context';
import { requestBaseUrl } from '../modules/payments/base-url';
import { formatError } from './errors';
import { buildGraphQLSchema } from './schema';

export const ARMOR_LIMITS = {
  maxDepth: { n: 10 },
  costLimit: { maxCost: 5000 },
  maxAliases: { n: 15 },
  maxDirectives: { n: 20 },
  maxTokens: { n: 2000 },
} as const;

/** `Idempotent-Replayed: true` on a GraphQL response whose mutation was answered from the store, as on REST. */
const replayHeaderPlugin: ApolloServerPlugin<GqlContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ contextValue, response }) {
        if (contextValue.replayed) response.http.headers.set('idempotent-replayed', 'true');
      },
    };
  },
};

export function createArmor() {
  return new ApolloArmor({ ...ARMOR_LIMITS, blockFieldSuggestion: { enabled: true } }).protect();
}

export async function registerGraphQL(fastify: FastifyInstance, app: App): Promise<ApolloServer<GqlContext>> {
  const armor = createArmor();
  const apollo = new ApolloServer<GqlContext>({
    schema: buildGraphQLSchema(),
    plugins: [...armor.plugins, fastifyApolloDrainPlugin(fastify), ApolloServerPluginLandingPageDisabled(), replayHeaderPlugin],
    validationRules: [...armor.validationRules],
    formatError: formatError(app.log),
    includeStacktraceInErrorResponses: false,
    introspection: true,
    // CONTRACT.md serves GraphQL over GET as well as POST, for any GraphQL-over-HTTP client:
    // a GET that carries the Basic credentials is answered without a preflight-forcing
    // header. That stays CSRF-safe here: Apollo refuses mutations over GET (queries have no
    // side effects), a POST must be application/json (415 otherwise), which a browser
    // cannot send cross-site without a CORS preflight, and unauthenticated requests are a
    // 401 before Apollo sees them.
    csrfPrevention: { requestHeaders: ['authorization', 'x-apollo-operation-name', 'apollo-require-preflight'] },
  });
  await apollo.start();
  await fastify.register(fastifyApollo(apollo), {
    path: '/graphql',
    method: ['GET', 'POST'],
    context: async (request) => createContext(app, ctxOf(request), idempotencyKeyOf(request), requestBaseUrl(app.config, request)),
  });
  return apollo;
}
