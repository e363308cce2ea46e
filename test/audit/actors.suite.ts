/**
 * Who acted: events (REST, GraphQL, the subscription, webhook bodies) and audit entries name
 * the API key (restricted or not) or the signed-in member behind the change; a change no API
 * caller made (the provider's own settlement, run by the scheduler) has actor null.
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { Webhook } from 'standardwebhooks';
import { startServer, TestServer } from '../helpers/server';
import { Client, eventually, payoutBody } from '../helpers/client';
import { Receiver, startReceiver } from '../helpers/receiver';
import { addMember } from '../helpers/members';

let srv: TestServer;
let rx: Receiver;
beforeAll(async () => {
  srv = await startServer();
  rx = await startReceiver();
});
afterAll(async () => {
  await srv?.close();
  await rx?.close();
});

const keyActor = (c: Client, restricted = false) => ({ type: 'api_key', id: c.key!.apiKeyId, restricted });

async function eventOf(c: Client, type: string, resourceId: string): Promise<any> {
  const res = await c.get(`/v1/events?type=${type}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data.find((e: any) => e.data.object.id === resourceId);
}

async function auditOf(c: Client, resourceId: string, operation: string): Promise<any> {
  const res = await c.get(`/v1/audit_log?resource_id=${resourceId}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data.find((a: any) => a.operation === operation);
}

test('a payout created by a full key: its event and audit entry name the key (restricted false), on REST and GraphQL', async () => {
  const c = await srv.merchant();
  const po = await c.post('/v1/payout_intents', payoutBody());
  expect(po.status).toBe(201);

  const event = await eventOf(c, 'payout_intent.created', po.body.id);
  expect(event.actor).toEqual(keyActor(c));
  expect((await c.get(`/v1/events/${event.id}`)).body.actor).toEqual(keyActor(c));
  expect((await auditOf(c, po.body.id, 'POST /v1/payout_intents')).actor).toEqual(keyActor(c));

  const gql = await c.gql(
    `query($id: ID!, $r: ID) { event(id: $id) { actor { type id restricted email } } auditLog(first: 5, filter: { resourceId: $r }) { nodes { operation actor { type id restricted email } } } }`,
    { id: event.id, r: po.body.id },
  );
  expect(gql.body.errors).toBeUndefined();
  expect(gql.body.data.event.actor).toEqual({ ...keyActor(c), email: null });
  expect(gql.body.data.auditLog.nodes).toEqual([{ operation: 'POST /v1/payout_intents', actor: { ...keyActor(c), email: null } }]);
});

test('a restricted (rk_) key: restricted true on the event and the audit entry', async () => {
  const owner = await srv.merchant();
  const rk = await srv.keyFor(owner.merchantId, 'test', ['payout_intents:write', 'events:read']);
  const po = await rk.post('/v1/payout_intents', payoutBody());
  expect(po.status).toBe(201);
  expect((await eventOf(rk, 'payout_intent.created', po.body.id)).actor).toEqual(keyActor(rk, true));
  expect((await auditOf(rk, po.body.id, 'POST /v1/payout_intents')).actor).toEqual(keyActor(rk, true));
});

test('a member approving (session cookie): the event, its webhook body and the audit entry name the member with the email', async () => {
  const owner = await srv.merchant();
  const ep = await owner.post('/v1/webhook_endpoints', { url: `${rx.url}/actors`, enabled_events: ['payout_intent.processing'] });
  expect(ep.status).toBe(201);
  const member = await addMember(srv, owner.merchantId, `finance-${Date.now()}@example.com`, 'finance');
  const po = await owner.post('/v1/payout_intents', payoutBody());
  const approved = await member.post(`/v1/payout_intents/${po.body.id}/approve`);
  expect(approved.status).toBe(202);
  const memberActor = { type: 'member', id: member.userId, email: member.email };

  const event = await eventOf(owner, 'payout_intent.processing', po.body.id);
  expect(event.actor).toEqual(memberActor);
  expect((await auditOf(owner, po.body.id, 'POST /v1/payout_intents/:id/approve')).actor).toEqual(memberActor);

  // The actor is inside the signed body.
  const delivery = await eventually(async () => rx.received.find((r) => r.path === '/actors' && r.headers['webhook-id'] === event.id), 15000);
  const verified = new Webhook(ep.body.secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  }) as any;
  expect(verified.actor).toEqual(memberActor);
  expect(JSON.parse(delivery.body)).toEqual(event);
});

test('the subscription payload carries the actor', async () => {
  const c = await srv.merchant();
  const client = createClient({
    url: srv.url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: c.authorization },
    retryAttempts: 0,
  });
  const received: any[] = [];
  const before = srv.app.eventHub.streamCount;
  const dispose = client.subscribe(
    { query: 'subscription { events(types: ["payout_intent.*"]) { id type actor { type id restricted email } } }' },
    { next: (m: any) => received.push(m), error: (e: unknown) => received.push({ error: e }), complete: () => undefined },
  );
  try {
    await eventually(async () => srv.app.eventHub.streamCount > before, 5000, 10);
    const po = await c.post('/v1/payout_intents', payoutBody());
    expect(po.status).toBe(201);
    const got = await eventually(async () => received.find((m) => m.data?.events?.type === 'payout_intent.created'), 10000);
    expect(got.data.events.actor).toEqual({ ...keyActor(c), email: null });
  } finally {
    dispose();
    await client.dispose();
  }
});

test("the provider's own settlement (the scheduler) has actor null; the approve before it names the key", async () => {
  const c = await srv.merchant();
  const timed = await startServer({ env: { SIMULATED_SETTLE_MS: '200' }, database: srv.database });
  try {
    const tc = new Client(timed.url, c.auth, c.key);
    const po = await tc.post('/v1/payout_intents', payoutBody());
    expect((await tc.post(`/v1/payout_intents/${po.body.id}/approve`)).status).toBe(202);
    const settled = await eventually(async () => eventOf(c, 'payout_intent.succeeded', po.body.id), 15000);
    expect(settled.actor).toBeNull();
    expect((await eventOf(c, 'payout_intent.processing', po.body.id)).actor).toEqual(keyActor(c));
    const gql = await c.gql(`query($id: ID!) { event(id: $id) { actor { id } } }`, { id: settled.id });
    expect(gql.body.data.event.actor).toBeNull();
  } finally {
    await timed.close();
  }
}, 30000);
