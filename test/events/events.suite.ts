/** Events: the outbox (one event per committed transition, none for a rolled-back one), REST and GraphQL reads. */
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody } from '../helpers/client';
import { EventRecord } from '../../src/modules/events/event.entity';

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startServer();
  c = await srv.merchant();
});
afterAll(async () => {
  await srv.close();
});

async function eventsOf(resourceId: string): Promise<EventRecord[]> {
  return srv.app.db.read((em) => em.find(EventRecord, { where: { resourceId }, order: { seq: 'ASC' } }));
}

test('a committed transition has exactly one event carrying the record as REST shows it; cancelled carries the reason', async () => {
  const created = await c.post('/v1/payout_intents', payoutBody());
  expect(created.status).toBe(201);
  const cancelled = await c.post(`/v1/payout_intents/${created.body.id}/cancel`, { reason: 'customer asked' });
  expect(cancelled.status).toBe(202);
  const rows = await eventsOf(created.body.id);
  expect(rows.map((e) => e.type)).toEqual(['payout_intent.created', 'payout_intent.cancelled']);
  const evt = await c.get(`/v1/events/${rows[1].id}`);
  expect(evt.status).toBe(200);
  expect(evt.body).toEqual({
    object: 'event',
    id: rows[1].id,
    type: 'payout_intent.cancelled',
    environment: 'test',
    created_at: expect.any(String),
    actor: { type: 'api_key', id: c.key!.apiKeyId, restricted: false },
    data: { object: cancelled.body },
  });
  expect(evt.body.data.object.failure_message).toBe('customer asked');
  const first = await c.get(`/v1/events/${rows[0].id}`);
  expect(first.body.data.object).toEqual(created.body);
});

test('a rolled-back transition leaves no event (and no change)', async () => {
  const created = await c.post('/v1/payout_intents', payoutBody());
  srv.app.idempotency.hooks.beforeCommit = async () => {
    throw new Error('injected failure before commit');
  };
  try {
    const res = await c.post(`/v1/payout_intents/${created.body.id}/approve`, {});
    expect(res.status).toBe(500);
  } finally {
    srv.app.idempotency.hooks.beforeCommit = undefined;
  }
  expect((await eventsOf(created.body.id)).map((e) => e.type)).toEqual(['payout_intent.created']);
  expect((await c.get(`/v1/payout_intents/${created.body.id}`)).body.status).toBe('requires_approval');
  // The retry commits, with exactly one processing event.
  expect((await c.post(`/v1/payout_intents/${created.body.id}/approve`, {})).status).toBe(202);
  expect((await eventsOf(created.body.id)).map((e) => e.type)).toEqual(['payout_intent.created', 'payout_intent.processing']);
});

test('concurrent transitions of one record: exactly one wins and exactly one event is written', async () => {
  const created = await c.post('/v1/payout_intents', payoutBody());
  const results = await Promise.all([1, 2, 3, 4].map(() => c.post(`/v1/payout_intents/${created.body.id}/cancel`, {})));
  expect(results.filter((r) => r.status === 202)).toHaveLength(1);
  const types = (await eventsOf(created.body.id)).map((e) => e.type);
  expect(types.filter((t) => t === 'payout_intent.cancelled')).toHaveLength(1);
});

test("seq numbers a scope's events 1..N without gaps, in commit order", async () => {
  const m = await srv.merchant();
  await Promise.all([1, 2, 3, 4, 5].map(() => m.post('/v1/payout_intents', payoutBody())));
  const rows = await srv.app.db.read((em) => em.find(EventRecord, { where: { merchantId: m.merchantId }, order: { seq: 'ASC' } }));
  expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
});

test('GET /v1/events lists newest first with listing rules and a type filter', async () => {
  const m = await srv.merchant();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await m.post('/v1/payout_intents', payoutBody())).body.id);
  await m.post(`/v1/payout_intents/${ids[0]}/cancel`, {});

  const all = await m.get('/v1/events?limit=100');
  expect(all.status).toBe(200);
  const types = all.body.data.map((e: any) => e.type);
  expect(types[0]).toBe('payout_intent.cancelled');
  expect(types).toContain('topup_intent.succeeded');
  const keys = all.body.data.map((e: any) => [e.created_at, e.id]);
  expect([...keys].sort().reverse()).toEqual(keys);

  const exact = await m.get('/v1/events?type=payout_intent.cancelled');
  expect(exact.body.data.map((e: any) => e.data.object.id)).toEqual([ids[0]]);
  const wildcard = await m.get('/v1/events?type=payout_intent.*');
  expect(wildcard.body.data).toHaveLength(4);
  const two = await m.get('/v1/events?type=payout_intent.cancelled,topup_intent.*');
  expect(new Set(two.body.data.map((e: any) => e.type.split('.')[0]))).toEqual(new Set(['payout_intent', 'topup_intent']));

  // Paging by cursor and by event id.
  const p1 = await m.get('/v1/events?limit=2');
  expect(p1.body.has_more).toBe(true);
  const p2 = await m.get(`/v1/events?limit=2&cursor=${p1.body.next_cursor}`);
  const p2ById = await m.get(`/v1/events?limit=2&cursor=${p1.body.data[1].id}`);
  expect(p2ById.body.data).toEqual(p2.body.data);
  expect(p2.body.data[0].id).toBe(all.body.data[2].id);

  for (const bad of ['type=payout', 'type=PAYOUT.created', 'status=x', 'country=TH', 'limit=0', 'foo=1', 'cursor=evt_nope']) {
    const res = await m.get(`/v1/events?${bad}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  }
});

test('events are scoped to merchant and environment', async () => {
  const a = await srv.merchant();
  const b = await srv.merchant();
  const live = await srv.keyFor(a.merchantId, 'live');
  const po = await a.post('/v1/payout_intents', payoutBody());
  const [evt] = (await a.get('/v1/events?type=payout_intent.created')).body.data;
  expect(evt.data.object.id).toBe(po.body.id);
  expect((await b.get(`/v1/events/${evt.id}`)).status).toBe(404);
  expect((await live.get(`/v1/events/${evt.id}`)).status).toBe(404);
  expect((await b.get('/v1/events?limit=100')).body.data.map((e: any) => e.id)).not.toContain(evt.id);
  expect((await live.get('/v1/events')).body.data).toEqual([]);
  expect((await b.get(`/v1/events?cursor=${evt.id}`)).status).toBe(400);
});

test('GraphQL events query: connection, filter and single event', async () => {
  const m = await srv.merchant();
  const po = await m.post('/v1/payout_intents', payoutBody());
  await m.post(`/v1/payout_intents/${po.body.id}/cancel`, { reason: 'gql' });
  const res = await m.gql(
    `query($f: EventFilter) { events(first: 5, filter: $f) { nodes { id type environment createdAt data { object } } pageInfo { hasNextPage endCursor } } }`,
    { f: { type: ['payout_intent.*'] } },
  );
  expect(res.body.errors).toBeUndefined();
  const nodes = res.body.data.events.nodes;
  expect(nodes.map((n: any) => n.type)).toEqual(['payout_intent.cancelled', 'payout_intent.created']);
  expect(nodes[0].environment).toBe('TEST');
  expect(nodes[0].data.object.failure_message).toBe('gql');
  const rest = await m.get(`/v1/events/${nodes[0].id}`);
  expect(nodes[0].data.object).toEqual(rest.body.data.object);
  const one = await m.gql(`query($id: ID!) { event(id: $id) { id type } }`, { id: nodes[1].id });
  expect(one.body.data.event).toEqual({ id: nodes[1].id, type: 'payout_intent.created' });
  const bad = await m.gql(`{ events(filter: { type: ["nope"] }) { nodes { id } } }`);
  expect(bad.body.errors![0].extensions.code).toBe('validation_error');
});
