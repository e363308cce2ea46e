/**
 * The compiled executor (graphql-jit behind Apollo, src/graphql/executor.ts) answers exactly
 * as Apollo's own graphql-js execution: the same documents run through both Apollo servers,
 * built from the same options, with the same context, and the bodies and statuses are
 * compared byte for byte (data, null propagation, error messages, locations, paths and
 * extensions.code/param).
 */
import { ApolloServer, ApolloServerOptions } from '@apollo/server';
import { apolloOptions } from '../../src/graphql/apollo';
import { createContext, GqlContext } from '../../src/graphql/context';
import { graphServices } from '../../src/graphql/services';
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody } from '../helpers/client';

let srv: TestServer;
let client: Client;
let jit: ApolloServer<GqlContext>;
let jitOptions: ApolloServerOptions<GqlContext>;
let reference: ApolloServer<GqlContext>;
const ids: string[] = [];

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  client = await srv.merchant();
  for (let i = 0; i < 4; i++) ids.push((await client.post('/v1/payout_intents', payoutBody())).body.id);
  await client.post(`/v1/payout_intents/${ids[1]}/cancel`, { reason: 'no' });
  jitOptions = apolloOptions(srv.app, 'jit');
  jit = new ApolloServer<GqlContext>(jitOptions);
  reference = new ApolloServer<GqlContext>(apolloOptions(srv.app, 'graphql-js'));
  await Promise.all([jit.start(), reference.start()]);
});
afterAll(async () => {
  await Promise.all([jit?.stop(), reference?.stop()]);
  await srv?.close();
});

async function run(server: ApolloServer<GqlContext>, request: { query: string; variables?: Record<string, unknown>; operationName?: string }) {
  const key = await srv.app.auth.authenticate(client.authorization);
  const ctx = { ...key, requestId: 'req_test', log: srv.app.log };
  const response = await server.executeOperation(request, { contextValue: createContext(graphServices(srv.app), ctx) });
  return { status: response.http.status ?? 200, body: JSON.stringify(response.body) };
}

const F =
  'id amount currency country environment status merchantReference failureCode failureMessage createdAt updatedAt recipient { type accountLast4 bankCode holderName }';
const documents: [string, () => { query: string; variables?: Record<string, unknown>; operationName?: string }][] = [
  [
    'list, all fields',
    () => ({
      query: `{ payoutIntents(first: 25) { nodes { ${F} } edges { cursor node { id __typename } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
    }),
  ],
  [
    'list, filter and page size as variables',
    () => ({
      query: 'query L($n: Int, $s: [PayoutIntentStatus!]) { payoutIntents(first: $n, filter: { status: $s }) { nodes { id status failureMessage } } }',
      variables: { n: 2, s: ['CANCELLED', 'REQUIRES_APPROVAL'] },
    }),
  ],
  ['get by id', () => ({ query: `{ payoutIntent(id: "${ids[1]}") { ${F} } }` })],
  ['unknown id: null and not_found', () => ({ query: `{ a: payoutIntent(id: "po_unknown") { id } b: payoutIntent(id: "${ids[0]}") { id amount } }` })],
  ['bad list arguments', () => ({ query: '{ x: payoutIntents(first: 0) { nodes { id } } }' })],
  ['bad cursor', () => ({ query: '{ payoutIntents(after: "nope") { nodes { id } } }' })],
  ['bad filter', () => ({ query: '{ payoutIntents(filter: { createdGte: "yesterday" }) { nodes { id } } }' })],
  ['variable of the wrong type', () => ({ query: 'query($n: Int) { payoutIntents(first: $n) { nodes { id } } }', variables: { n: 'x' } })],
  ['missing required variable', () => ({ query: 'query($n: Int!) { payoutIntents(first: $n) { nodes { id } } }', variables: {} })],
  [
    'bad enum variable',
    () => ({
      query: 'query($s: [PayoutIntentStatus!]) { payoutIntents(filter: { status: $s }) { nodes { id } } }',
      variables: { s: ['nope'] },
    }),
  ],
  [
    'skip/include and fragments',
    () => ({
      query:
        'query($x: Boolean!) { payoutIntents(first: 3) { nodes { ...P ... on PayoutIntent { status @include(if: $x) } } } } fragment P on PayoutIntent { id amount @skip(if: $x) }',
      variables: { x: true },
    }),
  ],
  ['operation picked by name', () => ({ query: 'query A { __typename } query B { payoutIntents(first: 1) { nodes { id } } }', operationName: 'B' })],
  ['several operations, no operationName', () => ({ query: 'query A { __typename } query B { __typename }' })],
  ['unknown operationName', () => ({ query: 'query A { __typename } query B { __typename }', operationName: 'C' })],
  ['introspection', () => ({ query: '{ __type(name: "PayoutIntent") { name fields { name type { kind name ofType { kind name } } } } }' })],
  ['viewer and balances', () => ({ query: '{ viewer { __typename } balances { currency available pending reserved } }' })],
  [
    'other lists',
    () => ({
      query:
        '{ topupIntents(first: 2) { nodes { id } } paymentIntents(first: 2) { nodes { id } } refunds(first: 2) { nodes { id } } events(first: 3) { nodes { id type } } webhookEndpoints { nodes { id } } }',
    }),
  ],
  ['validation failure (unknown field)', () => ({ query: '{ payoutIntents { nodes { holderNam } } }' })],
  ['mutation refused by the domain (graphql-js path)', () => ({ query: 'mutation { approvePayoutIntent(id: "po_unknown") { id } }' })],
];

test.each(documents)('%s: same body and status as graphql-js', async (_name, request) => {
  const r = request();
  const expected = await run(reference, r);
  // A document is compiled on its second execution (COMPILE_ON_EXECUTION): both runs are compared.
  expect(await run(jit, r)).toEqual(expected);
  expect(await run(jit, r)).toEqual(expected);
  expect(await run(jit, r)).toEqual(expected);
});

test('the queries above ran compiled (none fell back to graphql-js)', () => {
  const stats = (jitOptions.gateway as unknown as { stats(): { compiled: number; fallbacks: number } }).stats();
  expect(stats.fallbacks).toBe(0);
  expect(stats.compiled).toBeGreaterThanOrEqual(12);
});
