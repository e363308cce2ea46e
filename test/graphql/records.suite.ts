/**
 * Records on the GraphQL surface (docs/graphql.md): what a create accepted reads back, a
 * deduplicated create says so in `extensions`, `nextStep` is a union per kind, events carry
 * their typed `resource`, a failing nested field nulls only itself, and the later record
 * types are Nodes with Money beside their amounts, each read with its own permission.
 */
import { randomUUID } from 'node:crypto';
import { Client, eventually, payoutBody, ref } from '../helpers/client';
import { createPayout, createRefund, succeededPayment } from '../helpers/fixtures';
import { buildGraphQLSchema } from '../../src/graphql/schema';
import { isObjectType, type GraphQLObjectType } from 'graphql';
import { approvalsModule } from '../../src/modules/approvals/approval.module';
import { addMember } from '../helpers/members';
import { startServer, TestServer } from '../helpers/server';

let srv: TestServer;
let m: Client;

beforeAll(async () => {
  srv = await startServer();
  m = await srv.merchant();
});
afterAll(async () => {
  await srv.close();
});

const CREATE = `mutation($input: CreatePaymentIntentInput!) {
  createPaymentIntent(input: $input) {
    id customer { name email phone reference } metadata externalReference returnUrl
    nextAction { type }
    nextStep { __typename ... on DisplayQrCodeAction { expiresAt displayQrCode { data } } ... on RedirectToUrlAction { url expiresAt } }
  }
}`;

const input = (overrides: Record<string, unknown> = {}) => ({
  amount: '50000',
  currency: 'THB',
  country: 'TH',
  merchantReference: ref('rec'),
  customer: { name: 'Somchai Jaidee', email: 'somchai@example.com', phone: '+66812345678', reference: 'cust-1' },
  paymentMethod: 'promptpay',
  metadata: { order_id: '42', 'Mixed-Case': 'kept' },
  externalReference: 'ext-1',
  returnUrl: 'https://shop.example.com/done',
  ...overrides,
});

describe('a payment intent reads back what its create accepted', () => {
  test('customer, metadata, externalReference and returnUrl, on create and on read', async () => {
    const res = await m.gql(CREATE, { input: input() });
    expect(res.body.errors).toBeUndefined();
    const created = res.body.data.createPaymentIntent;
    const expected = {
      customer: { name: 'Somchai Jaidee', email: 'somchai@example.com', phone: '+66812345678', reference: 'cust-1' },
      metadata: { order_id: '42', 'Mixed-Case': 'kept' },
      externalReference: 'ext-1',
      returnUrl: 'https://shop.example.com/done',
    };
    expect(created).toMatchObject(expected);
    const read = await m.gql(`query($id: ID!) { paymentIntent(id: $id) { customer { name email phone reference } metadata externalReference returnUrl } }`, {
      id: created.id,
    });
    expect(read.body.data.paymentIntent).toEqual(expected);
  });

  test('absent ones read as null and {}', async () => {
    const res = await m.gql(CREATE, { input: input({ metadata: undefined, externalReference: undefined, returnUrl: undefined, customer: { name: 'A B' } }) });
    expect(res.body.data.createPaymentIntent).toMatchObject({
      customer: { name: 'A B', email: null, phone: null, reference: null },
      metadata: {},
      externalReference: null,
      returnUrl: null,
    });
  });
});

describe('nextStep: one type per next_action kind', () => {
  test('a QR payment is a DisplayQrCodeAction, a hosted one a RedirectToUrlAction; nextAction is deprecated but served', async () => {
    const qr = (await m.gql(CREATE, { input: input() })).body.data.createPaymentIntent;
    expect(qr.nextAction).toEqual({ type: 'DISPLAY_QR_CODE' });
    expect(qr.nextStep.__typename).toBe('DisplayQrCodeAction');
    expect(qr.nextStep.displayQrCode.data).toMatch(/^000201/);
    expect(typeof qr.nextStep.expiresAt).toBe('string');
    const hosted = (await m.gql(CREATE, { input: input({ paymentMethod: undefined, checkoutMode: 'HOSTED' }) })).body;
    expect(hosted.errors).toBeUndefined();
    expect(hosted.data.createPaymentIntent.nextStep).toMatchObject({ __typename: 'RedirectToUrlAction', url: expect.stringContaining('/checkout/') });
  });
});

describe('a deduplicated create says so', () => {
  const PAYOUT = `mutation($input: CreatePayoutIntentInput!) {
    createPayoutIntent(input: $input) { id merchantReference failureCode createdAt updatedAt approvalsRequired payoutBatch recipient { bankCode holderName accountLast4 } }
  }`;
  const payout = (merchantReference: string) => ({
    amount: '1000',
    currency: 'THB',
    country: 'TH',
    merchantReference,
    recipient: { bankCode: 'KBANK', accountNumber: '1234567890', holderName: 'Somchai Jaidee' },
  });

  test('a fresh create has no extensions.deduplicated; a repeated merchantReference and an idempotent replay have it', async () => {
    const body = input();
    const first = await m.gql(CREATE, { input: body });
    expect(first.body.extensions?.deduplicated).toBeUndefined();
    const again = await m.gql(CREATE, { input: body });
    expect(again.body.data.createPaymentIntent.id).toBe(first.body.data.createPaymentIntent.id);
    expect(again.body.extensions).toMatchObject({ deduplicated: true, deduplicatedFields: ['createPaymentIntent'] });

    const key = randomUUID();
    const once = payout(ref('dd'));
    const p1 = await m.gql(PAYOUT, { input: once }, { 'idempotency-key': key });
    expect(p1.body.extensions?.deduplicated).toBeUndefined();
    const p2 = await m.gql(PAYOUT, { input: once }, { 'idempotency-key': key });
    expect(p2.headers.get('idempotent-replayed')).toBe('true');
    // The replay is the stored answer (JSON): every field reads as it did the first time.
    expect(p1.body.data.createPayoutIntent).toEqual({
      id: expect.stringMatching(/^po_/),
      merchantReference: once.merchantReference,
      failureCode: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      approvalsRequired: 1,
      payoutBatch: null,
      recipient: { bankCode: 'KBANK', holderName: 'Somchai Jaidee', accountLast4: '7890' },
    });
    expect(p2.body.data.createPayoutIntent).toEqual(p1.body.data.createPayoutIntent);
    expect(p2.body.extensions).toMatchObject({ deduplicated: true, deduplicatedFields: ['createPayoutIntent'] });
  });

  test('in a document with several mutations, only the deduplicated ones are named, by alias', async () => {
    const body = input();
    await m.gql(CREATE, { input: body });
    const res = await m.gql(
      `mutation($old: CreatePaymentIntentInput!, $new: CreatePaymentIntentInput!) {
        fresh: createPaymentIntent(input: $new) { id }
        repeat: createPaymentIntent(input: $old) { id }
      }`,
      { old: body, new: input() },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.extensions).toEqual({ deduplicated: true, deduplicatedFields: ['repeat'], cost: expect.any(Object) });
  });
});

describe('Event.resource: the record, typed, read now', () => {
  const EVENTS = `query($type: [String!]) { events(first: 5, filter: { type: $type }) { edges { node { id type data { object } resource {
    __typename ... on Node { id } ... on PayoutIntent { status amountMoney { decimal } } ... on Refund { refundStatus: status paymentIntent { id } } } } } } }`;

  test('each event type resolves to its record type, as it is now', async () => {
    const po = await createPayout(m);
    expect((await m.post(`/v1/payout_intents/${po.id}/cancel`, {})).status).toBe(202);
    const res = await m.gql(EVENTS, { type: ['payout_intent.*'] });
    expect(res.body.errors).toBeUndefined();
    const [cancelled, created] = res.body.data.events.edges.map((e: any) => e.node);
    expect(cancelled.type).toBe('payout_intent.cancelled');
    expect(created.type).toBe('payout_intent.created');
    // data.object is the record at the event; resource is the record now.
    expect(created.data.object.status).toBe('requires_approval');
    expect(created.resource).toMatchObject({ __typename: 'PayoutIntent', id: po.id, status: 'CANCELLED' });

    const payment = await succeededPayment(m);
    const refund = await createRefund(m, { payment_intent: payment.id, amount: '1000' });
    const refunds = await m.gql(EVENTS, { type: ['refund.created'] });
    expect(refunds.body.data.events.edges[0].node.resource).toMatchObject({ __typename: 'Refund', id: refund.id, paymentIntent: { id: payment.id } });
    const payments = await m.gql(EVENTS, { type: ['payment_intent.succeeded'] });
    expect(payments.body.data.events.edges[0].node.resource).toMatchObject({ __typename: 'PaymentIntent', id: payment.id });
  });

  test('a record the key may not read is null with permission_denied at its path; the event and its siblings stay', async () => {
    const po = await createPayout(m);
    const eventsOnly = await srv.keyFor(m.merchantId, 'test', ['events:read']);
    const res = await eventsOnly.gql(EVENTS, { type: ['payout_intent.created'] });
    expect(res.body).toMatchObject({ data: expect.anything() });
    const node = res.body.data.events.edges[0].node;
    expect(node).toMatchObject({ type: 'payout_intent.created', resource: null });
    expect(node.data.object.id).toBe(po.id);
    expect(res.body.errors!.length).toBeGreaterThan(0);
    for (const e of res.body.errors!) {
      expect(e.extensions.code).toBe('permission_denied');
      expect(e.path.slice(-1)).toEqual(['resource']);
    }
  });
});

describe('a failing nested field nulls only itself', () => {
  test('Refund.paymentIntent the key may not read: null with its error, the refund intact', async () => {
    const payment = await succeededPayment(m);
    const refund = await createRefund(m, { payment_intent: payment.id, amount: '500' });
    const refundsOnly = await srv.keyFor(m.merchantId, 'test', ['refunds:read']);
    const res = await refundsOnly.gql(`query($id: ID!) { refund(id: $id) { id status amount paymentIntent { id } } }`, { id: refund.id });
    expect(res.body.data.refund).toEqual({ id: refund.id, status: expect.any(String), amount: '500', paymentIntent: null });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({ path: ['refund', 'paymentIntent'], extensions: { code: 'permission_denied' } });
  });

  test('every relation to another record is nullable (docs/graphql.md, "Nullability")', () => {
    const schema = buildGraphQLSchema();
    const relations = [
      ['Refund', 'paymentIntent'],
      ['PaymentIntent', 'paymentLink'],
      ['PaymentIntent', 'nextStep'],
      ['PaymentIntent', 'customer'],
      ['Event', 'resource'],
    ];
    for (const [type, field] of relations) {
      const f = (schema.getType(type) as any).getFields()[field];
      expect({ type, field, type_: String(f.type) }).toEqual({ type, field, type_: String(f.type).replace(/!$/, '') });
    }
  });
});

describe('later record types are Nodes with Money', () => {
  test('payout batches, balance transactions, report runs and webhook endpoints are found by node(id:); amounts have Money', async () => {
    const batch = await m.post('/v1/payout_batches', {
      items: [payoutBody({ amount: '1500' })],
    });
    expect(batch.status).toBe(201);
    const payment = await succeededPayment(m, '7000');
    const txns = await m.get(`/v1/balance_transactions?source=${payment.id}`);
    const txn = txns.body.data[0];
    const run = await m.post('/v1/report_runs', {
      report_type: 'balance.summary',
      interval_start: '2026-01-01T00:00:00Z',
      interval_end: '2026-01-02T00:00:00Z',
    });
    expect(run.status).toBe(201);
    const hook = await m.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks' });
    expect(hook.status).toBe(201);
    const res = await m.gql(
      `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id
        ... on PayoutBatch { totals { amountMoney { minorUnits currency decimal } } }
        ... on BalanceTransaction { amountMoney { decimal } feeMoney { decimal } netMoney { decimal } }
        ... on ReportRun { status } ... on WebhookEndpoint { url } } }`,
      { ids: [batch.body.id, txn.id, run.body.id, hook.body.id] },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.nodes).toEqual([
      { __typename: 'PayoutBatch', id: batch.body.id, totals: [{ amountMoney: { minorUnits: '1500', currency: 'THB', decimal: '15.00' } }] },
      { __typename: 'BalanceTransaction', id: txn.id, amountMoney: { decimal: '70.00' }, feeMoney: { decimal: '0.00' }, netMoney: { decimal: '70.00' } },
      { __typename: 'ReportRun', id: run.body.id, status: expect.any(String) },
      { __typename: 'WebhookEndpoint', id: hook.body.id, url: 'http://127.0.0.1:9/hooks' },
    ]);
    // Another merchant's ids are not found.
    const other = await srv.merchant();
    const foreign = await other.gql(`query($id: ID!) { node(id: $id) { id } }`, { id: batch.body.id });
    expect(foreign.body.data.node).toBeNull();
    expect(foreign.body.errors![0].extensions.code).toBe('not_found');
  });

  test('API keys, audit entries, approval policies, webhook deliveries and attempts, members and sessions are Nodes, each read with its own permission', async () => {
    const key = await m.post('/v1/api_keys', {}, { idempotencyKey: randomUUID() });
    expect(key.status).toBe(201);
    const audit = await m.get(`/v1/audit_log?resource_id=${key.body.id}`);
    const entry = audit.body.data[0];
    const { approvalPolicies } = srv.app.modules.of(approvalsModule);
    const policy = await srv.app.db.tx((tx) =>
      approvalPolicies.set(tx, { merchantId: m.merchantId, environment: 'test' }, { currency: 'USD', minAmount: 100n, approvals: 2, keysCount: false }),
    );
    const hook = await m.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks' });
    const payment = await succeededPayment(m, '4200');
    // The payment's event, not just the newest: the report run an earlier test asked for may
    // finish (and announce itself) after this payment on a slow machine.
    const events = await m.get(`/v1/events?limit=20`);
    const paid = (events.body.data as { id: string; data: { object: { id: string } } }[]).find((e) => e.data.object.id === payment.id);
    expect(paid).toBeDefined();
    const resend = await m.post(`/v1/events/${paid!.id}/resend`, { webhook_endpoint: hook.body.id });
    expect(resend.status).toBe(202);
    const attempts = await eventually(async () => {
      const listed = await m.get(`/v1/webhook_endpoints/${hook.body.id}/attempts`);
      return listed.body.data.length > 0 && listed;
    });

    const ids = [key.body.id, entry.id, policy.value.id, resend.body.id, attempts.body.data[0].id];
    const q = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id
      ... on ApiKey { restricted } ... on AuditEntry { operation } ... on ApprovalPolicy { currency approvals minAmountMoney { minorUnits currency exponent decimal } }
      ... on WebhookDelivery { webhookEndpointId } ... on WebhookAttempt { webhookEndpointId } } }`;
    const res = await m.gql(q, { ids });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.nodes.map((n: any) => n.__typename)).toEqual(['ApiKey', 'AuditEntry', 'ApprovalPolicy', 'WebhookDelivery', 'WebhookAttempt']);
    expect(res.body.data.nodes.map((n: any) => n.id)).toEqual(ids);
    expect(res.body.data.nodes[2]).toMatchObject({
      currency: 'USD',
      approvals: 2,
      minAmountMoney: { minorUnits: '100', currency: 'USD', exponent: 2, decimal: '1.00' },
    });
    expect(res.body.data.nodes[3].webhookEndpointId).toBe(hook.body.id);

    // A key restricted to payments reads none of them: each is null with its own permission_denied.
    const restricted = await srv.keyFor(m.merchantId, 'test', ['payment_intents:read']);
    const refused = await restricted.gql(q, { ids });
    expect(refused.body.data.nodes).toEqual([null, null, null, null, null]);
    expect(refused.body.errors!.map((e: any) => e.extensions.code)).toEqual(Array(5).fill('permission_denied'));
    // Another merchant finds none of them.
    const other = await srv.merchant();
    const foreign = await other.gql(q, { ids });
    expect(foreign.body.data.nodes).toEqual([null, null, null, null, null]);
    expect(foreign.body.errors!.map((e: any) => e.extensions.code)).toEqual(Array(5).fill('not_found'));

    // People: a member finds a teammate and their own session; an API key is refused; another member's session is not found.
    const owner = await addMember(srv, m.merchantId, `owner-${randomUUID()}@example.com`, 'owner');
    const viewer = await addMember(srv, m.merchantId, `viewer-${randomUUID()}@example.com`, 'viewer');
    const sessions = await owner.gql('{ sessions { id current } }');
    const mine = sessions.body.data.sessions.find((s: any) => s.current).id;
    const people = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on TeamMember { role } ... on SignInSession { current } } }`;
    const found = await owner.gql(people, { ids: [viewer.userId, mine] });
    expect(found.body.data.nodes).toEqual([
      { __typename: 'TeamMember', id: viewer.userId, role: 'VIEWER' },
      { __typename: 'SignInSession', id: mine, current: true },
    ]);
    const notTheirs = await viewer.gql(people, { ids: [mine] });
    expect(notTheirs.body.data.nodes).toEqual([null]);
    expect(notTheirs.body.errors![0].extensions.code).toBe('not_found');
    const byKey = await m.gql(people, { ids: [viewer.userId] });
    expect(byKey.body.errors![0].extensions.code).toBe('permission_denied');
  });

  test('every object type with an id is a Node, but for references and views named here', () => {
    const schema = buildGraphQLSchema();
    // References to another record, what a delete answers, the viewer, and ids derived from a query's inputs.
    const notRecords = ['Actor', 'BalanceTransactionSource', 'DeletedWebhookEndpoint', 'Me', 'PaymentMethodOption', 'PaymentMethodSetting'];
    const withId = Object.values(schema.getTypeMap()).filter(
      (t): t is GraphQLObjectType => isObjectType(t) && !t.name.startsWith('__') && 'id' in t.getFields() && !notRecords.includes(t.name),
    );
    expect(withId.length).toBeGreaterThan(15);
    expect(withId.filter((t) => !t.getInterfaces().some((i) => i.name === 'Node')).map((t) => t.name)).toEqual([]);
  });

  test('payment method settings and options have stable ids', async () => {
    const res = await m.gql(`{ paymentMethodSettings { id paymentMethod } }`);
    expect(res.body.errors).toBeUndefined();
    for (const s of res.body.data.paymentMethodSettings) expect(s.id).toBe(`pms_${s.paymentMethod}`);
  });
});
