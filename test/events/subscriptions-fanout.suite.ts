/**
 * Subscription fan-out: the streams of one scope share one live reader, so the
 * statements a wake-up costs do not grow with the number of subscribers.
 */
import WebSocket from 'ws';
import { createClient, Client as WsClient } from 'graphql-ws';
import { startServer, TestServer } from '../helpers/server';
import { Client, eventually } from '../helpers/client';
import { postPromptPay } from '../helpers/fixtures';
import { EventService } from '../../src/modules/events/event.service';

let srv: TestServer;
// No poller and no revocation poll during the measurement: only the commits wake the streams.
beforeAll(async () => {
  srv = await startServer({ scheduler: false, env: { EVENTS_POLL_MS: '600000', REVOCATION_POLL_MS: '600000' } });
});
afterAll(async () => {
  await srv.close();
});

const SUB = 'subscription { events { id type } }';

/** `n` subscriptions of `c`'s scope over ceil(n / 10) sockets; resolves once the server holds all n streams. */
async function open(c: Client, n: number): Promise<{ received: string[][]; close(): Promise<void> }> {
  const clients: WsClient[] = [];
  const received: string[][] = [];
  const before = srv.app.eventHub.streamCount;
  for (let i = 0; i < n; i += 10) {
    const client = createClient({
      url: srv.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: c.authorization },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => undefined,
    });
    clients.push(client);
    for (let j = i; j < Math.min(n, i + 10); j++) {
      const got: string[] = [];
      received.push(got);
      client.subscribe(
        { query: SUB },
        { next: (m: any) => got.push(m.data?.events?.id ?? 'error'), error: () => got.push('error'), complete: () => undefined },
      );
    }
  }
  await eventually(async () => srv.app.eventHub.streamCount === before + n, 10000, 10);
  return {
    received,
    close: async () => {
      await Promise.all(clients.map((cl) => Promise.resolve(cl.dispose())));
    },
  };
}

/** Statements (all of the process's) and event-read statements per event, for `m` events with `n` subscribers. */
async function measure(n: number, m: number): Promise<{ perEvent: number; readsPerEvent: number; received: string[][]; ids: string[] }> {
  const c = await srv.merchant();
  const subs = await open(c, n);
  await new Promise((r) => setTimeout(r, 200)); // the streams' first (joining) reads
  const events = srv.app.events;
  let reads = 0;
  const since = events.since.bind(events);
  const sinceShared = events.sinceShared.bind(events);
  events.since = (...args) => {
    reads++;
    return since(...args);
  };
  events.sinceShared = (...args) => {
    reads++;
    return sinceShared(...args);
  };
  const ids: string[] = [];
  try {
    const start = srv.app.db.queryCount;
    let writes = 0;
    for (let i = 0; i < m; i++) {
      const w0 = srv.app.db.queryCount;
      const res = await postPromptPay(c, '10000');
      expect(res.status).toBe(201);
      writes += srv.app.db.queryCount - w0;
      const expected = ids.length + 1;
      await eventually(async () => subs.received.every((r) => r.length >= expected), 10000, 5);
      ids.push(subs.received[0][ids.length]);
    }
    return { perEvent: (srv.app.db.queryCount - start - writes) / m, readsPerEvent: reads / m, received: subs.received, ids };
  } finally {
    events.since = since;
    events.sinceShared = sinceShared;
    await subs.close();
  }
}

test('statements per wake-up do not grow with the number of subscribers of a scope; every subscriber gets every event once, in order', async () => {
  const one = await measure(1, 6);
  const many = await measure(40, 6);
  // Each event is one wake-up: one shared read for the scope, however many streams it feeds
  // (reads: EventService.since/sinceShared calls; statements: the process's counter, minus
  // the writes' own statements; a write may straddle a read, hence the slack of one).
  expect(one.readsPerEvent).toBeLessThanOrEqual(2);
  expect(many.readsPerEvent).toBeLessThanOrEqual(2);
  expect(many.perEvent).toBeLessThanOrEqual(one.perEvent + 1);
  for (const got of many.received) expect(got).toEqual(many.ids);
  expect(new Set(many.ids).size).toBe(6);
});

test('subscribers of the same operation share one execution of the selection set per event', async () => {
  const c = await srv.merchant();
  const subs = await open(c, 20);
  await new Promise((r) => setTimeout(r, 200));
  // The subscription's field resolver maps the row with EventService.toWire: once per execution.
  const original = EventService.toWire;
  let executions = 0;
  EventService.toWire = (event) => {
    if (event.merchantId === c.merchantId) executions++;
    return original(event);
  };
  try {
    for (let i = 0; i < 3; i++) {
      expect((await postPromptPay(c, '10000')).status).toBe(201);
      await eventually(async () => subs.received.every((r) => r.length >= i + 1), 10000, 5);
    }
  } finally {
    EventService.toWire = original;
    await subs.close();
  }
  expect(executions).toBeLessThanOrEqual(3);
  const first = subs.received[0];
  for (const got of subs.received) expect(got).toEqual(first);
});
