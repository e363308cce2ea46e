/**
 * Enum forms beside the contract's Strings (docs/graphql.md, "Enums"): `typeEnum`,
 * `failureCodeEnum` and `paymentMethodEnum` read the same record as `type`, `failureCode`
 * and `paymentMethod`; the event filter and subscription take EventType values; a create
 * takes `paymentMethodEnum`.
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';

let srv: TestServer;
let m: Client;
beforeAll(async () => {
  srv = await startServer();
  m = await srv.merchant();
});
afterAll(async () => {
  await srv.close();
});

test('a cancelled payout: failureCodeEnum CANCELLED, its events typed, the filter takes EventType values', async () => {
  const created = await m.post('/v1/payout_intents', payoutBody());
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await m.post(`/v1/payout_intents/${id}/cancel`, { reason: 'typo' })).status).toBe(202);
  const res = await m.gql(
    `query($id: ID!) {
      payoutIntent(id: $id) { failureCode failureCodeEnum }
      events(first: 10, filter: { typeEnum: [PAYOUT_INTENT_CANCELLED] }) { nodes { type typeEnum } }
      all: events(first: 10, filter: { type: ["payout_intent.created"], typeEnum: [PAYOUT_INTENT_CANCELLED] }) { nodes { typeEnum } }
    }`,
    { id },
  );
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.payoutIntent).toEqual({ failureCode: 'cancelled', failureCodeEnum: 'CANCELLED' });
  expect(res.body.data.events.nodes).toEqual([{ type: 'payout_intent.cancelled', typeEnum: 'PAYOUT_INTENT_CANCELLED' }]);
  expect(res.body.data.all.nodes.map((n: { typeEnum: string }) => n.typeEnum)).toEqual(['PAYOUT_INTENT_CANCELLED', 'PAYOUT_INTENT_CREATED']);
});

test("a test helper's own failure code is OTHER in failureCodeEnum; the string keeps it", async () => {
  const created = await m.post('/v1/payout_intents', payoutBody());
  const id = created.body.id as string;
  expect((await m.post(`/v1/payout_intents/${id}/approve`)).status).toBe(202);
  const failed = await m.post(`/v1/test_helpers/payout_intents/${id}/fail`, { failure_code: 'bank_on_holiday' });
  expect(failed.status).toBe(200);
  const res = await m.gql(`query($id: ID!) { payoutIntent(id: $id) { failureCode failureCodeEnum } }`, { id });
  expect(res.body.data.payoutIntent).toEqual({ failureCode: 'bank_on_holiday', failureCodeEnum: 'OTHER' });
});

test('a payment created with paymentMethodEnum reads it back in both forms; both inputs at once is refused', async () => {
  const CREATE = `mutation($input: CreatePaymentIntentInput!) { createPaymentIntent(input: $input) { id paymentMethod paymentMethodEnum } }`;
  const input = { amountMoney: { minorUnits: '4200', currency: 'THB' }, country: 'TH', customer: { email: 'payer@example.com' } };
  const res = await m.gql(CREATE, { input: { ...input, merchantReference: ref('pm-enum'), paymentMethodEnum: 'PROMPTPAY' } });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.createPaymentIntent).toMatchObject({ paymentMethod: 'promptpay', paymentMethodEnum: 'PROMPTPAY' });
  const before = (await m.get('/v1/payment_intents?limit=100')).body.data.length;
  const both = await m.gql(CREATE, { input: { ...input, merchantReference: ref('pm-both'), paymentMethodEnum: 'PROMPTPAY', paymentMethod: 'promptpay' } });
  expect(both.body.data?.createPaymentIntent ?? null).toBeNull();
  expect(both.body.errors![0].extensions).toEqual({ code: 'validation_error', param: 'input.paymentMethodEnum' });
  expect((await m.get('/v1/payment_intents?limit=100')).body.data.length).toBe(before);
  const options = await m.gql(`{ paymentMethodOptions(amount: "4200", currency: "THB", country: "TH") { nodes { paymentMethod paymentMethodEnum } } }`);
  expect(options.body.errors).toBeUndefined();
  for (const o of options.body.data.paymentMethodOptions.nodes) expect(o.paymentMethodEnum).toBe(o.paymentMethod.toUpperCase());
});

test('the events subscription keeps the contract arguments and streams typeEnum', async () => {
  const newest = await m.gql(`{ events(first: 1) { nodes { id } } }`);
  const after = newest.body.data.events.nodes[0]?.id ?? null;
  const ws = createClient({
    url: srv.url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: m.authorization },
    retryAttempts: 0,
  });
  try {
    const got = new Promise<{ type: string; typeEnum: string }>((resolve, reject) => {
      ws.subscribe(
        { query: 'subscription($after: String) { events(after: $after, types: ["payout_intent.cancelled"]) { type typeEnum } }', variables: { after } },
        {
          next: (msg) => resolve((msg.data as { events: { type: string; typeEnum: string } }).events),
          error: reject,
          complete: () => reject(new Error('completed')),
        },
      );
    });
    const created = await m.post('/v1/payout_intents', payoutBody());
    await m.post(`/v1/payout_intents/${created.body.id}/cancel`, {});
    expect(await got).toEqual({ type: 'payout_intent.cancelled', typeEnum: 'PAYOUT_INTENT_CANCELLED' });
  } finally {
    await ws.dispose();
  }
});
