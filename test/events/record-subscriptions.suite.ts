/**
 * Subscriptions that watch one record (`payoutIntent(id:, after:)` and the others): only that
 * record's events, each with the record as it was then; `after` replays what was missed;
 * the record's read permission and existence are checked at subscribe.
 */
import WebSocket from 'ws';
import { createClient, Client as WsClient } from 'graphql-ws';
import { startServer, TestServer } from '../helpers/server';
import { Client, eventually } from '../helpers/client';
import { createPayout } from '../helpers/fixtures';
import { buildGraphQLSchema } from '../../src/graphql/schema';

let srv: TestServer;
let m: Client;
beforeAll(async () => {
  srv = await startServer();
  m = await srv.merchant();
});
afterAll(async () => {
  await srv.close();
});

const PAYOUT_SUB = `subscription($id: ID!, $after: String) {
  payoutIntent(id: $id, after: $after) {
    event { id type }
    payoutIntent { id status amountMoney { decimal } merchantReference createdAt recipient { bankCode accountLast4 } }
  }
}`;

interface Sub {
  messages: any[];
  errors: any[];
  client: WsClient;
  stop(): Promise<void>;
}

async function subscribe(c: Client, query: string, variables: Record<string, unknown>): Promise<Sub> {
  const client = createClient({
    url: srv.url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: c.authorization },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
  });
  const messages: any[] = [];
  const errors: any[] = [];
  const before = srv.app.eventHub.streamCount;
  const dispose = client.subscribe(
    { query, variables },
    {
      next: (msg: any) => (msg.errors ? errors.push(...msg.errors) : messages.push(Object.values(msg.data)[0])),
      error: (err: any) => errors.push(...(Array.isArray(err) ? err : [err])),
      complete: () => undefined,
    },
  );
  // Without `after` the stream starts at the newest event when the server registers it: wait for that (or a refusal).
  await eventually(async () => errors.length > 0 || srv.app.eventHub.streamCount > before, 5000, 10).catch(() => undefined);
  return {
    messages,
    errors,
    client,
    async stop() {
      dispose();
      await client.dispose();
    },
  };
}

test("streams only the watched record's events, with the record as it was at each", async () => {
  const watched = await createPayout(m);
  const other = await createPayout(m);
  const sub = await subscribe(m, PAYOUT_SUB, { id: watched.id });
  try {
    expect(sub.errors).toEqual([]);
    expect((await m.post(`/v1/payout_intents/${other.id}/cancel`, {})).status).toBe(202);
    expect((await m.post(`/v1/payout_intents/${watched.id}/cancel`, {})).status).toBe(202);
    await eventually(async () => sub.messages.length >= 1 || sub.errors.length > 0).catch(() => undefined);
    expect(sub.errors).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(sub.messages).toEqual([
      {
        event: { id: expect.stringMatching(/^evt_/), type: 'payout_intent.cancelled' },
        // The record as the event stored it (JSON), under its GraphQL names.
        payoutIntent: {
          id: watched.id,
          status: 'CANCELLED',
          amountMoney: { decimal: '10.00' },
          merchantReference: watched.merchant_reference,
          createdAt: watched.created_at,
          recipient: { bankCode: 'KBANK', accountLast4: '7890' },
        },
      },
    ]);
  } finally {
    await sub.stop();
  }
});

test('`after` replays the record’s events after that event, then goes live', async () => {
  const po = await createPayout(m);
  const created = (await m.get(`/v1/events?type=payout_intent.created&limit=10`)).body.data.find((e: any) => e.data.object.id === po.id);
  expect(created).toBeDefined();
  expect((await m.post(`/v1/payout_intents/${po.id}/cancel`, {})).status).toBe(202);
  const sub = await subscribe(m, PAYOUT_SUB, { id: po.id, after: created.id });
  try {
    await eventually(async () => sub.messages.length >= 1);
    expect(sub.messages.map((x) => [x.event.type, x.payoutIntent.status])).toEqual([['payout_intent.cancelled', 'CANCELLED']]);
    // Resuming after the last message received gives nothing again.
    const resumed = await subscribe(m, PAYOUT_SUB, { id: po.id, after: sub.messages[0].event.id });
    await new Promise((r) => setTimeout(r, 300));
    expect(resumed.messages).toEqual([]);
    await resumed.stop();
  } finally {
    await sub.stop();
  }
});

test("a key that may not read the record's resource is refused; an unknown or foreign id is not_found", async () => {
  const po = await createPayout(m);
  const eventsOnly = await srv.keyFor(m.merchantId, 'test', ['events:read']);
  const refused = await subscribe(eventsOnly, PAYOUT_SUB, { id: po.id });
  await eventually(async () => refused.errors.length > 0);
  expect(refused.errors[0].extensions?.code ?? refused.errors[0].message).toBe('permission_denied');
  await refused.stop();

  const other = await srv.merchant();
  const foreign = await subscribe(other, PAYOUT_SUB, { id: po.id });
  await eventually(async () => foreign.errors.length > 0);
  expect(foreign.errors[0].extensions?.code).toBe('not_found');
  await foreign.stop();

  const readOnly = await srv.keyFor(m.merchantId, 'test', ['payout_intents:read']);
  const allowed = await subscribe(readOnly, PAYOUT_SUB, { id: po.id });
  try {
    expect(allowed.errors).toEqual([]);
    expect((await m.post(`/v1/payout_intents/${po.id}/cancel`, {})).status).toBe(202);
    await eventually(async () => allowed.messages.length >= 1);
    expect(allowed.messages[0].payoutIntent).toMatchObject({ id: po.id, status: 'CANCELLED' });
  } finally {
    await allowed.stop();
  }
});

test('a payment intent has its own subscription, as every record type with events', async () => {
  const pi = (
    await m.post('/v1/payment_intents', {
      amount: '5000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: `sub-${Date.now()}`,
      payment_method: 'promptpay',
      customer: { name: 'Somchai Jaidee' },
    })
  ).body;
  const sub = await subscribe(m, `subscription($id: ID!) { paymentIntent(id: $id) { event { type } paymentIntent { id status } } }`, { id: pi.id });
  try {
    expect(sub.errors).toEqual([]);
    expect((await m.post(`/v1/payment_intents/${pi.id}/cancel`, {})).status).toBe(200);
    await eventually(async () => sub.messages.length >= 1);
    expect(sub.messages[0]).toEqual({ event: { type: 'payment_intent.cancelled' }, paymentIntent: { id: pi.id, status: 'CANCELLED' } });
  } finally {
    await sub.stop();
  }
  const fields = Object.keys(buildGraphQLSchema().getSubscriptionType()!.getFields());
  expect(fields).toEqual(
    expect.arrayContaining(['events', 'paymentIntent', 'payoutIntent', 'topupIntent', 'refund', 'payoutBatch', 'paymentLink', 'reportRun']),
  );
});
