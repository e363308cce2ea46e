/** graphql-ws subscriptions: auth, isolation, replay with `after`, live streaming across processes, limits. */
import WebSocket from 'ws';
import { createClient, Client as WsClient } from 'graphql-ws';
import { startProcess, startServer, TestServer, usingMysql } from './helpers/server';
import { Client, eventually, payoutBody } from './helpers/client';
import { EventRecord } from '../src/modules/events/event.entity';

let srv: TestServer;
beforeAll(async () => { srv = await startServer(); });
afterAll(async () => { await srv.close(); });

const wsUrl = (httpUrl: string) => httpUrl.replace(/^http/, 'ws') + '/graphql';
const SUB = `subscription($types: [String!], $after: String) { events(types: $types, after: $after) { id type environment createdAt data { object } } }`;

interface Sub {
  events: any[];
  errors: any[];
  client: WsClient;
  stop(): Promise<void>;
}

async function subscribe(url: string, authorization: string | undefined, variables: Record<string, unknown> = {}, query = SUB): Promise<Sub> {
  const client = createClient({ url: wsUrl(url), webSocketImpl: WebSocket, connectionParams: { authorization }, retryAttempts: 0, lazy: false });
  const events: any[] = [];
  const errors: any[] = [];
  await new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', (e: any) => reject(new Error(`closed ${e?.code}`)));
  });
  let subscribed: () => void;
  const ready = new Promise<void>((r) => (subscribed = r));
  const dispose = client.subscribe({ query, variables }, {
    next: (msg: any) => (msg.errors ? errors.push(...msg.errors) : events.push(msg.data.events)),
    error: (err: any) => errors.push(...(Array.isArray(err) ? err : [err])),
    complete: () => undefined,
  });
  // The subscribe message is sent synchronously after connect; give the server a moment to register.
  setTimeout(() => subscribed(), 150);
  await ready;
  return {
    events, errors, client,
    async stop() {
      dispose();
      await client.dispose();
    },
  };
}

async function scopeEvents(c: Client, types?: (t: string) => boolean): Promise<EventRecord[]> {
  const rows = await srv.app.db.read((em) => em.find(EventRecord, { where: { merchantId: c.merchantId, environment: c.key!.environment }, order: { seq: 'ASC' } }));
  return types ? rows.filter((r) => types(r.type)) : rows;
}

test('a bad key closes the socket with 4401', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  for (const authorization of [undefined, 'Basic bm9wZTpub3Bl', c.authorization!.slice(0, -4) + 'AAAA']) {
    const client = createClient({ url: wsUrl(srv.url), webSocketImpl: WebSocket, connectionParams: { authorization }, retryAttempts: 0, lazy: false });
    const code = await new Promise<number>((resolve) => client.on('closed', (e: any) => resolve(e.code)));
    expect(code).toBe(4401);
    await client.dispose();
  }
});

test('streams live events in order, once each; `after` replays what was missed', async () => {
  const c = await srv.merchant();
  const s = await subscribe(srv.url, c.authorization);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await c.post('/v1/payout_intents', payoutBody())).body.id);
  await c.post(`/v1/payout_intents/${ids[0]}/cancel`, { reason: 'r' });
  await eventually(async () => s.events.length >= 6);
  await new Promise((r) => setTimeout(r, 300));
  const expected = (await scopeEvents(c)).slice(-6).map((e) => e.id);
  expect(s.events.map((e) => e.id)).toEqual(expected);
  expect(s.events[5].type).toBe('payout_intent.cancelled');
  expect(s.events[5].data.object.failure_message).toBe('r');
  expect(s.events[0].environment).toBe('TEST');
  await s.stop();

  // Missed while disconnected: exactly those, then live.
  const lastSeen = expected[expected.length - 1];
  for (let i = 0; i < 3; i++) await c.post('/v1/payout_intents', payoutBody());
  const again = await subscribe(srv.url, c.authorization, { after: lastSeen });
  await c.post('/v1/payout_intents', payoutBody());
  await eventually(async () => again.events.length >= 4);
  await new Promise((r) => setTimeout(r, 300));
  const all = await scopeEvents(c);
  const idx = all.findIndex((e) => e.id === lastSeen);
  expect(again.events.map((e) => e.id)).toEqual(all.slice(idx + 1).map((e) => e.id));
  expect(again.events).toHaveLength(4);
  await again.stop();
});

test('types filter (exact and wildcard) and replay from the start of the stream', async () => {
  const c = await srv.merchant();
  const po = await c.post('/v1/payout_intents', payoutBody());
  await c.post(`/v1/payout_intents/${po.body.id}/cancel`, {});
  const first = (await scopeEvents(c))[0];
  const s = await subscribe(srv.url, c.authorization, { types: ['payout_intent.*'], after: first.id });
  const only = await subscribe(srv.url, c.authorization, { types: ['payout_intent.cancelled'], after: first.id });
  await eventually(async () => s.events.length >= 2 && only.events.length >= 1);
  expect(s.events.map((e) => e.type)).toEqual(['payout_intent.created', 'payout_intent.cancelled']);
  expect(only.events.map((e) => e.type)).toEqual(['payout_intent.cancelled']);
  await s.stop();
  await only.stop();
});

test('isolation: a merchant sees only its own environment\'s events', async () => {
  const a = await srv.merchant();
  const aLive = await srv.keyFor(a.merchantId, 'live');
  const b = await srv.merchant();
  const subA = await subscribe(srv.url, a.authorization);
  const subLive = await subscribe(srv.url, aLive.authorization);
  const subB = await subscribe(srv.url, b.authorization);
  await a.post('/v1/payout_intents', payoutBody());
  await srv.fund(aLive, 'THB', '100000');
  await aLive.post('/v1/payout_intents', payoutBody());
  await eventually(async () => subA.events.length >= 1 && subLive.events.length >= 1);
  await new Promise((r) => setTimeout(r, 300));
  expect(subA.events.every((e) => e.environment === 'TEST' && e.data.object.environment === 'test')).toBe(true);
  expect(subLive.events.map((e) => e.type)).toEqual(['payout_intent.created']);
  expect(subLive.events[0].environment).toBe('LIVE');
  expect(subB.events).toEqual([]);
  // `after` naming another merchant's event is refused.
  const foreign = await subscribe(srv.url, b.authorization, { after: subA.events[0].id });
  await eventually(async () => foreign.errors.length > 0);
  expect(foreign.errors[0].extensions?.code ?? foreign.errors[0].message).toBeDefined();
  for (const s of [subA, subLive, subB, foreign]) await s.stop();
});

test('the same query limits apply over WebSocket', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: events { id }`).join(' ');
  const s = await subscribe(srv.url, c.authorization, {}, `subscription { ${aliases} }`);
  await eventually(async () => s.errors.length > 0);
  expect(JSON.stringify(s.errors)).toMatch(/alias/i);
  await s.stop();
  const deep = await subscribe(srv.url, c.authorization, {}, `subscription { events { data { object } id ${'__typename '.repeat(2500)} } }`);
  await eventually(async () => deep.errors.length > 0);
  await deep.stop();
});

const mysqlOnly = usingMysql() ? test : test.skip;
if (!usingMysql()) {
  test('two-process subscription tests need MariaDB (SQLite is single-process): skipped', () => undefined);
}

mysqlOnly('events caused on a second server process reach a subscriber here, every one once and in order; reconnect with after gets exactly the missed ones', async () => {
  const other = await startProcess(srv.database);
  try {
    const c = await srv.merchant();
    const remote = c.withBase(other.url);
    const s = await subscribe(srv.url, c.authorization, { types: ['payout_intent.*'] });
    const N = 20;
    await Promise.all(Array.from({ length: N }, () => remote.post('/v1/payout_intents', payoutBody())));
    await eventually(async () => s.events.length >= N, 15000);
    await new Promise((r) => setTimeout(r, 300));
    const expected = (await scopeEvents(c, (t) => t.startsWith('payout_intent.'))).map((e) => e.id);
    expect(s.events.map((e) => e.id)).toEqual(expected);
    expect(new Set(s.events.map((e) => e.id)).size).toBe(N);
    await s.stop();

    const last = expected[expected.length - 1];
    await Promise.all(Array.from({ length: 7 }, () => remote.post('/v1/payout_intents', payoutBody())));
    const again = await subscribe(srv.url, c.authorization, { types: ['payout_intent.*'], after: last });
    await eventually(async () => again.events.length >= 7, 15000);
    await new Promise((r) => setTimeout(r, 300));
    const all = (await scopeEvents(c, (t) => t.startsWith('payout_intent.'))).map((e) => e.id);
    expect(again.events.map((e) => e.id)).toEqual(all.slice(all.indexOf(last) + 1));
    expect(again.events).toHaveLength(7);
    await again.stop();
  } finally {
    await other.stop();
  }
});
