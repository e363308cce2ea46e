/**
 * The GraphQL surface for payouts (docs/contract.md "GraphQL surface"): mutations and
 * queries round-trip against REST, enums are UPPER_CASE, amounts strings, domain errors
 * carry extensions.code (and extensions.param), GET works (with or without a preflight header), and
 * graphql-armor limits reject abusive documents.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, ref } from '../helpers/client';

let srv: TestServer;
let merchant: Client;

const FIELDS = `id amount currency country environment status merchantReference
  recipient { type accountLast4 bankCode holderName }
  failureCode failureMessage createdAt updatedAt`;

const CREATE = `mutation Create($input: CreatePayoutIntentInput!) { createPayoutIntent(input: $input) { ${FIELDS} } }`;
const APPROVE = `mutation Approve($id: ID!) { approvePayoutIntent(id: $id) { ${FIELDS} } }`;
const CANCEL = `mutation Cancel($id: ID!, $reason: String) { cancelPayoutIntent(id: $id, reason: $reason) { ${FIELDS} } }`;
const GET = `query Get($id: ID!) { payoutIntent(id: $id) { ${FIELDS} } }`;

function input(overrides: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) {
  return {
    amount: '2500',
    currency: 'THB',
    country: 'TH',
    merchantReference: ref('gql'),
    recipient: { type: 'BANK_ACCOUNT', bankCode: 'KBANK', accountNumber: '1234567890', holderName: 'Somchai Jaidee', ...recipient },
    ...overrides,
  };
}

/** The REST wire record as GraphQL shows it. */
function asGraphQL(w: any) {
  return {
    id: w.id,
    amount: w.amount,
    currency: w.currency,
    country: w.country,
    environment: w.environment.toUpperCase(),
    status: w.status.toUpperCase(),
    merchantReference: w.merchant_reference,
    recipient: {
      type: w.recipient.type.toUpperCase(),
      accountLast4: w.recipient.account_last4,
      bankCode: w.recipient.bank_code,
      holderName: w.recipient.holder_name,
    },
    failureCode: w.failure_code,
    failureMessage: w.failure_message,
    createdAt: w.created_at,
    updatedAt: w.updated_at,
  };
}

async function ok(res: Promise<any>, field: string): Promise<any> {
  const r = await res;
  expect(r.status).toBe(200);
  if (r.body.errors) throw new Error(`unexpected errors: ${JSON.stringify(r.body.errors)}`);
  return r.body.data[field];
}

async function fails(res: Promise<any>): Promise<any> {
  const r = await res;
  expect(r.body.errors?.length).toBeGreaterThan(0);
  // A failed field is null on its own (mutation fields are nullable, docs/graphql.md); nothing else is in data.
  for (const value of Object.values(r.body.data ?? {})) expect(value).toBeNull();
  return r.body.errors![0];
}

async function create(overrides: Record<string, unknown> = {}) {
  return ok(merchant.gql(CREATE, { input: input(overrides) }), 'createPayoutIntent');
}

beforeAll(async () => {
  srv = await startServer();
  merchant = await srv.merchant();
});

afterAll(async () => {
  await srv?.close();
});

describe('round trip', () => {
  test('create -> payoutIntent -> approve, each matching the REST record', async () => {
    const created = await ok(
      merchant.gql(CREATE, {
        input: input({ amount: '000123450', currency: 'thb', country: 'th' }, { bankCode: ' kbank ', accountNumber: '12-3456 7890' }),
      }),
      'createPayoutIntent',
    );
    expect(created).toMatchObject({
      amount: '123450',
      currency: 'THB',
      country: 'TH',
      environment: 'TEST',
      status: 'REQUIRES_APPROVAL',
      recipient: { type: 'BANK_ACCOUNT', accountLast4: '7890', bankCode: 'KBANK', holderName: 'Somchai Jaidee' },
      failureCode: null,
      failureMessage: null,
    });
    expect(typeof created.amount).toBe('string');
    expect(created.id).toMatch(/^po_/);
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const rest = await merchant.get(`/v1/payout_intents/${created.id}`);
    expect(rest.status).toBe(200);
    expect(asGraphQL(rest.body)).toEqual(created);
    expect(JSON.stringify(rest.body)).not.toContain('1234567890');

    expect(await ok(merchant.gql(GET, { id: created.id }), 'payoutIntent')).toEqual(created);

    const approved = await ok(merchant.gql(APPROVE, { id: created.id }), 'approvePayoutIntent');
    expect(approved.status).toBe('PROCESSING');
    expect(approved.id).toBe(created.id);
    expect(asGraphQL((await merchant.get(`/v1/payout_intents/${created.id}`)).body)).toEqual(approved);
  });

  test('cancelPayoutIntent(id, reason) stores the reason; without reason a default message', async () => {
    const a = await create();
    const cancelled = await ok(merchant.gql(CANCEL, { id: a.id, reason: 'Recipient changed bank' }), 'cancelPayoutIntent');
    expect(cancelled).toMatchObject({ id: a.id, status: 'CANCELLED', failureCode: 'cancelled', failureMessage: 'Recipient changed bank' });
    const rest = await merchant.get(`/v1/payout_intents/${a.id}`);
    expect(rest.body).toMatchObject({ status: 'cancelled', failure_code: 'cancelled', failure_message: 'Recipient changed bank' });

    const b = await create();
    const noReason = await ok(merchant.gql(CANCEL, { id: b.id }), 'cancelPayoutIntent');
    expect(noReason.status).toBe('CANCELLED');
    expect(noReason.failureCode).toBe('cancelled');
    expect(typeof noReason.failureMessage).toBe('string');
    expect(noReason.failureMessage.length).toBeGreaterThan(0);
  });

  test('payoutIntents lists what the mutations made, filtered with UPPER_CASE statuses', async () => {
    const fresh = await create({ currency: 'THB', country: 'TH' });
    const res = await ok(
      merchant.gql(`query L($filter: PayoutIntentFilter) { payoutIntents(first: 100, filter: $filter) { nodes { id status } } }`, {
        filter: { status: ['REQUIRES_APPROVAL'] },
      }),
      'payoutIntents',
    );
    expect(res.nodes.map((n: any) => n.id)).toContain(fresh.id);
    expect(res.nodes.every((n: any) => n.status === 'REQUIRES_APPROVAL')).toBe(true);
    const cancelled = await ok(
      merchant.gql(`{ payoutIntents(first: 100, filter: { status: [CANCELLED] }) { nodes { id status failureCode } } }`),
      'payoutIntents',
    );
    expect(cancelled.nodes.length).toBeGreaterThanOrEqual(2);
    expect(cancelled.nodes.every((n: any) => n.status === 'CANCELLED' && n.failureCode === 'cancelled')).toBe(true);
    // REST agrees.
    const rest = await merchant.get('/v1/payout_intents?status=cancelled&limit=100');
    expect(rest.body.data.map((r: any) => r.id)).toEqual(cancelled.nodes.map((n: any) => n.id));
  });

  test('a repeated merchantReference returns the original payout', async () => {
    const first = await create();
    const again = await ok(merchant.gql(CREATE, { input: input({ merchantReference: first.merchantReference, amount: '999' }) }), 'createPayoutIntent');
    expect(again.id).toBe(first.id);
    expect(again.amount).toBe(first.amount);
  });

  test('enum values are UPPER_CASE and lowercase REST values are refused', async () => {
    const types = await ok(merchant.gql(`{ __type(name: "PayoutIntentStatus") { enumValues { name } } }`), '__type');
    expect(types.enumValues.map((v: any) => v.name).sort()).toEqual(['CANCELLED', 'FAILED', 'PROCESSING', 'REQUIRES_APPROVAL', 'SUCCEEDED']);
    const err = await fails(merchant.gql(`{ payoutIntents(filter: { status: [requires_approval] }) { nodes { id } } }`));
    expect(err.extensions.code).toBe('validation_error');
  });

  test('the full account number is not in the schema', async () => {
    const err = await fails(merchant.gql(`query Get($id: ID!) { payoutIntent(id: $id) { recipient { accountNumber } } }`, { id: 'po_x' }));
    expect(err.extensions.code).toBe('validation_error');
  });
});

describe('domain errors carry extensions.code', () => {
  test.each([
    ['recipient.bankCode', { recipient: { bankCode: 'K BANK!' } }, 'input.recipient.bankCode'],
    ['recipient.accountNumber', { recipient: { accountNumber: '12' } }, 'input.recipient.accountNumber'],
    ['recipient.holderName', { recipient: { holderName: '' } }, 'input.recipient.holderName'],
    ['amount', { amount: '12.50' }, 'input.amount'],
    ['amount zero', { amount: '0' }, 'input.amount'],
    ['currency', { currency: 'BAHT1' }, 'input.currency'],
    ['country', { country: 'THA' }, 'input.country'],
    ['merchantReference', { merchantReference: '' }, 'input.merchantReference'],
  ])('validation_error for %s names the GraphQL path', async (_label, change, param) => {
    const { recipient, ...rest } = change as { recipient?: Record<string, unknown> };
    const err = await fails(merchant.gql(CREATE, { input: input(rest, recipient ?? {}) }));
    expect(err.extensions.code).toBe('validation_error');
    expect(err.extensions.param).toBe(param);
    expect(typeof err.message).toBe('string');
    // The same error when the failure is stored under an Idempotency-Key.
    const keyed = await fails(merchant.gql(CREATE, { input: input(rest, recipient ?? {}) }, { 'idempotency-key': ref('idk') }));
    expect(keyed).toEqual(err);
  });

  test('a missing required input field is validation_error', async () => {
    const { amount: _omit, ...noAmount } = input();
    const err = await fails(merchant.gql(CREATE, { input: noAmount }));
    expect(err.extensions.code).toBe('validation_error');
  });

  test('approval_required when cancelling a processing payout; the message names the status', async () => {
    const p = await create();
    await ok(merchant.gql(APPROVE, { id: p.id }), 'approvePayoutIntent');
    const err = await fails(merchant.gql(CANCEL, { id: p.id, reason: 'too late' }));
    expect(err.extensions.code).toBe('approval_required');
    expect(err.message).toContain('processing');
    expect((await merchant.get(`/v1/payout_intents/${p.id}`)).body.status).toBe('processing');
  });

  test('invalid_state when approving twice or approving a cancelled payout', async () => {
    const p = await create();
    await ok(merchant.gql(APPROVE, { id: p.id }), 'approvePayoutIntent');
    expect((await fails(merchant.gql(APPROVE, { id: p.id }))).extensions.code).toBe('invalid_state');
    const c = await create();
    await ok(merchant.gql(CANCEL, { id: c.id }), 'cancelPayoutIntent');
    expect((await fails(merchant.gql(APPROVE, { id: c.id }))).extensions.code).toBe('invalid_state');
    expect((await fails(merchant.gql(CANCEL, { id: c.id }))).extensions.code).toBe('approval_required');
  });

  test('not_found for unknown ids on approve and cancel; payoutIntent is null with a not_found error', async () => {
    expect((await fails(merchant.gql(APPROVE, { id: 'po_unknown' }))).extensions.code).toBe('not_found');
    expect((await fails(merchant.gql(CANCEL, { id: 'po_unknown' }))).extensions.code).toBe('not_found');
    const res = await merchant.gql(GET, { id: 'po_unknown' });
    expect(res.body.data).toEqual({ payoutIntent: null });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({ path: ['payoutIntent'], extensions: { code: 'not_found' } });
  });

  test('a reason over 512 characters is validation_error naming reason, with or without Idempotency-Key', async () => {
    const p = await create();
    const err = await fails(merchant.gql(CANCEL, { id: p.id, reason: 'r'.repeat(513) }));
    expect(err.extensions.code).toBe('validation_error');
    expect(err.extensions.param).toBe('reason');
    const keyed = await fails(merchant.gql(CANCEL, { id: p.id, reason: 'r'.repeat(513) }, { 'idempotency-key': ref('idk') }));
    expect(keyed).toEqual(err);
    const okLong = await ok(merchant.gql(CANCEL, { id: p.id, reason: 'r'.repeat(512) }), 'cancelPayoutIntent');
    expect(okLong.failureMessage).toHaveLength(512);
  });

  test('insufficient_balance for a currency the merchant does not hold', async () => {
    const err = await fails(merchant.gql(CREATE, { input: input({ currency: 'EUR' }) }));
    expect(err.extensions.code).toBe('insufficient_balance');
  });

  test('no error leaks internals: every error has a lower_snake_case code', async () => {
    const res = await merchant.gql(`{ nope }`);
    expect(res.body.errors![0].extensions.code).toMatch(/^[a-z_]+$/);
    expect(JSON.stringify(res.body)).not.toMatch(/stacktrace/i);
  });
});

describe('GraphQL over HTTP GET', () => {
  const q = (query: string, variables?: unknown) =>
    `/graphql?query=${encodeURIComponent(query)}${variables ? `&variables=${encodeURIComponent(JSON.stringify(variables))}` : ''}`;

  test('a query works with the apollo-require-preflight header', async () => {
    const p = await create();
    const res = await merchant.get(q(GET, { id: p.id }), { headers: { 'apollo-require-preflight': 'true' } });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.payoutIntent).toEqual(p);
  });

  test('a plain GET with the Basic credentials works without a preflight header (docs/contract.md: GET /graphql)', async () => {
    const res = await merchant.get(q('{ viewer { environment } }'));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ viewer: { environment: 'TEST' } });
  });

  test('a mutation over GET is refused and changes nothing', async () => {
    const p = await create();
    const res = await merchant.get(q(APPROVE, { id: p.id }), { headers: { 'apollo-require-preflight': 'true' } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.body.errors?.length).toBeGreaterThan(0);
    expect((await merchant.get(`/v1/payout_intents/${p.id}`)).body.status).toBe('requires_approval');
  });
});

describe('graphql-armor limits', () => {
  /** Nested `ofType` selections: valid against the schema, `depth` levels deep. */
  function introspectionOfDepth(depth: number): string {
    // __type(1) fields(2) type(3) then ofType... up to `depth`, ending in name.
    let inner = 'name';
    for (let i = 0; i < depth - 3; i++) inner = `ofType { ${inner} }`;
    return `{ __type(name: "PayoutIntent") { fields { type { ${inner} } } } }`;
  }

  test('a query within the depth limit runs', async () => {
    const res = await merchant.gql(introspectionOfDepth(9));
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.__type.fields.length).toBeGreaterThan(5);
  });

  test('a too-deep query is rejected before execution with validation_error', async () => {
    const res = await merchant.gql(introspectionOfDepth(14));
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors!.length).toBeGreaterThan(0);
    expect(res.body.errors![0].extensions.code).toBe('validation_error');
    expect(res.body.errors![0].message).toMatch(/depth/i);
  });

  test('too many aliases are rejected', async () => {
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: viewer { environment }`).join(' ');
    const res = await merchant.gql(`{ ${aliases} }`);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors![0].extensions.code).toBe('validation_error');
    expect(res.body.errors![0].message).toMatch(/alias/i);
  });

  test('field suggestions are not leaked', async () => {
    const res = await merchant.gql('{ payoutIntentz(id: "x") { id } }');
    expect(res.body.errors![0].extensions.code).toBe('validation_error');
    expect(res.body.errors![0].message).not.toMatch(/Did you mean/i);
  });
});
