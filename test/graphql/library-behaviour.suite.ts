/**
 * Behaviours of @apollo/server and type-graphql (pinned to exact versions in package.json)
 * that the GraphQL surface relies on and no other test names. An upgrade that changes one
 * of them fails here, by name.
 */
import { FULL_ACCESS } from '../../src/domain/permissions';
import { execute, parse } from 'graphql';
import type { GqlContext, GraphServices } from '../../src/graphql/context';
import { buildGraphQLSchema } from '../../src/graphql/schema';
import { BalanceResolver } from '../../src/modules/balances/balance.resolver';
import type { RequestContext } from '../../src/domain/scope';
import { startServer, TestServer } from '../helpers/server';
import type { Client } from '../helpers/client';

describe('type-graphql', () => {
  const balance = {
    currency: 'THB',
    environment: 'test',
    available: '5',
    pending: '0',
    reserved: '0',
    updated_at: '2026-01-02T03:04:05.000Z',
  };
  const ctx = { merchantId: 'm', environment: 'test', principal: { type: 'api_key', id: 'key_1', restricted: false, grants: FULL_ACCESS } } as RequestContext;

  function contextWith(get: GraphServices['get']): GqlContext {
    const services: GraphServices = {
      pipeline: { run: () => Promise.reject(new Error('no mutation here')) },
      get,
      loaders: () => ({}) as GqlContext['loaders'],
    };
    return { services, ctx, loaders: services.loaders(ctx), replayed: false };
  }

  test("resolver instances come from the operation's context (the schema's container), never from type-graphql itself", async () => {
    const asked: unknown[] = [];
    const resolver = new BalanceResolver({ ledger: { list: async (scope: RequestContext) => (scope === ctx ? [balance] : []) } as never });
    const contextValue = contextWith((Resolver) => {
      asked.push(Resolver);
      return resolver;
    });
    const result = await execute({ schema: buildGraphQLSchema(), document: parse('{ balances { currency available } }'), contextValue });
    expect(result).toEqual({ data: { balances: [{ currency: 'THB', available: '5' }] } });
    expect(asked).toEqual([BalanceResolver]);
  });

  test('a plain field named apart from its property (`@Field({ name })`) reads the property', async () => {
    const resolver = new BalanceResolver({ ledger: { list: async () => [balance] } as never });
    const result = await execute({
      schema: buildGraphQLSchema(),
      document: parse('{ balances { updatedAt environment } }'),
      contextValue: contextWith(() => resolver),
    });
    expect(result).toEqual({ data: { balances: [{ updatedAt: '2026-01-02T03:04:05.000Z', environment: 'TEST' }] } });
  });
});

describe('@apollo/server', () => {
  let srv: TestServer;
  let client: Client;
  beforeAll(async () => {
    srv = await startServer({ scheduler: false });
    client = await srv.merchant(undefined, 'test', { fund: false });
  });
  afterAll(async () => srv?.close());

  test('a GET query that carries Authorization and no preflight header passes the CSRF check (csrfPrevention.requestHeaders)', async () => {
    const res = await client.request('GET', `/graphql?query=${encodeURIComponent('{ viewer { environment } }')}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { viewer: { environment: 'TEST' } }, extensions: { cost: expect.any(Object) } });
  });

  test('a mutation over GET is refused with 405 before it runs', async () => {
    const query = 'mutation { cancelPayoutIntent(id: "po_nope") { id } }';
    const res = await client.request('GET', `/graphql?query=${encodeURIComponent(query)}`);
    expect(res.status).toBe(405);
    expect(res.body.errors[0].extensions.code).toBe('method_not_allowed');
  });
});
