/**
 * One rule set for both surfaces, checked from what the server has registered: every /v1
 * route (the route table) and every GraphQL root field (the schema) is tried with a key
 * restricted to `none` on the resource it declares (write on everything else), and must be
 * refused with 403 permission_denied naming the missing permission; a key with exactly that
 * permission gets past the check. A new route or field is covered without editing this file,
 * and one that declares nothing stops the server from starting.
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import { startServer, TestServer } from '../helpers/server';
import { Client, eventually, payoutBody } from '../helpers/client';
import { registeredRoutes } from '../helpers/routes';
import { buildGraphQLSchema } from '../../src/graphql/schema';
import { rootRequirements } from '../../src/graphql/access';
import { isPermission, permissionRefusals, splitPermission, type Requirement } from '../../src/domain/access';
import { RESOURCES } from '../../src/domain/permissions';
import { PUBLIC_PATHS } from '../../src/http/request';

let srv: TestServer;
let full: Client;
beforeAll(async () => {
  srv = await startServer();
  full = await srv.merchant();
});
afterAll(async () => {
  await srv.close();
});

/** Write on every resource but `none` on `except`'s (for a team capability: a restricted key with everything). */
function allBut(needed: Requirement): string[] {
  const resource = isPermission(needed) ? splitPermission(needed)[0] : undefined;
  return RESOURCES.map((r) => `${r}:${r === resource ? 'none' : 'write'}`);
}

const keys = new Map<string, Client>();
async function keyWith(permissions: string[]): Promise<Client> {
  const id = permissions.join(',');
  if (!keys.has(id)) keys.set(id, await srv.keyFor(full.merchantId, 'test', permissions));
  return keys.get(id)!;
}

/** Each route's declaration, as the server registered it. */
function declared(method: string, url: string): Requirement | undefined {
  return srv.server.routePermissions().find((r) => r.method === method && r.url === url)?.permission;
}

const samplePath = (url: string) => url.replace(/:([A-Za-z_]+)/g, 'x_unknown');

describe('REST: every route, from the route table', () => {
  test('every authenticated /v1 route declares a requirement, and a key without it is refused 403 naming it', async () => {
    const routes = registeredRoutes(srv.server).filter((r) => r.url.startsWith('/v1/') && !PUBLIC_PATHS.has(r.url) && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(30);
    const refused: string[] = [];
    for (const { method, url } of routes) {
      const needed = declared(method, url);
      expect({ route: `${method} ${url}`, needed }).toEqual({ route: `${method} ${url}`, needed: expect.any(String) });
      if (needed === 'authenticated') continue;
      const client = await keyWith(allBut(needed!));
      const res = await client.request(method, samplePath(url), method === 'GET' || method === 'DELETE' ? {} : { body: {} });
      expect({ route: `${method} ${url}`, status: res.status, code: res.body?.error?.code }).toEqual({
        route: `${method} ${url}`,
        status: 403,
        code: 'permission_denied',
      });
      expect(res.body.error.message).toContain(needed);
      refused.push(`${method} ${url} (${needed})`);
    }
    process.stdout.write(`\nREST routes refused without their permission: ${refused.length}\n`);
  });

  test('a key holding exactly the declared permission gets past the check', async () => {
    const routes = registeredRoutes(srv.server).filter((r) => r.url.startsWith('/v1/') && !PUBLIC_PATHS.has(r.url) && r.method !== 'HEAD');
    for (const { method, url } of routes) {
      const needed = declared(method, url)!;
      if (!isPermission(needed)) continue;
      const client = await keyWith([needed]);
      const res = await client.request(method, samplePath(url), method === 'GET' || method === 'DELETE' ? {} : { body: {} });
      expect({ route: `${method} ${url}`, code: res.body?.error?.code }).not.toEqual({ route: `${method} ${url}`, code: 'permission_denied' });
    }
  });
});

/** A literal the argument's type accepts (enough to pass validation; the permission check comes before the resolver). */
function literal(type: GraphQLInputType): string {
  if (isNonNullType(type)) return literal(type.ofType);
  if (isListType(type)) return `[${literal(type.ofType)}]`;
  if (isEnumType(type)) return type.getValues()[0].name;
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields()).filter((f) => isNonNullType(f.type));
    return `{ ${fields.map((f) => `${f.name}: ${literal(f.type)}`).join(', ')} }`;
  }
  if (isScalarType(type)) {
    if (type.name === 'Int' || type.name === 'Float') return '1';
    if (type.name === 'Boolean') return 'true';
    if (type.name === 'DateTime') return '"2026-01-01T00:00:00Z"';
  }
  return '"x"';
}

function documentFor(operation: string, name: string, args: readonly GraphQLArgument[], returns: GraphQLOutputType): string {
  const required = args.filter((a) => isNonNullType(a.type));
  const argText = required.length ? `(${required.map((a) => `${a.name}: ${literal(a.type)}`).join(', ')})` : '';
  const selection = isScalarType(getNamedType(returns)) || isEnumType(getNamedType(returns)) ? '' : ' { __typename }';
  return `${operation} { ${name}${argText}${selection} }`;
}

describe('GraphQL: every root field, from the schema', () => {
  const schema = buildGraphQLSchema();
  const fields = rootRequirements(schema);

  test('queries and mutations: refused with extensions.code permission_denied naming the permission', async () => {
    const refused: string[] = [];
    for (const { type, field, needed } of fields) {
      if (type === 'Subscription' || needed === 'authenticated') continue;
      const def = (type === 'Query' ? schema.getQueryType() : schema.getMutationType())!.getFields()[field];
      const doc = documentFor(type === 'Query' ? 'query' : 'mutation', field, def.args, def.type);
      const client = await keyWith(allBut(needed));
      const res = await client.gql(doc);
      expect({ field, status: res.status, code: res.body.errors?.[0]?.extensions?.code }).toEqual({ field, status: 200, code: 'permission_denied' });
      expect(res.body.errors![0].message).toContain(needed);
      // A key with exactly the permission gets past it.
      if (isPermission(needed)) {
        const allowed = await (await keyWith([needed])).gql(doc);
        expect({ field, codes: (allowed.body.errors ?? []).map((e: any) => e.extensions?.code) }).toEqual({
          field,
          codes: expect.not.arrayContaining(['permission_denied']),
        });
      }
      refused.push(`${type}.${field} (${needed})`);
    }
    expect(refused.length).toBeGreaterThan(20);
    process.stdout.write(`\nGraphQL fields refused without their permission: ${refused.length}\n`);
  });

  test('subscriptions: refused without events:read; with it, only the events of readable resources stream', async () => {
    const subs = fields.filter((f) => f.type === 'Subscription');
    expect(subs.map((s) => s.field)).toContain('events');
    const wsUrl = srv.url.replace(/^http/, 'ws') + '/graphql';
    const open = (client: Client) =>
      createClient({ url: wsUrl, webSocketImpl: WebSocket, connectionParams: { authorization: client.authorization }, retryAttempts: 0 });

    const denied = open(await keyWith(allBut('events:read')));
    const error = await new Promise<any>((resolve) => {
      denied.subscribe({ query: 'subscription { events { id } }' }, { next: (m) => resolve(m), error: (e) => resolve(e), complete: () => resolve(null) });
    });
    await denied.dispose();
    const errors = Array.isArray(error) ? error : (error?.errors ?? []);
    if (!errors[0]) throw new Error(`expected a refusal, got ${JSON.stringify(error)}`);
    expect(errors[0]?.extensions?.code).toBe('permission_denied');

    // events:read and topups, but no payouts: a payout's events never arrive, a topup's do.
    const narrow = open(await keyWith(['events:read', 'topup_intents:read']));
    const types: string[] = [];
    narrow.subscribe(
      { query: 'subscription { events { type } }' },
      { next: (m: any) => m.data && types.push(m.data.events.type), error: () => undefined, complete: () => undefined },
    );
    await new Promise((r) => setTimeout(r, 300));
    expect((await full.post('/v1/payout_intents', payoutBody())).status).toBe(201);
    const topup = await full.post(
      '/v1/topup_intents',
      { amount: '100', currency: 'THB', country: 'TH', merchant_reference: `t-${Date.now()}` },
      { idempotencyKey: `k-${Date.now()}` },
    );
    expect(topup.status).toBe(201);
    await eventually(async () => types.includes('topup_intent.created'));
    expect(types.filter((t) => t.startsWith('payout_intent.'))).toEqual([]);
    await narrow.dispose();
  });
});

test('refusals are counted by permission (permission_refused_total) and change nothing', async () => {
  const client = await keyWith(['payout_intents:read', 'balances:read']);
  const before = (await full.get('/v1/balances')).body;
  const res = await client.post('/v1/payout_intents', payoutBody());
  expect(res.status).toBe(403);
  expect(res.body).toEqual({ error: { code: 'permission_denied', message: expect.stringContaining('payout_intents:write') } });
  expect((await full.get('/v1/balances')).body).toEqual(before);
  expect((await client.get('/v1/payout_intents')).status).toBe(200);
  expect((await client.get('/v1/balances')).status).toBe(200);
  expect(permissionRefusals.get('payout_intents:write')).toBeGreaterThan(0);
});
