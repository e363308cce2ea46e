/**
 * The GraphQL conventions of docs/graphql.md, on the real server: several mutations in one
 * document keep each committed result, an Idempotency-Key covers one mutation only, money
 * reads as Money, every record is a Node, and every code the server emits is in the
 * schema's ErrorCode enum.
 */
import { randomUUID } from 'node:crypto';
import { isEnumType, isNonNullType } from 'graphql';
import { ERROR_CODES } from '../../src/domain/errors';
import { buildGraphQLSchema } from '../../src/graphql/schema';
import { Client, ref } from '../helpers/client';
import { FUNDING, startServer, TestServer } from '../helpers/server';

let srv: TestServer;
let merchant: Client;
let other: Client;
/** Every `extensions.code` this file's requests got back: checked against the schema's enum at the end. */
const emitted = new Set<string>();

beforeAll(async () => {
  srv = await startServer();
  merchant = await srv.merchant();
  other = await srv.merchant();
});
afterAll(async () => {
  await srv.close();
});

async function gql(c: Client, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const res = await c.gql(query, variables, headers);
  for (const e of res.body?.errors ?? []) emitted.add(e.extensions?.code);
  return res;
}

const payoutInput = (amount: string, merchantReference = ref('conv')) => ({
  amount,
  currency: 'THB',
  country: 'TH',
  merchantReference,
  recipient: { bankCode: 'KBANK', accountNumber: '1234567890', holderName: 'Somchai Jaidee' },
});

const TWO_PAYOUTS = `mutation Two($a: CreatePayoutIntentInput!, $b: CreatePayoutIntentInput!) {
  a: createPayoutIntent(input: $a) { id status amount }
  b: createPayoutIntent(input: $b) { id status amount }
}`;

describe('several mutations in one document', () => {
  test('every mutation field is nullable', () => {
    const fields = Object.values(buildGraphQLSchema().getMutationType()!.getFields());
    expect(fields.length).toBeGreaterThan(10);
    expect(fields.filter((f) => isNonNullType(f.type)).map((f) => f.name)).toEqual([]);
  });

  test('the committed one stays in data and in the database; the failing one is its own error with its path', async () => {
    const over = (BigInt(FUNDING) * 10n).toString();
    const res = await gql(merchant, TWO_PAYOUTS, { a: payoutInput('2500'), b: payoutInput(over) });
    expect(res.status).toBe(200);
    expect(res.body.data!.a).toMatchObject({ status: 'REQUIRES_APPROVAL', amount: '2500' });
    expect(res.body.data!.a.id).toMatch(/^po_/);
    expect(res.body.data!.b).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({ path: ['b'], extensions: { code: 'insufficient_balance' } });
    const stored = await merchant.get(`/v1/payout_intents/${res.body.data!.a.id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ id: res.body.data!.a.id, status: 'requires_approval', amount: '2500' });
  });

  test('an Idempotency-Key over more than one mutation is 400 validation_error, and nothing runs', async () => {
    const a = payoutInput('1000');
    const res = await gql(merchant, TWO_PAYOUTS, { a, b: payoutInput('1000') }, { 'idempotency-key': randomUUID() });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'validation_error', param: 'Idempotency-Key' });
    const listed = await merchant.get(`/v1/payout_intents?merchant_reference=${encodeURIComponent(a.merchantReference)}`);
    expect(listed.body.data).toEqual([]);
    // Fragments and inline fragments count too.
    const spread = `mutation M($a: CreatePayoutIntentInput!) { ...Two } fragment Two on Mutation { x: createPayoutIntent(input: $a) { id } ... on Mutation { y: createPayoutIntent(input: $a) { id } } }`;
    const viaFragments = await gql(merchant, spread, { a }, { 'idempotency-key': randomUUID() });
    expect(viaFragments.status).toBe(400);
    // One mutation with the key is served as before.
    const one = await gql(
      merchant,
      `mutation M($a: CreatePayoutIntentInput!) { createPayoutIntent(input: $a) { id } }`,
      { a },
      { 'idempotency-key': randomUUID() },
    );
    expect(one.body.data!.createPayoutIntent.id).toMatch(/^po_/);
  });
});

describe('Money', () => {
  test('amounts read as Money beside the contract strings, with the currency exponent', async () => {
    const res = await gql(
      merchant,
      `mutation M($a: CreatePayoutIntentInput!) { createPayoutIntent(input: $a) { amount currency amountMoney { minorUnits currency exponent decimal } } }`,
      {
        a: payoutInput('15050'),
      },
    );
    expect(res.body.data!.createPayoutIntent).toEqual({
      amount: '15050',
      currency: 'THB',
      amountMoney: { minorUnits: '15050', currency: 'THB', exponent: 2, decimal: '150.50' },
    });
    const topup = (currency: string) =>
      gql(
        merchant,
        `mutation T($i: CreateTopupIntentInput!) { createTopupIntent(input: $i) { amountMoney { minorUnits currency exponent decimal } } }`,
        { i: { amount: '1234', currency, country: 'TH', merchantReference: ref('tu') } },
        { 'idempotency-key': randomUUID() },
      );
    expect((await topup('JPY')).body.data!.createTopupIntent.amountMoney).toEqual({ minorUnits: '1234', currency: 'JPY', exponent: 0, decimal: '1234' });
    expect((await topup('KWD')).body.data!.createTopupIntent.amountMoney).toEqual({ minorUnits: '1234', currency: 'KWD', exponent: 3, decimal: '1.234' });
    const balances = await gql(merchant, `{ balances { id currency available availableMoney { minorUnits decimal } reservedMoney { minorUnits } } }`);
    const thb = balances.body.data!.balances.find((b: any) => b.currency === 'THB');
    expect(thb.id).toBe('bal_test_THB');
    expect(thb.availableMoney.minorUnits).toBe(thb.available);
    expect(thb.availableMoney.decimal).toBe(`${thb.available.slice(0, -2)}.${thb.available.slice(-2)}`);
  });
});

describe('Node', () => {
  test('node(id:) and nodes(ids:) find records of any type, scoped to the caller; a miss is null with its own not_found', async () => {
    const created = await gql(merchant, `mutation M($a: CreatePayoutIntentInput!) { createPayoutIntent(input: $a) { id } }`, { a: payoutInput('700') });
    const id = created.body.data!.createPayoutIntent.id;
    const viewer = await gql(merchant, `{ viewer { merchant { id } } }`);
    const merchantId = viewer.body.data!.viewer.merchant.id;

    const one = await gql(merchant, `query N($id: ID!) { node(id: $id) { __typename id ... on PayoutIntent { amount status } } }`, { id });
    expect(one.body).toEqual({
      data: { node: { __typename: 'PayoutIntent', id, amount: '700', status: 'REQUIRES_APPROVAL' } },
      extensions: { cost: expect.any(Object) },
    });

    const many = await gql(merchant, `query N($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, {
      ids: [id, 'po_unknown', 'bal_test_THB', merchantId, 'nothing'],
    });
    expect(many.body.data!.nodes).toEqual([
      { __typename: 'PayoutIntent', id },
      null,
      { __typename: 'Balance', id: 'bal_test_THB' },
      { __typename: 'Merchant', id: merchantId },
      null,
    ]);
    expect(many.body.errors!.map((e: any) => [e.path, e.extensions.code]).sort((x: any, y: any) => x[0][1] - y[0][1])).toEqual([
      [['nodes', 1], 'not_found'],
      [['nodes', 4], 'not_found'],
    ]);

    // Another merchant's records (and merchant) are not found.
    const foreign = await gql(other, `query N($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: [id, merchantId] });
    expect(foreign.body.data!.nodes).toEqual([null, null]);
    // The other environment's balance id is not found either.
    const live = await gql(merchant, `{ node(id: "bal_live_THB") { id } }`);
    expect(live.body.data!.node).toBeNull();
    expect(live.body.errors![0].extensions.code).toBe('not_found');
  });

  test('the same document gives the same answer on its compiled runs (abstract types run on graphql-js)', async () => {
    const q = `{ nodes(ids: ["bal_test_THB"]) { __typename ... on Balance { currency } } }`;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await gql(merchant, q)).body);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(answers[0]).toEqual({ data: { nodes: [{ __typename: 'Balance', currency: 'THB' }] }, extensions: { cost: expect.any(Object) } });
  });
});

describe('error codes', () => {
  test('errorCodes lists the one list of domain/errors.ts, and the schema enum names each code', async () => {
    const res = await gql(merchant, `{ errorCodes { code status description } }`);
    expect(res.body.data!.errorCodes).toEqual(
      Object.entries(ERROR_CODES).map(([code, { status, description }]) => ({ code: code.toUpperCase(), status, description })),
    );
    const enumType = buildGraphQLSchema().getType('ErrorCode');
    expect(isEnumType(enumType) && enumType.getValues().map((v) => v.value)).toEqual(Object.keys(ERROR_CODES));
  });

  test('a request the server cannot parse, validate or authorize is answered with codes of the enum', async () => {
    await gql(merchant, `{ nope }`);
    await gql(merchant, `{ payoutIntent(id: "po_x") { id } }`);
    await gql(merchant, `{ payoutIntents(first: 0) { nodes { id } } }`);
    await gql(merchant, `mutation { approvePayoutIntent(id: "po_x") { id } }`);
    await gql(new Client(merchant.baseUrl, 'sk_test_x:nope'), `{ viewer { apiKeyId } }`);
    const get = await merchant.get(`/graphql?query=${encodeURIComponent('mutation { approvePayoutIntent(id: "x") { id } }')}`);
    for (const e of get.body?.errors ?? []) emitted.add(e.extensions?.code);
  });

  afterAll(() => {
    // Runs last: every code any test of this file got back is a value of the schema's ErrorCode enum.
    const enumType = buildGraphQLSchema().getType('ErrorCode');
    const values = new Set(isEnumType(enumType) ? enumType.getValues().map((v) => v.value as string) : []);
    const unknown = [...emitted].filter((code) => !values.has(code));
    expect(unknown).toEqual([]);
    expect(emitted.size).toBeGreaterThanOrEqual(5);
  });
});
