/**
 * Audit log: every committed state-changing call (REST or GraphQL) records who (API key),
 * what (operation), on which record, the reason, the request id and the time, in the same
 * transaction; rejected, rolled-back and replayed calls record nothing; reads are scoped.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';
import { startReceiver, Receiver } from '../helpers/receiver';
import { AuditEntry } from '../../src/modules/audit/audit.entity';

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

async function entriesOf(c: Client, query = ''): Promise<any[]> {
  const res = await c.get(`/v1/audit_log?limit=100${query}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

const countRows = (resourceId: string) => srv.app.db.read((em) => em.count(AuditEntry, { where: { resourceId } }));

test('a REST cancel with a reason records key, operation, resource, reason, request id and time', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: true });
  const po = await c.post('/v1/payout_intents', payoutBody());
  const before = Date.now();
  const res = await c.post(`/v1/payout_intents/${po.body.id}/cancel`, { reason: 'customer changed their mind' });
  expect(res.status).toBe(202);
  const [entry, created] = await entriesOf(c, `&resource_id=${po.body.id}`);
  expect(entry).toEqual({
    object: 'audit_entry',
    id: expect.stringMatching(/^aud_/),
    environment: 'test',
    api_key_id: c.key!.apiKeyId,
    actor: { type: 'api_key', id: c.key!.apiKeyId, restricted: false },
    operation: 'POST /v1/payout_intents/:id/cancel',
    resource_type: 'payout_intent',
    resource_id: po.body.id,
    reason: 'customer changed their mind',
    request_id: res.headers.get('request-id'),
    status_code: 202,
    created_at: expect.any(String),
  });
  expect(Date.parse(entry.created_at)).toBeGreaterThanOrEqual(before - 5);
  expect(Date.parse(entry.created_at)).toBeLessThanOrEqual(Date.now());
  expect(created).toMatchObject({
    operation: 'POST /v1/payout_intents',
    resource_id: po.body.id,
    reason: null,
    request_id: po.headers.get('request-id'),
    status_code: 201,
  });
});

test('GraphQL mutations are recorded too, with the Request-Id of the GraphQL response; auditLog query with filters', async () => {
  const c = await srv.merchant();
  const po = await c.post('/v1/payout_intents', payoutBody());
  const res = await c.gql(`mutation($id: ID!) { cancelPayoutIntent(id: $id, reason: "via graphql") { id status } }`, { id: po.body.id });
  expect(res.body.errors).toBeUndefined();
  const q = await c.gql(
    `query($f: AuditLogFilter) { auditLog(first: 5, filter: $f) { nodes { apiKeyId operation resourceType resourceId reason requestId statusCode environment createdAt } pageInfo { hasNextPage } } }`,
    { f: { resourceId: po.body.id, operation: 'POST /v1/payout_intents/:id/cancel' } },
  );
  expect(q.body.errors).toBeUndefined();
  expect(q.body.data.auditLog).toEqual({
    nodes: [
      {
        apiKeyId: c.key!.apiKeyId,
        operation: 'POST /v1/payout_intents/:id/cancel',
        resourceType: 'payout_intent',
        resourceId: po.body.id,
        reason: 'via graphql',
        requestId: res.headers.get('request-id'),
        statusCode: 202,
        environment: 'TEST',
        createdAt: expect.any(String),
      },
    ],
    pageInfo: { hasNextPage: false },
  });
  const bad = await c.gql(`{ auditLog(filter: { operation: "drop table" }) { nodes { id } } }`);
  expect(bad.body.errors![0].extensions).toMatchObject({ code: 'validation_error', param: 'filter.operation' });
});

test('every kind of state change is recorded: creates, approve, cancel, test helpers, webhook endpoints, method settings', async () => {
  const c = await srv.merchant(); // funding: topup create + test helper succeed
  const po = await c.post('/v1/payout_intents', payoutBody());
  await c.post(`/v1/payout_intents/${po.body.id}/approve`, {});
  await c.post(`/v1/test_helpers/payout_intents/${po.body.id}/succeed`, {});
  const pi = await c.post('/v1/payment_intents', {
    amount: '50000',
    currency: 'THB',
    country: 'TH',
    merchant_reference: ref('pi'),
    customer: { name: 'A' },
    payment_method: 'promptpay',
  });
  expect(pi.status).toBe(201);
  await c.post(`/v1/payment_intents/${pi.body.id}/cancel`, { reason: 'duplicate order' });
  const ep = await c.post('/v1/webhook_endpoints', { url: `${rx.url}/audit` });
  await c.request('DELETE', `/v1/webhook_endpoints/${ep.body.id}`);
  const setting = await c.post('/v1/payment_method_settings/promptpay', { enabled: false });
  expect(setting.status).toBe(200);

  const ops = (await entriesOf(c)).map((e) => [e.operation, e.resource_type, e.resource_id, e.reason]).reverse();
  expect(ops).toEqual([
    ['POST /v1/topup_intents', 'topup_intent', expect.stringMatching(/^tu_/), null],
    ['POST /v1/test_helpers/topup_intents/:id/succeed', 'topup_intent', expect.stringMatching(/^tu_/), null],
    ['POST /v1/payout_intents', 'payout_intent', po.body.id, null],
    ['POST /v1/payout_intents/:id/approve', 'payout_intent', po.body.id, null],
    ['POST /v1/test_helpers/payout_intents/:id/succeed', 'payout_intent', po.body.id, null],
    ['POST /v1/payment_intents', 'payment_intent', pi.body.id, null],
    ['POST /v1/payment_intents/:id/cancel', 'payment_intent', pi.body.id, 'duplicate order'],
    ['POST /v1/webhook_endpoints', 'webhook_endpoint', ep.body.id, null],
    ['DELETE /v1/webhook_endpoints/:id', 'webhook_endpoint', ep.body.id, null],
    ['POST /v1/payment_method_settings/:payment_method', 'payment_method_setting', 'promptpay', null],
  ]);
  // The webhook secret never reaches the audit log.
  expect((await c.get('/v1/audit_log?limit=100')).text).not.toContain('whsec_');
  // Filter by operation.
  expect((await entriesOf(c, `&operation=${encodeURIComponent('POST /v1/payout_intents/:id/approve')}`)).map((e) => e.resource_id)).toEqual([po.body.id]);
});

test('rejected, rolled-back and replayed calls record nothing', async () => {
  const c = await srv.merchant();
  const po = await c.post('/v1/payout_intents', payoutBody());
  expect(await countRows(po.body.id)).toBe(1);

  // Validation error (with and without an Idempotency-Key: the 4xx is stored, but nothing changed).
  expect((await c.post(`/v1/payout_intents/${po.body.id}/cancel`, { reason: 'x'.repeat(513) })).status).toBe(400);
  expect((await c.post(`/v1/payout_intents/${po.body.id}/cancel`, { bogus: 1 }, { idempotencyKey: ref('k') })).status).toBe(400);
  // Not found.
  expect((await c.post('/v1/payout_intents/po_01nothere00000000000000000/cancel', {})).status).toBe(404);
  // Rolled back: the handler succeeded but the transaction failed before commit.
  srv.app.idempotency.hooks.beforeCommit = async () => {
    throw new Error('injected failure before commit');
  };
  try {
    expect((await c.post(`/v1/payout_intents/${po.body.id}/cancel`, { reason: 'rolled back' })).status).toBe(500);
  } finally {
    srv.app.idempotency.hooks.beforeCommit = undefined;
  }
  expect(await countRows(po.body.id)).toBe(1);

  // Committed once; the idempotent replay adds nothing; a second cancel is 422 and adds nothing.
  const key = ref('key');
  const first = await c.post(`/v1/payout_intents/${po.body.id}/cancel`, { reason: 'once' }, { idempotencyKey: key });
  expect(first.status).toBe(202);
  const replay = await c.post(`/v1/payout_intents/${po.body.id}/cancel`, { reason: 'once' }, { idempotencyKey: key });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect((await c.post(`/v1/payout_intents/${po.body.id}/cancel`, {})).status).toBe(422);
  const gql = await c.gql(`mutation($id: ID!) { approvePayoutIntent(id: $id) { id } }`, { id: po.body.id });
  expect(gql.body.errors![0].extensions.code).toBe('invalid_state');

  const entries = await entriesOf(c, `&resource_id=${po.body.id}`);
  expect(entries.map((e) => [e.operation, e.reason, e.request_id])).toEqual([
    ['POST /v1/payout_intents/:id/cancel', 'once', first.headers.get('request-id')],
    ['POST /v1/payout_intents', null, po.headers.get('request-id')],
  ]);
});

test('scoped to merchant and environment; listing rules apply', async () => {
  const a = await srv.merchant();
  const b = await srv.merchant(undefined, 'test', { fund: false });
  const live = await srv.keyFor(a.merchantId, 'live');
  const second = await srv.keyFor(a.merchantId, 'test');
  const po = await a.post('/v1/payout_intents', payoutBody());
  const again = await second.post(`/v1/payout_intents/${po.body.id}/cancel`, {});
  expect(again.status).toBe(202);

  expect(await entriesOf(b)).toEqual([]);
  expect(await entriesOf(b, `&resource_id=${po.body.id}`)).toEqual([]);
  expect(await entriesOf(live)).toEqual([]);
  expect((await live.gql(`{ auditLog { nodes { id } } }`)).body.data.auditLog.nodes).toEqual([]);
  // Both keys of the merchant's test environment see both entries; each names its own key.
  const seen = await entriesOf(second, `&resource_id=${po.body.id}`);
  expect(seen.map((e) => e.api_key_id)).toEqual([second.key!.apiKeyId, a.key!.apiKeyId]);

  const page = await a.get('/v1/audit_log?limit=1');
  expect(page.body.has_more).toBe(true);
  expect((await b.get(`/v1/audit_log?cursor=${page.body.next_cursor}`)).status).toBe(400);
  const next = await a.get(`/v1/audit_log?limit=1&cursor=${page.body.next_cursor}`);
  expect(next.body.data[0].id).not.toBe(page.body.data[0].id);
  for (const badQuery of ['status=x', 'foo=1', 'limit=0', 'resource_id=%27%20or%201', 'operation=GET%20/v1/x', 'country=TH']) {
    const res = await a.get(`/v1/audit_log?${badQuery}`);
    expect([badQuery, res.status, res.body.error.code]).toEqual([badQuery, 400, 'validation_error']);
  }
  expect((await srv.client().get('/v1/audit_log')).status).toBe(401);
});
