/**
 * Connections both ways (docs/graphql.md "Connections"): over real HTTP and the test database,
 * every keyset list walked forward (`first`/`after`) and backward (`last`/`before`) meets
 * itself item for item; `totalCount` is the size of the filtered list; `sortKey` and `reverse`
 * order the dashboard's main lists by created_at, amount (numerically) or status, ties broken
 * by id; a cursor of one sort is refused under another, and `first` with `last` is refused.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';

let srv: TestServer;
let c: Client;

/** Amounts with ties, and whose text order is not their numeric order. */
const AMOUNTS = ['2000', '25000', '100000', '9999900', '25000', '100000', '300000', '2000', '100000', '7000'];

async function ok(query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await c.gql(query, variables);
  expect(res.status).toBe(200);
  if (res.body.errors) throw new Error(`unexpected errors: ${JSON.stringify(res.body.errors)}`);
  return res.body.data;
}

interface Row {
  id: string;
  amount: string;
  status: string;
  createdAt: string;
}

/** The expected order: descending by the key, then id (ascending with `reverse`). */
function sorted(rows: Row[], sortKey: string, reverse: boolean): string[] {
  const key = (r: Row): [bigint | string, string] =>
    sortKey === 'AMOUNT' ? [BigInt(r.amount), r.id] : sortKey === 'STATUS' ? [r.status, r.id] : [r.createdAt, r.id];
  const cmp = (a: Row, b: Row) => {
    const [ka, ia] = key(a);
    const [kb, ib] = key(b);
    const byKey = ka < kb ? -1 : ka > kb ? 1 : 0;
    return byKey !== 0 ? byKey : ia < ib ? -1 : ia > ib ? 1 : 0;
  };
  const ascending = [...rows].sort(cmp).map((r) => r.id);
  return reverse ? ascending : ascending.reverse();
}

/** Every id of `field`'s list, walked `size` at a time forward, and backward from the end. */
async function walk(field: string, args: string, size: number): Promise<{ forward: string[]; backward: string[]; pages: number }> {
  const q = (paging: string) =>
    `query($cursor: String) { ${field}(${paging}${args ? `, ${args}` : ''}) { nodes { id } edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
  const forward: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (;;) {
    const page: any = (await ok(q(`first: ${size}, after: $cursor`), { cursor }))[field];
    forward.push(...page.nodes.map((n: { id: string }) => n.id));
    expect(page.pageInfo.hasPreviousPage).toBe(cursor !== null);
    if (page.nodes.length > 0) expect(page.pageInfo.endCursor).toBe(page.edges[page.edges.length - 1].cursor);
    pages++;
    if (!page.pageInfo.hasNextPage) break;
    cursor = page.pageInfo.endCursor;
  }
  const backward: string[] = [];
  cursor = null;
  for (;;) {
    const page: any = (await ok(q(`last: ${size}, before: $cursor`), { cursor }))[field];
    backward.unshift(...page.nodes.map((n: { id: string }) => n.id));
    expect(page.pageInfo.hasNextPage).toBe(cursor !== null);
    if (page.nodes.length > 0) expect(page.pageInfo.startCursor).toBe(page.edges[0].cursor);
    if (!page.pageInfo.hasPreviousPage) break;
    cursor = page.pageInfo.startCursor;
  }
  return { forward, backward, pages };
}

async function errorOf(query: string, variables: Record<string, unknown> = {}): Promise<{ code: string; param?: string }> {
  const res = await c.gql(query, variables);
  const errors = res.body.errors ?? [];
  expect(errors).toHaveLength(1);
  return { code: errors[0].extensions.code, param: errors[0].extensions.param };
}

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  c = await srv.merchant();
  for (const amount of AMOUNTS) {
    const po = await c.post('/v1/payout_intents', payoutBody({ amount }));
    expect(po.status).toBe(201);
    const pi = await c.post('/v1/payment_intents', {
      amount,
      currency: 'THB',
      country: 'TH',
      customer: { name: 'Somchai Jaidee' },
      merchant_reference: ref('pi'),
      payment_method: 'promptpay',
    });
    expect(pi.status).toBe(201);
    const tu = await c.post(
      '/v1/topup_intents',
      { amount, currency: 'THB', country: 'TH', merchant_reference: ref('tu') },
      { headers: { 'Idempotency-Key': ref('k') } },
    );
    expect(tu.status).toBe(201);
  }
  // Statuses: some payouts approved or cancelled, some payments and topups settled or failed, refunds of the succeeded payments.
  const payouts = (await c.get('/v1/payout_intents?limit=100')).body.data;
  for (const [i, po] of payouts.entries()) {
    if (i % 3 === 0) expect((await c.post(`/v1/payout_intents/${po.id}/approve`)).status).toBe(202);
    if (i % 3 === 1) expect((await c.post(`/v1/payout_intents/${po.id}/cancel`, { reason: 'no' })).status).toBe(202);
  }
  const payments = (await c.get('/v1/payment_intents?limit=100')).body.data;
  for (const [i, pi] of payments.entries()) {
    if (i % 3 === 0) {
      expect((await c.post(`/v1/test_helpers/payment_intents/${pi.id}/succeed`)).status).toBe(200);
      for (const amount of ['1', pi.amount === '2000' ? '4' : '3']) {
        expect((await c.post('/v1/refunds', { payment_intent: pi.id, amount }, { headers: { 'Idempotency-Key': ref('k') } })).status).toBe(201);
      }
    }
    if (i % 3 === 1) expect((await c.post(`/v1/test_helpers/payment_intents/${pi.id}/fail`, { failure_code: 'insufficient_funds' })).status).toBe(200);
  }
  const refunds = (await c.get('/v1/refunds?limit=100')).body.data;
  for (const [i, re] of refunds.entries())
    if (i % 3 !== 2) expect((await c.post(`/v1/test_helpers/refunds/${re.id}/${i % 3 ? 'fail' : 'succeed'}`)).status).toBe(200);
  const topups = (await c.get('/v1/topup_intents?limit=100&status=requires_action')).body.data;
  for (const [i, tu] of topups.entries()) if (i % 2 === 0) expect((await c.post(`/v1/test_helpers/topup_intents/${tu.id}/succeed`)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await srv?.close();
});

const SORTED_LISTS = ['payoutIntents', 'paymentIntents', 'topupIntents', 'refunds'];

describe('backward pages meet forward pages', () => {
  test.each(SORTED_LISTS.flatMap((f) => ['CREATED_AT', 'AMOUNT', 'STATUS'].flatMap((k) => [false, true].map((r) => [f, k, r] as const))))(
    '%s sortKey %s reverse %s: both walks give the same items, in the expected order',
    async (field, sortKey, reverse) => {
      const all: Row[] = (await ok(`{ ${field}(first: 100) { nodes { id amount status createdAt } } }`))[field].nodes;
      expect(all.length).toBeGreaterThanOrEqual(8);
      const { forward, backward, pages } = await walk(field, `sortKey: ${sortKey}, reverse: ${reverse}`, 3);
      expect(pages).toBeGreaterThanOrEqual(3);
      expect(forward).toEqual(sorted(all, sortKey, reverse));
      expect(backward).toEqual(forward);
    },
  );

  test.each(['events', 'auditLog', 'balanceTransactions', 'webhookEndpoints', 'paymentLinks', 'reportRuns', 'payoutBatches'])(
    '%s: the newest-first list walked both ways',
    async (field) => {
      const { forward, backward } = await walk(field, '', 4);
      expect(backward).toEqual(forward);
      expect(new Set(forward).size).toBe(forward.length);
    },
  );

  test('a filtered list walked both ways, and a page between two cursors', async () => {
    const filter = 'filter: { status: [SUCCEEDED, FAILED] }';
    const { forward, backward } = await walk('paymentIntents', `sortKey: AMOUNT, ${filter}`, 2);
    expect(backward).toEqual(forward);
    const page = (await ok(`{ paymentIntents(first: 100, sortKey: AMOUNT, ${filter}) { nodes { id status } edges { cursor } } }`)).paymentIntents;
    expect(page.nodes.map((n: { id: string }) => n.id)).toEqual(forward);
    for (const n of page.nodes) expect(['SUCCEEDED', 'FAILED']).toContain(n.status);
    // `after` and `before` together: the items strictly between them, from either end.
    const [a, b] = [page.edges[1].cursor, page.edges[5].cursor];
    const between = `sortKey: AMOUNT, ${filter}, after: "${a}", before: "${b}"`;
    const fromStart = (await ok(`{ paymentIntents(first: 100, ${between}) { nodes { id } } }`)).paymentIntents.nodes.map((n: any) => n.id);
    const fromEnd = (await ok(`{ paymentIntents(last: 2, ${between}) { nodes { id } pageInfo { hasPreviousPage } } }`)).paymentIntents;
    expect(fromStart).toEqual(forward.slice(2, 5));
    expect(fromEnd.nodes.map((n: any) => n.id)).toEqual(forward.slice(3, 5));
    expect(fromEnd.pageInfo.hasPreviousPage).toBe(true);
  });

  test('PaymentIntent.refunds and PayoutBatch-less nested lists page backward too', async () => {
    const pi = (await ok('{ paymentIntents(first: 1, filter: { status: [SUCCEEDED] }) { nodes { id refunds(first: 100) { nodes { id } } } } }')).paymentIntents
      .nodes[0];
    const last = (await ok(`query($id: ID!) { paymentIntent(id: $id) { refunds(last: 1) { nodes { id } pageInfo { hasPreviousPage } } } }`, { id: pi.id }))
      .paymentIntent.refunds;
    expect(last.nodes.map((n: any) => n.id)).toEqual(pi.refunds.nodes.slice(-1).map((n: any) => n.id));
    expect(last.pageInfo.hasPreviousPage).toBe(pi.refunds.nodes.length > 1);
  });
});

describe('totalCount', () => {
  test('is the size of the filtered list, whatever the page and cursor', async () => {
    const cases: [string, string, string][] = [
      ['payoutIntents', '', '/v1/payout_intents'],
      ['payoutIntents', 'filter: { status: [CANCELLED, PROCESSING] }', '/v1/payout_intents?status=cancelled,processing'],
      ['paymentIntents', 'filter: { status: [SUCCEEDED] }', '/v1/payment_intents?status=succeeded'],
      ['paymentIntents', 'filter: { currency: "THB", status: [FAILED] }', '/v1/payment_intents?currency=THB&status=failed'],
      ['refunds', '', '/v1/refunds'],
      ['topupIntents', 'filter: { status: [SUCCEEDED] }', '/v1/topup_intents?status=succeeded'],
      ['events', 'filter: { type: ["payout_intent.*"] }', '/v1/events?type=payout_intent.*'],
      ['auditLog', '', '/v1/audit_log'],
      ['balanceTransactions', '', '/v1/balance_transactions'],
    ];
    for (const [field, args, path] of cases) {
      const rest = await c.get(`${path}${path.includes('?') ? '&' : '?'}limit=100`);
      expect(rest.status).toBe(200);
      expect(rest.body.has_more).toBe(false);
      const expected = rest.body.data.length;
      const a = args ? `, ${args}` : '';
      const first = (await ok(`{ ${field}(first: 2${a}) { totalCount totalCountCapped pageInfo { endCursor } } }`))[field];
      expect([field, args, first.totalCount, first.totalCountCapped]).toEqual([field, args, expected, false]);
      if (expected > 2) {
        const next = (await ok(`query($c: String) { ${field}(first: 2, after: $c${a}) { totalCount } }`, { c: first.pageInfo.endCursor }))[field];
        expect(next.totalCount).toBe(expected);
        const back = (
          await ok(`{ ${field}(last: 1${a}) { ...Total } } fragment Total on ${field === 'auditLog' ? 'AuditEntry' : typeName(field)}Connection { totalCount }`)
        )[field];
        expect(back.totalCount).toBe(expected);
      }
    }
  });

  test('is counted only when selected: one statement fewer without it', async () => {
    // The fewest of three: a request that finds its API key's kept copy lapsed (500 ms, longer
    // under load) reads the key again, one statement more than the list itself costs.
    const count = async (query: string) => {
      const counts: number[] = [];
      for (let i = 0; i < 3; i++) {
        const before = srv.app.db.queryCount;
        await ok(query);
        counts.push(srv.app.db.queryCount - before);
      }
      return Math.min(...counts);
    };
    const without = await count('{ payoutIntents(first: 5) { nodes { id } } }');
    const withCount = await count('{ payoutIntents(first: 5) { nodes { id } totalCount } }');
    expect(withCount).toBe(without + 1);
  });
});

function typeName(field: string): string {
  const singular: Record<string, string> = {
    payoutIntents: 'PayoutIntent',
    paymentIntents: 'PaymentIntent',
    refunds: 'Refund',
    topupIntents: 'TopupIntent',
    events: 'Event',
    balanceTransactions: 'BalanceTransaction',
  };
  return singular[field];
}

describe('refusals', () => {
  test('a cursor of one sort is refused under another, both as after and before', async () => {
    const cursorOf = async (sort: string) =>
      (await ok(`{ payoutIntents(first: 1${sort ? `, sortKey: ${sort}` : ''}) { pageInfo { endCursor } } }`)).payoutIntents.pageInfo.endCursor;
    const cursors = { CREATED_AT: await cursorOf(''), AMOUNT: await cursorOf('AMOUNT'), STATUS: await cursorOf('STATUS') };
    const rest = (await c.get('/v1/payout_intents?limit=1')).body.next_cursor;
    expect(rest).toBe(cursors.CREATED_AT);
    for (const [from, cursor] of Object.entries(cursors)) {
      for (const to of ['CREATED_AT', 'AMOUNT', 'STATUS']) {
        const after = await c.gql(`query($c: String) { payoutIntents(first: 1, after: $c, sortKey: ${to}) { nodes { id } } }`, { c: cursor });
        const before = await c.gql(`query($c: String) { payoutIntents(last: 1, before: $c, sortKey: ${to}) { nodes { id } } }`, { c: cursor });
        if (from === to) {
          expect(after.body.errors).toBeUndefined();
          expect(before.body.errors).toBeUndefined();
        } else {
          expect(after.body.errors?.[0].extensions).toMatchObject({ code: 'validation_error', param: 'after' });
          expect(before.body.errors?.[0].extensions).toMatchObject({ code: 'validation_error', param: 'before' });
          expect(after.body.data.payoutIntents).toBeNull();
        }
      }
    }
    // REST keeps its one order: a sorted cursor is refused there too.
    const sortedOnRest = await c.get(`/v1/payout_intents?cursor=${cursors.AMOUNT}`);
    expect(sortedOnRest.status).toBe(400);
    expect(sortedOnRest.body.error).toMatchObject({ code: 'validation_error', param: 'cursor' });
    // A cursor of another list is refused as before.
    expect(await errorOf(`{ paymentIntents(first: 1, sortKey: AMOUNT, after: "${cursors.AMOUNT}") { nodes { id } } }`)).toEqual({
      code: 'validation_error',
      param: 'after',
    });
  });

  test('first and last together, and last out of range, are validation errors', async () => {
    expect(await errorOf('{ payoutIntents(first: 2, last: 2) { nodes { id } } }')).toEqual({ code: 'validation_error', param: 'last' });
    expect(await errorOf('query($n: Int) { events(first: $n, last: 2) { nodes { id } } }', { n: 3 })).toEqual({ code: 'validation_error', param: 'last' });
    expect(await errorOf('{ refunds(last: 0) { nodes { id } } }')).toEqual({ code: 'validation_error', param: 'last' });
    expect(await errorOf('{ refunds(last: 101) { nodes { id } } }')).toEqual({ code: 'validation_error', param: 'last' });
    // `first: $n` with $n unset is the default, not a `first` given with `last`.
    const data = await ok('query($n: Int) { refunds(first: $n, last: 2) { nodes { id } } }');
    expect(data.refunds.nodes).toHaveLength(2);
  });
});
