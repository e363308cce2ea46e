/**
 * Ids match byte for byte on every engine. MariaDB's default collation
 * matched `PO_...` and `po_... ` to `po_...`; now every lookup by id - each REST
 * `/v1/.../{id}` route (reads, operations, test helpers), GraphQL queries and mutations,
 * an event id as list cursor and as subscription `after` - answers any other spelling of
 * an id as unknown, and on MariaDB and MySQL 8 every id column compares with a binary NO PAD
 * collation (utf8mb4_nopad_bin, utf8mb4_0900_bin).
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { connectMysql } from '../helpers/mysql';
import { startServer, TestServer } from '../helpers/server';
import { exactIdCollation, NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';
import { Client, payoutBody, ref } from '../helpers/client';
import { paymentBody } from '../helpers/fixtures';

let srv: TestServer;
let m: Client;
let ids: { po: string; tu: string; pi: string; evt: string; we: string };

beforeAll(async () => {
  srv = await startServer({ env: { WEBHOOK_DELIVERY: '0' } });
  m = await srv.merchant();
  const po = await m.post('/v1/payout_intents', payoutBody());
  const tu = await m.post(
    '/v1/topup_intents',
    { amount: '5000', currency: 'THB', country: 'TH', merchant_reference: ref('tu') },
    { idempotencyKey: randomUUID() },
  );
  const pi = await m.post('/v1/payment_intents', paymentBody());
  const we = await m.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/x' });
  for (const r of [po, tu, pi, we]) expect(r.status === 201 ? 201 : r.text).toBe(201);
  // The oldest event of the merchant: others follow it, for the `after` replay below.
  const events = await m.get('/v1/events?limit=100');
  ids = { po: po.body.id, tu: tu.body.id, pi: pi.body.id, evt: events.body.data.at(-1).id, we: we.body.id };
}, 60000);
afterAll(async () => {
  await srv?.close();
});

/** Spellings of `id` that are not `id`, as they appear in a URL path. */
function variants(id: string): string[] {
  const [prefix, rest] = id.split('_');
  return [
    id.toUpperCase(),
    `${prefix.toUpperCase()}_${rest}`,
    `${prefix}_${rest.toUpperCase()}`,
    `${id}%20`,
    `${id}%20%20`,
    `%20${id}`,
    `${id}%09`,
    `${id}%C2%A0`,
    `${id}%F0%9F%98%80`,
    `${id.slice(0, -1)}%F0%9F%98%80`,
    `${id}x`,
  ];
}

const routes = () =>
  [
    ['GET', `/v1/payout_intents/{id}`, ids.po],
    ['POST', `/v1/payout_intents/{id}/approve`, ids.po],
    ['POST', `/v1/payout_intents/{id}/cancel`, ids.po],
    ['POST', `/v1/test_helpers/payout_intents/{id}/succeed`, ids.po],
    ['POST', `/v1/test_helpers/payout_intents/{id}/fail`, ids.po],
    ['GET', `/v1/topup_intents/{id}`, ids.tu],
    ['POST', `/v1/test_helpers/topup_intents/{id}/succeed`, ids.tu],
    ['POST', `/v1/test_helpers/topup_intents/{id}/fail`, ids.tu],
    ['GET', `/v1/payment_intents/{id}`, ids.pi],
    ['POST', `/v1/payment_intents/{id}/cancel`, ids.pi],
    ['POST', `/v1/test_helpers/payment_intents/{id}/succeed`, ids.pi],
    ['POST', `/v1/test_helpers/payment_intents/{id}/fail`, ids.pi],
    ['POST', `/v1/test_helpers/payment_intents/{id}/expire`, ids.pi],
    ['GET', `/v1/events/{id}`, ids.evt],
    ['GET', `/v1/webhook_endpoints/{id}`, ids.we],
    ['GET', `/v1/webhook_endpoints/{id}/attempts`, ids.we],
    ['DELETE', `/v1/webhook_endpoints/{id}`, ids.we],
  ] as const;

test('every REST /v1/.../{id} route answers another case, padding or a stray character as 404 not_found, and nothing changes', async () => {
  const wrong: string[] = [];
  for (const [method, path, id] of routes()) {
    for (const v of variants(id)) {
      // A fresh Idempotency-Key each: operations that require one reach the lookup.
      const res = await m.request(
        method,
        path.replace('{id}', v),
        method === 'GET' ? {} : { idempotencyKey: randomUUID(), ...(method === 'POST' ? { body: {} } : {}) },
      );
      if (res.status !== 404 || res.body?.error?.code !== 'not_found')
        wrong.push(`${method} ${path.replace('{id}', v)} -> ${res.status} ${res.text.slice(0, 80)}`);
    }
  }
  expect(wrong).toEqual([]);
  // The records are where they were: nothing was approved, cancelled, settled or deleted.
  expect((await m.get(`/v1/payout_intents/${ids.po}`)).body.status).toBe('requires_approval');
  expect((await m.get(`/v1/topup_intents/${ids.tu}`)).body.status).not.toMatch(/succeeded|failed/);
  expect((await m.get(`/v1/payment_intents/${ids.pi}`)).body.status).not.toMatch(/succeeded|failed|canceled|expired/);
  expect((await m.get(`/v1/webhook_endpoints/${ids.we}`)).status).toBe(200);
  expect((await m.get(`/v1/events/${ids.evt}`)).status).toBe(200);
}, 120000);

test('GraphQL queries and mutations by id answer other spellings as not_found', async () => {
  const cases: [string, string][] = [
    ['query($id: ID!) { payoutIntent(id: $id) { id } }', ids.po],
    ['query($id: ID!) { topupIntent(id: $id) { id } }', ids.tu],
    ['query($id: ID!) { paymentIntent(id: $id) { id } }', ids.pi],
    ['query($id: ID!) { event(id: $id) { id } }', ids.evt],
    ['query($id: ID!) { webhookAttempts(webhookEndpointId: $id) { edges { node { id } } } }', ids.we],
    ['mutation($id: ID!) { approvePayoutIntent(id: $id) { id } }', ids.po],
    ['mutation($id: ID!) { cancelPayoutIntent(id: $id) { id } }', ids.po],
    ['mutation($id: ID!) { cancelPaymentIntent(id: $id) { id } }', ids.pi],
    ['mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id } }', ids.we],
  ];
  const wrong: string[] = [];
  for (const [query, id] of cases) {
    for (const v of [id.toUpperCase(), `${id.split('_')[0].toUpperCase()}_${id.split('_')[1]}`, `${id} `, `${id}  `, ` ${id}`, `${id}\u00a0`, `${id}😀`]) {
      const res = await m.gql(query, { id: v });
      const code = res.body.errors?.[0]?.extensions?.code;
      if (code !== 'not_found') wrong.push(`${query.slice(0, 40)} ${JSON.stringify(v)} -> ${res.status} ${res.text.slice(0, 120)}`);
    }
  }
  expect(wrong).toEqual([]);
  const one = await m.gql('query($id: ID!) { payoutIntent(id: $id) { id } }', { id: ids.po });
  expect(one.body.data!.payoutIntent.id).toBe(ids.po);
}, 120000);

test('an event id as list cursor or as subscription `after` is exact too (400 validation_error otherwise)', async () => {
  for (const v of [ids.evt.toUpperCase(), `EVT_${ids.evt.slice(4)}`, `${ids.evt} `, `${ids.evt}%20`]) {
    const res = await m.get(`/v1/events?cursor=${encodeURIComponent(v)}`);
    expect([v, res.status, res.body.error?.code, res.body.error?.param]).toEqual([v, 400, 'validation_error', 'cursor']);
  }
  expect((await m.get(`/v1/events?cursor=${ids.evt}`)).status).toBe(200);

  const wsUrl = srv.url.replace(/^http/, 'ws') + '/graphql';
  const errorFor = (after: string) =>
    new Promise<any>((resolve) => {
      const client = createClient({
        url: wsUrl,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: m.authorization },
        retryAttempts: 0,
        lazy: false,
        onNonLazyError: () => undefined,
      });
      const done = (value: unknown) => {
        void client.dispose();
        resolve(value);
      };
      client.subscribe(
        { query: 'subscription($after: String) { events(after: $after) { id } }', variables: { after } },
        {
          next: (value) => done(value),
          error: (err) => done(err),
          complete: () => done('complete'),
        },
      );
    });
  for (const v of [ids.evt.toUpperCase(), `${ids.evt} `]) {
    const err = await errorFor(v);
    expect([v, Array.isArray(err) ? err[0]?.extensions?.code : err?.errors?.[0]?.extensions?.code]).toEqual([v, 'validation_error']);
  }
  // The exact id replays what followed it.
  const replay = await errorFor(ids.evt);
  expect(replay.data.events.id > ids.evt).toBe(true);
}, 60000);

testIf(usingMysql(), NEEDS_MYSQL)('on MariaDB and MySQL every id and id-reference column compares with the binary NO PAD collation', async () => {
  const url = new URL(srv.database.env.DATABASE_URL);
  const c = await connectMysql(url, url.pathname.slice(1));
  try {
    const [rows] = (await c.query(
      `SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME, ' ', COLLATION_NAME) AS c FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME IS NOT NULL AND (COLUMN_NAME = 'id' OR COLUMN_NAME LIKE '%\\_id')
        ORDER BY 1`,
    )) as [{ c: string }[], unknown];
    expect(rows.length).toBeGreaterThanOrEqual(35);
    expect(rows.map((r) => r.c).filter((c) => !c.endsWith(` ${exactIdCollation()}`))).toEqual([]);
    // And the database compares them so: no row for another case or trailing spaces.
    const [hits] = (await c.query('SELECT id FROM payout_intents WHERE id IN (?, ?, ?)', [ids.po.toUpperCase(), `${ids.po} `, `PO_${ids.po.slice(3)}`])) as [
      unknown[],
      unknown,
    ];
    expect(hits).toEqual([]);
  } finally {
    await c.end();
  }
});
