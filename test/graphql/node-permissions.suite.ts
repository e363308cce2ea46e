/**
 * `node(id:)` and `nodes(ids:)` ask what each record's own query asks, for every Node type:
 * with one record of each kind, a key holding one read permission at a time (and a member of
 * each role) is refused by `nodes` exactly where the record's own GraphQL query or REST route
 * refuses it. The table below must name every registered kind, so a new Node type fails here
 * until its own read is compared too.
 */
import { randomUUID } from 'node:crypto';
import { Client, eventually, payoutBody, ref } from '../helpers/client';
import { createRefund, succeededPayment, topupBody } from '../helpers/fixtures';
import { addMember, type MemberClient } from '../helpers/members';
import { startServer, TestServer } from '../helpers/server';
import { approvalsModule } from '../../src/modules/approvals/approval.module';
import { nodePrefixes } from '../../src/graphql/node';
import { RESOURCES, ROLES } from '../../src/domain/permissions';
import { resourceOfEventType } from '../../src/domain/access';

let srv: TestServer;
let m: Client;
/** One id of each kind, by prefix. */
const ids: Record<string, string> = {};
let endpointId: string;
const members: Partial<Record<(typeof ROLES)[number], MemberClient>> = {};

beforeAll(async () => {
  srv = await startServer();
  m = await srv.merchant();
  for (const role of ROLES) members[role] = await addMember(srv, m.merchantId, `${role}-${randomUUID()}@example.com`, role);

  const payment = await succeededPayment(m, '7000');
  ids.pi = payment.id;
  ids.re = (await createRefund(m, { payment_intent: payment.id, amount: '1000' })).id;
  ids.po = (await m.post('/v1/payout_intents', payoutBody(), { idempotencyKey: randomUUID() })).body.id;
  ids.tu = (await m.post('/v1/topup_intents', topupBody(), { idempotencyKey: randomUUID() })).body.id;
  ids.pob = (await m.post('/v1/payout_batches', { items: [payoutBody({ amount: '1500', merchant_reference: ref('pb') })] })).body.id;
  ids.plink = (await m.post('/v1/payment_links', { amount: '5000', currency: 'THB', country: 'TH' })).body.id;
  ids.txn = (await m.get(`/v1/balance_transactions?source=${payment.id}`)).body.data[0].id;
  ids.frr = (
    await m.post('/v1/report_runs', { report_type: 'balance.summary', interval_start: '2026-01-01T00:00:00Z', interval_end: '2026-01-02T00:00:00Z' })
  ).body.id;
  const hook = await m.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks' });
  endpointId = ids.we = hook.body.id;
  const event = (await m.get('/v1/events?limit=1')).body.data[0];
  ids.evt = event.id;
  ids.whd = (await m.post(`/v1/events/${event.id}/resend`, { webhook_endpoint: endpointId })).body.id;
  ids.wha = await eventually(async () => (await m.get(`/v1/webhook_endpoints/${endpointId}/attempts`)).body.data[0]?.id);
  const key = await m.post('/v1/api_keys', {}, { idempotencyKey: randomUUID() });
  ids.key = key.body.id;
  ids.aud = (await m.get(`/v1/audit_log?resource_id=${key.body.id}`)).body.data[0].id;
  const { approvalPolicies } = srv.app.modules.of(approvalsModule);
  const policy = await srv.app.db.tx((tx) =>
    approvalPolicies.set(tx, { merchantId: m.merchantId, environment: 'test' }, { currency: 'USD', minAmount: 100n, approvals: 2, keysCount: false }),
  );
  ids.apol = policy.value.id;
  ids.bal = (await m.gql('{ balances { id } }')).body.data.balances[0].id;
  ids.mer = m.merchantId;
  ids.usr = members.viewer!.userId;
  ids.ses = (await members.owner!.gql('{ sessions { id current } }')).body.data.sessions.find((s: any) => s.current).id;
  for (const [prefix, id] of Object.entries(ids)) expect([prefix, id]).toEqual([prefix, expect.stringMatching(new RegExp(`^${prefix}_`))]);
});
afterAll(async () => {
  await srv?.close();
});

const byId = (field: string) => async (c: Client, id: string) => gqlDenied(await c.gql(`query($id: ID!) { ${field}(id: $id) { id } }`, { id }));
const gqlRoot = (query: string) => async (c: Client) => gqlDenied(await c.gql(query));
const rest = (path: (id: string) => string) => async (c: Client, id: string) => (await c.get(path(id))).status === 403;

function gqlDenied(res: { body: any }): boolean {
  return (res.body.errors ?? []).some((e: any) => e.extensions?.code === 'permission_denied');
}

/** Whether the record's own query (GraphQL by id where there is one, else its list or REST route) refuses the caller. */
const OWN_READ: Record<string, (c: Client, id: string) => Promise<boolean>> = {
  pi: byId('paymentIntent'),
  re: byId('refund'),
  po: byId('payoutIntent'),
  tu: byId('topupIntent'),
  pob: byId('payoutBatch'),
  plink: byId('paymentLink'),
  txn: byId('balanceTransaction'),
  frr: byId('reportRun'),
  evt: byId('event'),
  we: rest((id) => `/v1/webhook_endpoints/${id}`),
  whd: rest(() => `/v1/webhook_endpoints/${endpointId}/attempts`),
  wha: rest(() => `/v1/webhook_endpoints/${endpointId}/attempts`),
  aud: rest(() => '/v1/audit_log'),
  apol: rest(() => '/v1/approval_policies'),
  bal: rest(() => '/v1/balances'),
  key: rest(() => '/v1/api_keys'),
  mer: gqlRoot('{ viewer { merchant { id } } }'),
  usr: gqlRoot('{ teamMembers { id } }'),
  ses: gqlRoot('{ sessions { id } }'),
};

/** For each kind: whether `nodes(ids:)` refused the caller, and whether the record's own read did. */
async function compare(c: Client): Promise<{ prefix: string; node: boolean; own: boolean }[]> {
  const prefixes = Object.keys(OWN_READ);
  const res = await c.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: prefixes.map((p) => ids[p]) });
  const deniedAt = new Set((res.body.errors ?? []).filter((e: any) => e.extensions?.code === 'permission_denied').map((e: any) => e.path?.[1]));
  return Promise.all(
    prefixes.map(async (prefix, i) => {
      const node = deniedAt.has(i);
      // A record node answers is the record asked for.
      if (!node && res.body.data.nodes[i] !== null) expect(res.body.data.nodes[i].id).toBe(ids[prefix]);
      return { prefix, node, own: await OWN_READ[prefix](c, ids[prefix]) };
    }),
  );
}

test('the table names every registered Node type', () => {
  expect(Object.keys(OWN_READ).sort()).toEqual(nodePrefixes());
});

test.each(RESOURCES.map((r) => `${r}:read`))('a key holding only %s: nodes refuses exactly what each own query refuses', async (permission) => {
  const key = await srv.keyFor(m.merchantId, 'test', [permission]);
  const rows = await compare(key);
  expect(rows.filter((r) => r.node !== r.own)).toEqual([]);
  // The key reads its own resource's records through node, and is refused the others'.
  expect(rows.some((r) => !r.node)).toBe(true);
  expect(rows.some((r) => r.node)).toBe(true);
});

test('a payout batch: a key without payout_batches:read reads nothing of it through node or nodes (status, totals, approvals, errors)', async () => {
  const key = await srv.keyFor(m.merchantId, 'test', ['payment_intents:read']);
  for (const query of [
    'query($id: ID!) { node(id: $id) { ... on PayoutBatch { status totals { amount } approvals { createdAt } errors { message } } } }',
    'query($id: ID!) { nodes(ids: [$id]) { ... on PayoutBatch { status totals { amount } approvals { createdAt } errors { message } } } }',
  ]) {
    const res = await key.gql(query, { id: ids.pob });
    expect(JSON.stringify(res.body.data)).not.toContain('requires_approval'.toUpperCase());
    expect(res.body.errors!.map((e: any) => [e.extensions.code, e.message])).toEqual([['permission_denied', expect.stringContaining('payout_batches:read')]]);
  }
});

test('a full key and a member of each role: the same answers as each own query', async () => {
  for (const c of [m, ...ROLES.map((r) => members[r]!)]) {
    const rows = await compare(c);
    expect(rows.filter((r) => r.node !== r.own)).toEqual([]);
  }
  // Spot checks: finance may not read webhook endpoints; a viewer reads every resource but no keys.
  const finance = await compare(members.finance!);
  expect(finance.filter((r) => r.node).map((r) => r.prefix)).toEqual(['we', 'whd', 'wha', 'key']);
  const viewer = await compare(members.viewer!);
  expect(viewer.filter((r) => r.node).map((r) => r.prefix)).toEqual(['key']);
});

test("an event's resource asks its record's read permission, payout batches included", async () => {
  for (const [type, resource] of [
    ['payout_batch.created', 'payout_batches'],
    ['payment_intent.succeeded', 'payment_intents'],
    ['report_run.succeeded', 'report_runs'],
    ['refund.succeeded', 'refunds'],
  ]) {
    expect(resourceOfEventType(type)).toBe(resource);
  }
  const created = (await m.get('/v1/events?type=payout_batch.created&limit=100')).body.data.find((e: any) => e.data.object.id === ids.pob);
  const eventsOnly = await srv.keyFor(m.merchantId, 'test', ['events:read']);
  const res = await eventsOnly.gql('query($id: ID!) { event(id: $id) { id resource { __typename } } }', { id: created.id });
  expect(res.body.data.event).toEqual({ id: created.id, resource: null });
  expect(res.body.errors!.map((e: any) => e.extensions.code)).toEqual(['permission_denied']);
  const withBatches = await srv.keyFor(m.merchantId, 'test', ['events:read', 'payout_batches:read']);
  const ok = await withBatches.gql('query($id: ID!) { event(id: $id) { resource { __typename } } }', { id: created.id });
  expect(ok.body.data.event.resource).toEqual({ __typename: 'PayoutBatch' });
});
