/**
 * Scoping (payments-api.md "Endpoints", rule on 404): a record of another merchant or of
 * the other environment is indistinguishable from one that does not exist, on every
 * REST route and in GraphQL.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, Res } from '../helpers/client';

let srv: TestServer;
let a: Client; // merchant A, test
let b: Client; // merchant B, test
let aLive: Client; // merchant A, live
let bPayout: any;
let aPayout: any;
let aLivePayout: any;
const UNKNOWN_ID = 'po_01jzzzzzzzzzzzzzzzzzzzzzzz';

type Op = { name: string; run: (c: Client, id: string) => Promise<Res> };
const OPS: Op[] = [
  { name: 'get', run: (c, id) => c.get(`/v1/payout_intents/${id}`) },
  { name: 'approve', run: (c, id) => c.post(`/v1/payout_intents/${id}/approve`, {}) },
  { name: 'cancel', run: (c, id) => c.post(`/v1/payout_intents/${id}/cancel`, { reason: 'not yours' }) },
  { name: 'cancel without body', run: (c, id) => c.post(`/v1/payout_intents/${id}/cancel`) },
];

function expectSame404(res: Res, unknown: Res): void {
  expect(res.status).toBe(404);
  expect(unknown.status).toBe(404);
  expect(res.body).toEqual(unknown.body);
  expect(res.text).toBe(unknown.text);
  expect(res.body.error.code).toBe('not_found');
}

async function expectUntouched(owner: Client, record: any): Promise<void> {
  const now = await owner.get(`/v1/payout_intents/${record.id}`);
  expect(now.status).toBe(200);
  expect(now.body).toEqual(record);
}

beforeAll(async () => {
  srv = await startServer();
  a = await srv.merchant();
  b = await srv.merchant();
  aLive = await srv.keyFor(a.merchantId, 'live');
  await srv.fund(aLive, 'THB', '10000000');
  const createdB = await b.post('/v1/payout_intents', payoutBody());
  const createdA = await a.post('/v1/payout_intents', payoutBody());
  const createdLive = await aLive.post('/v1/payout_intents', payoutBody());
  expect([createdA.status, createdB.status, createdLive.status]).toEqual([201, 201, 201]);
  bPayout = createdB.body;
  aPayout = createdA.body;
  aLivePayout = createdLive.body;
  expect(aLivePayout.environment).toBe('live');
  expect(aPayout.environment).toBe('test');
});

afterAll(async () => {
  await srv?.close();
});

describe('another merchant', () => {
  test.each(OPS.map((op) => [op.name, op] as const))('%s of a foreign payout is the 404 of an unknown id', async (_name, op) => {
    const foreign = await op.run(a, bPayout.id);
    const unknown = await op.run(a, UNKNOWN_ID);
    expectSame404(foreign, unknown);
    await expectUntouched(b, bPayout);
  });

  test('the 404 body is the same on every route and for a garbage id', async () => {
    const bodies = await Promise.all([...OPS.map((op) => op.run(a, bPayout.id)), a.get('/v1/payout_intents/nothing-like-an-id')]);
    for (const res of bodies) expect(res.text).toBe(bodies[0].text);
  });

  test('the test helpers do not reach a foreign payout either', async () => {
    const approved = await b.post(`/v1/payout_intents/${bPayout.id}/approve`, {});
    expect(approved.status).toBe(202);
    for (const outcome of ['succeed', 'fail']) {
      const foreign = await a.post(`/v1/test_helpers/payout_intents/${approved.body.id}/${outcome}`, {});
      const unknown = await a.post(`/v1/test_helpers/payout_intents/${UNKNOWN_ID}/${outcome}`, {});
      expectSame404(foreign, unknown);
    }
    await expectUntouched(b, approved.body);
    bPayout = approved.body;
  });

  test('lists never include a foreign record, even filtered by its exact merchant_reference', async () => {
    const list = await a.get('/v1/payout_intents?limit=100');
    expect(list.status).toBe(200);
    const ids = list.body.data.map((r: any) => r.id);
    expect(ids).toContain(aPayout.id);
    expect(ids).not.toContain(bPayout.id);
    expect(list.body.data.every((r: any) => r.environment === 'test')).toBe(true);
    const byRef = await a.get(`/v1/payout_intents?merchant_reference=${encodeURIComponent(bPayout.merchant_reference)}`);
    expect(byRef.body).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  test('the same merchant_reference is independent per merchant', async () => {
    const res = await a.post('/v1/payout_intents', payoutBody({ merchant_reference: bPayout.merchant_reference }));
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(bPayout.id);
  });
});

describe('the other environment of the same merchant', () => {
  test.each(OPS.map((op) => [op.name, op] as const))('%s of a live record with a test key is the 404 of an unknown id', async (_name, op) => {
    expectSame404(await op.run(a, aLivePayout.id), await op.run(a, UNKNOWN_ID));
    await expectUntouched(aLive, aLivePayout);
  });

  test.each(OPS.map((op) => [op.name, op] as const))('%s of a test record with a live key is the 404 of an unknown id', async (_name, op) => {
    expectSame404(await op.run(aLive, aPayout.id), await op.run(aLive, UNKNOWN_ID));
    await expectUntouched(a, aPayout);
  });

  test('the 404 bodies of both environments are identical to each other', async () => {
    const fromTest = await a.get(`/v1/payout_intents/${aLivePayout.id}`);
    const fromLive = await aLive.get(`/v1/payout_intents/${aPayout.id}`);
    expect(fromTest.text).toBe(fromLive.text);
  });

  test('each list shows only its own environment', async () => {
    const test = await a.get('/v1/payout_intents?limit=100');
    const live = await aLive.get('/v1/payout_intents?limit=100');
    expect(test.body.data.map((r: any) => r.id)).not.toContain(aLivePayout.id);
    expect(live.body.data.map((r: any) => r.id)).toEqual([aLivePayout.id]);
  });

  test('a live key has no test helpers: 404, the record is untouched', async () => {
    const approved = await aLive.post(`/v1/payout_intents/${aLivePayout.id}/approve`, {});
    expect(approved.status).toBe(202);
    const res = await aLive.post(`/v1/test_helpers/payout_intents/${aLivePayout.id}/succeed`, {});
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    await expectUntouched(aLive, approved.body);
    aLivePayout = approved.body;
  });
});

describe('GraphQL', () => {
  const ONE = 'query One($id: ID!) { payoutIntent(id: $id) { id status } }';

  test('payoutIntent(id) of a foreign, other-environment or unknown id is null with the same not_found error', async () => {
    const errors = new Set<string>();
    for (const id of [bPayout.id, aLivePayout.id, UNKNOWN_ID]) {
      const res = await a.gql(ONE, { id });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ payoutIntent: null });
      expect(res.body.errors![0].extensions.code).toBe('not_found');
      errors.add(JSON.stringify(res.body.errors));
    }
    expect(errors.size).toBe(1);
    const own = await a.gql(ONE, { id: aPayout.id });
    expect(own.body.data).toEqual({ payoutIntent: { id: aPayout.id, status: 'REQUIRES_APPROVAL' } });
  });

  test('a batch mixing own and foreign ids resolves only the own one', async () => {
    const res = await a.gql(
      `{ mine: payoutIntent(id: "${aPayout.id}") { id } theirs: payoutIntent(id: "${bPayout.id}") { id } live: payoutIntent(id: "${aLivePayout.id}") { id } }`,
    );
    expect(res.body.data).toEqual({ mine: { id: aPayout.id }, theirs: null, live: null });
    expect(res.body.errors!.map((e: any) => [e.path[0], e.extensions.code])).toEqual([
      ['theirs', 'not_found'],
      ['live', 'not_found'],
    ]);
  });

  test('approve and cancel of a foreign id fail exactly as for an unknown id', async () => {
    for (const mutation of [
      'mutation M($id: ID!) { approvePayoutIntent(id: $id) { id } }',
      'mutation M($id: ID!) { cancelPayoutIntent(id: $id, reason: "x") { id } }',
    ]) {
      const foreign = await a.gql(mutation, { id: bPayout.id });
      const unknown = await a.gql(mutation, { id: UNKNOWN_ID });
      expect(foreign.body.errors![0].extensions.code).toBe('not_found');
      expect(foreign.body).toEqual(unknown.body);
      const otherEnv = await aLive.gql(mutation, { id: aPayout.id });
      expect(otherEnv.body.errors![0].extensions.code).toBe('not_found');
      expect(otherEnv.body.errors![0].message).toBe(unknown.body.errors![0].message);
    }
    await expectUntouched(b, bPayout);
    await expectUntouched(a, aPayout);
  });

  test('payoutIntents lists only own records of the key environment', async () => {
    const res = await a.gql('{ payoutIntents(first: 100) { nodes { id environment } } }');
    const ids = res.body.data.payoutIntents.nodes.map((n: any) => n.id);
    expect(ids).toContain(aPayout.id);
    expect(ids).not.toContain(bPayout.id);
    expect(ids).not.toContain(aLivePayout.id);
    expect(res.body.data.payoutIntents.nodes.every((n: any) => n.environment === 'TEST')).toBe(true);
    const live = await aLive.gql('{ payoutIntents(first: 100) { nodes { id environment } } viewer { environment } }');
    expect(live.body.data.payoutIntents.nodes).toEqual([{ id: aLivePayout.id, environment: 'LIVE' }]);
    expect(live.body.data.viewer.environment).toBe('LIVE');
  });
});
