/** graphql-ws subscriptions: auth, isolation, replay with `after`, live streaming across processes, limits. */
import WebSocket from 'ws';
import { createClient, Client as WsClient } from 'graphql-ws';
import { startProcess, startServer, TestServer } from '../helpers/server';
import { NEEDS_MYSQL, REDIS_URL, redisUnavailable, testIf, usingMysql } from '../helpers/skip';
import { Client, eventually, payoutBody } from '../helpers/client';
import { EventRecord } from '../../src/modules/events/event.entity';
import type { App } from '../../src/app';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from '../../src/graphql/ws';

let srv: TestServer;
/** In-process servers by URL, so subscribe() can wait until the stream is registered there. */
const apps = new Map<string, App>();
beforeAll(async () => {
  srv = await startServer();
  apps.set(srv.url, srv.app);
});
afterAll(async () => {
  await srv.close();
});

const wsUrl = (httpUrl: string) => httpUrl.replace(/^http/, 'ws') + '/graphql';
const SUB = `subscription($types: [String!], $after: String) { events(types: $types, after: $after) { id type environment createdAt data { object } } }`;

interface Sub {
  events: any[];
  errors: any[];
  client: WsClient;
  stop(): Promise<void>;
}

async function subscribe(url: string, authorization: string | undefined, variables: Record<string, unknown> = {}, query = SUB): Promise<Sub> {
  const client = createClient({
    url: wsUrl(url),
    webSocketImpl: WebSocket,
    connectionParams: { authorization },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
  });
  const events: any[] = [];
  const errors: any[] = [];
  await new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', (e: any) => reject(new Error(`closed ${e?.code}`)));
  });
  const app = apps.get(url);
  const before = app?.eventHub.streamCount ?? 0;
  const dispose = client.subscribe(
    { query, variables },
    {
      next: (msg: any) => (msg.errors ? errors.push(...msg.errors) : events.push(msg.data.events)),
      error: (err: any) => errors.push(...(Array.isArray(err) ? err : [err])),
      complete: () => undefined,
    },
  );
  // A subscription without `after` starts at the scope's newest event *when the server
  // registers it*: wait for that (or for its refusal) before the test causes events.
  if (app) await eventually(async () => errors.length > 0 || app.eventHub.streamCount > before, 5000, 10).catch(() => undefined);
  else await new Promise((r) => setTimeout(r, 300));
  return {
    events,
    errors,
    client,
    async stop() {
      dispose();
      await client.dispose();
    },
  };
}

async function scopeEvents(c: Client, types?: (t: string) => boolean): Promise<EventRecord[]> {
  const rows = await srv.app.db.read((em) =>
    em.find(EventRecord, { where: { merchantId: c.merchantId, environment: c.key!.environment }, order: { seq: 'ASC' } }),
  );
  return types ? rows.filter((r) => types(r.type)) : rows;
}

test('a bad key closes the socket with 4401', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  for (const authorization of [undefined, 'Basic bm9wZTpub3Bl', c.authorization!.slice(0, -4) + 'AAAA']) {
    const client = createClient({
      url: wsUrl(srv.url),
      webSocketImpl: WebSocket,
      connectionParams: { authorization },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => undefined,
    });
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

test("isolation: a merchant sees only its own environment's events", async () => {
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
  expect(foreign.errors[0].extensions).toEqual({ code: 'validation_error', param: 'after' });
  expect(foreign.errors[0].message).toBe("after must be the id of an event of this API key's merchant and environment.");
  expect(foreign.events).toEqual([]);
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

test('only subscriptions are served over WebSocket', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  const s = await subscribe(srv.url, c.authorization, {}, 'query { events { edges { node { id } } } }');
  await eventually(async () => s.errors.length > 0);
  expect(JSON.stringify(s.errors)).toMatch(/Only subscription operations/);
  await s.stop();
  const m = await subscribe(srv.url, c.authorization, {}, 'mutation { cancelPayoutIntent(id: "po_x", reason: "r") { id } }');
  await eventually(async () => m.errors.length > 0);
  expect(JSON.stringify(m.errors)).toMatch(/Only subscription operations/);
  await m.stop();
});

test('a key revoked while a stream is open closes the socket (4403) at once (other processes: test/auth/revocation.suite.ts)', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  const s = await subscribe(srv.url, c.authorization);
  const closed = new Promise<number>((resolve) => s.client.on('closed', (e: any) => resolve(e.code)));
  await srv.app.auth.revokeKey(c.auth!.split(':')[0]);
  expect(await closed).toBe(4403);
  await s.client.dispose();
});

test(`one connection holds at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions; the next is refused with rate_limited`, async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  const s = await subscribe(srv.url, c.authorization);
  const extra: (() => void)[] = [];
  for (let i = 1; i < MAX_SUBSCRIPTIONS_PER_SOCKET; i++) {
    extra.push(s.client.subscribe({ query: SUB }, { next: () => undefined, error: () => undefined, complete: () => undefined }));
  }
  await eventually(async () => srv.app.eventHub.streamCount >= MAX_SUBSCRIPTIONS_PER_SOCKET, 5000, 10);
  const refused = await new Promise<any[]>((resolve) => {
    s.client.subscribe({ query: SUB }, { next: () => undefined, error: (err: any) => resolve(Array.isArray(err) ? err : [err]), complete: () => resolve([]) });
  });
  expect(refused[0]?.extensions?.code).toBe('rate_limited');
  for (const stop of extra) stop();
  await s.stop();
});

test('a key revoked after connecting is refused at the next subscribe (4403)', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  const s = await subscribe(srv.url, c.authorization);
  const closed = new Promise<number>((resolve) => s.client.on('closed', (e: any) => resolve(e.code)));
  await srv.app.auth.revokeKey(c.auth!.split(':')[0]);
  s.client.subscribe({ query: SUB }, { next: () => undefined, error: () => undefined, complete: () => undefined });
  expect(await closed).toBe(4403);
  await s.client.dispose();
});

const mysqlOnly = testIf(usingMysql(), NEEDS_MYSQL);
const mysqlAndRedis = testIf(usingMysql() && !redisUnavailable(), usingMysql() ? (redisUnavailable() ?? '') : NEEDS_MYSQL);

mysqlOnly(
  'events caused on a second server process reach a subscriber here, every one once and in order; reconnect with after gets exactly the missed ones',
  async () => {
    // Database polling alone: no Redis on either side.
    const other = await startProcess(srv.database, { REDIS_URL: '' });
    try {
      const c = await srv.merchant();
      const remote = c.withBase(other.url);
      // Start from a known event (`after`), then cause more on the other process, concurrently.
      await remote.post('/v1/payout_intents', payoutBody());
      const start = (await scopeEvents(c, (t) => t.startsWith('payout_intent.'))).pop()!.id;
      const s = await subscribe(srv.url, c.authorization, { types: ['payout_intent.*'], after: start });
      const N = 20;
      await Promise.all(Array.from({ length: N }, () => remote.post('/v1/payout_intents', payoutBody())));
      await eventually(async () => s.events.length >= N, 15000);
      await new Promise((r) => setTimeout(r, 300));
      const inScope = (await scopeEvents(c, (t) => t.startsWith('payout_intent.'))).map((e) => e.id);
      const expected = inScope.slice(inScope.indexOf(start) + 1);
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
  },
);

mysqlOnly('isolation holds across processes: merchants and environments see only their own events', async () => {
  const other = await startProcess(srv.database, { REDIS_URL: '' });
  try {
    const a = await srv.merchant();
    const aLive = await srv.keyFor(a.merchantId, 'live');
    await srv.fund(aLive, 'THB', '100000');
    const b = await srv.merchant();
    const subs = {
      a: await subscribe(srv.url, a.authorization),
      aLive: await subscribe(srv.url, aLive.authorization),
      b: await subscribe(srv.url, b.authorization),
    };
    const made = {
      a: await Promise.all([1, 2, 3].map(() => a.withBase(other.url).post('/v1/payout_intents', payoutBody()))),
      aLive: await Promise.all([1, 2].map(() => aLive.withBase(other.url).post('/v1/payout_intents', payoutBody()))),
      b: await Promise.all([1].map(() => b.withBase(other.url).post('/v1/payout_intents', payoutBody()))),
    };
    await eventually(async () => subs.a.events.length >= 3 && subs.aLive.events.length >= 2 && subs.b.events.length >= 1, 15000);
    await new Promise((r) => setTimeout(r, 500));
    for (const k of ['a', 'aLive', 'b'] as const) {
      expect(subs[k].events.map((e) => e.data.object.id).sort()).toEqual(made[k].map((r) => r.body.id).sort());
    }
    expect(subs.aLive.events.every((e) => e.environment === 'LIVE')).toBe(true);
    expect(subs.a.events.every((e) => e.environment === 'TEST')).toBe(true);
    for (const s of Object.values(subs)) await s.stop();
  } finally {
    await other.stop();
  }
});

mysqlAndRedis('with REDIS_URL, events caused on another process arrive at once, without waiting for the poller', async () => {
  const redisUrl = REDIS_URL;
  // Polling every 10 minutes: anything that arrives within seconds came through Redis.
  const here = await startServer({ database: srv.database, scheduler: false, env: { REDIS_URL: redisUrl, EVENTS_POLL_MS: '600000' } });
  apps.set(here.url, here.app);
  const other = await startProcess(srv.database, { REDIS_URL: redisUrl, EVENTS_POLL_MS: '600000' });
  try {
    await eventually(async () => here.app.eventHub.redisReady, 5000);
    const c = await here.merchant();
    const remote = c.withBase(other.url);
    const s = await subscribe(here.url, c.authorization, { types: ['payout_intent.*'] });
    const N = 15;
    for (let i = 0; i < N; i++) await remote.post('/v1/payout_intents', payoutBody());
    await eventually(async () => s.events.length >= N, 5000);
    await new Promise((r) => setTimeout(r, 300));
    const expected = (await scopeEvents(c, (t) => t.startsWith('payout_intent.'))).map((e) => e.id);
    expect(s.events.map((e) => e.id)).toEqual(expected);
    await s.stop();

    // Reconnect with `after` across the Redis path too: exactly the missed ones, then live.
    const last = expected[expected.length - 1];
    await Promise.all(Array.from({ length: 4 }, () => remote.post('/v1/payout_intents', payoutBody())));
    const again = await subscribe(here.url, c.authorization, { types: ['payout_intent.*'], after: last });
    await remote.post('/v1/payout_intents', payoutBody());
    await eventually(async () => again.events.length >= 5, 5000);
    await new Promise((r) => setTimeout(r, 300));
    const all = (await scopeEvents(c, (t) => t.startsWith('payout_intent.'))).map((e) => e.id);
    expect(again.events.map((e) => e.id)).toEqual(all.slice(all.indexOf(last) + 1));
    expect(again.events).toHaveLength(5);
    await again.stop();
  } finally {
    await other.stop();
    apps.delete(here.url);
    await here.close();
  }
});
