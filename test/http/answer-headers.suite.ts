/**
 * Every JSON answer, REST and GraphQL, success and error, routed or refused before routing,
 * carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody } from '../helpers/client';
import { rawRequest } from '../helpers/raw-http';

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  c = await srv.merchant();
});
afterAll(async () => {
  await srv?.close();
});

const viewer = encodeURIComponent('{ viewer { environment } }');

test('REST and GraphQL answers, successes and refusals', async () => {
  const answers = {
    list: await c.get('/v1/payout_intents'),
    create: await c.post('/v1/payout_intents', payoutBody()),
    invalid: await c.post('/v1/payout_intents', {}),
    unknownRoute: await c.get('/v1/nothing_here'),
    unauthorized: await srv.client().get('/v1/balances'),
    openapi: await srv.client().get('/v1/openapi.json'),
    graphql: await c.gql('{ viewer { environment } }'),
    graphqlGet: await c.get(`/graphql?query=${viewer}`, { headers: { 'apollo-require-preflight': 'true' } }),
    graphqlError: await c.gql('{ nope }'),
    graphqlResponseType: await c.request('POST', '/graphql', {
      body: { query: '{ viewer { environment } }' },
      headers: { accept: 'application/graphql-response+json' },
    }),
  };
  const seen = Object.entries(answers).map(([name, res]) => ({
    name,
    json: /json/.test(res.headers.get('content-type') ?? ''),
    cache: res.headers.get('cache-control'),
    sniff: res.headers.get('x-content-type-options'),
  }));
  expect(seen).toEqual(Object.keys(answers).map((name) => ({ name, json: true, cache: 'no-store', sniff: 'nosniff' })));
  expect(answers.create.status).toBe(201);
});

test('answers written before routing: a request the HTTP parser refuses', async () => {
  const res = await rawRequest(srv.url, 'GET /v1/balances HTTP/1.1\r\nHost: gw\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n');
  expect(res.status).toBe(400);
  expect([res.headers['cache-control'], res.headers['x-content-type-options']]).toEqual(['no-store', 'nosniff']);
});
