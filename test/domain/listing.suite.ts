/**
 * Listing rules (docs/contract.md "Listing query parameters") over REST GET /v1/payout_intents
 * and GraphQL payoutIntents: keyset paging, filters, date bounds, parameter validation,
 * cursor scoping, and SQL statement counts that must not grow with the page size.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';

let srv: TestServer;
let merchant: Client;
/** Every payout of `merchant`, in creation order. */
const created: any[] = [];
/** The same records as the list returns them: newest first. */
let expectedOrder: any[] = [];

const TOTAL = 60;

function newestFirst(a: any, b: any): number {
  const ta = Date.parse(a.created_at);
  const tb = Date.parse(b.created_at);
  if (ta !== tb) return tb - ta;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function qs(params: Record<string, string | undefined>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined) as [string, string][];
  return entries.length ? `?${new URLSearchParams(entries).toString()}` : '';
}

/** Follows next_cursor until the end, re-sending `filters` with every page. */
async function pageAll(client: Client, filters: Record<string, string>, limit: number): Promise<{ pages: any[]; ids: string[] }> {
  const pages: any[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const res = await client.get(`/v1/payout_intents${qs({ ...filters, limit: String(limit), cursor })}`);
    expect(res.status).toBe(200);
    pages.push(res.body);
    if (!res.body.has_more) break;
    expect(typeof res.body.next_cursor).toBe('string');
    cursor = res.body.next_cursor;
  }
  return { pages, ids: pages.flatMap((p) => p.data.map((r: any) => r.id)) };
}

async function expect400(client: Client, path: string, param: string): Promise<void> {
  const res = await client.get(path);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('validation_error');
  expect(res.body.error.param).toBe(param);
  expect(typeof res.body.error.message).toBe('string');
}

/** Re-encodes a cursor with one element of its JSON array changed. */
function tamperCursor(cursor: string, index: number, value: unknown): string {
  const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  expect(Array.isArray(parts)).toBe(true);
  parts[index] = value;
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

beforeAll(async () => {
  // No scheduler: the statement-count tests must see only the statements of the request. Keys
  // kept in memory ten minutes: after its first request the key costs no statement.
  srv = await startServer({ scheduler: false, env: { API_KEY_CACHE_MS: '600000' } });
  merchant = await srv.merchant();
  await srv.fund(merchant, 'USD', '1000000000');
  for (let i = 0; i < TOTAL; i++) {
    const res = await merchant.post(
      '/v1/payout_intents',
      payoutBody({
        amount: String(100 + i),
        currency: i % 3 === 0 ? 'USD' : 'THB',
        country: i % 2 === 0 ? 'TH' : 'SG',
        merchant_reference: ref(`list-${i}`),
      }),
    );
    expect(res.status).toBe(201);
    created.push(res.body);
  }
  // A mix of statuses: every 5th approved (processing), every 7th of the rest cancelled.
  for (let i = 0; i < TOTAL; i++) {
    if (i % 5 === 0) {
      const res = await merchant.post(`/v1/payout_intents/${created[i].id}/approve`, {});
      expect(res.status).toBe(202);
      created[i] = res.body;
    } else if (i % 7 === 0) {
      const res = await merchant.post(`/v1/payout_intents/${created[i].id}/cancel`, { reason: 'listing test' });
      expect(res.status).toBe(202);
      created[i] = res.body;
    }
  }
  expectedOrder = [...created].sort(newestFirst);
}, 60000);

afterAll(async () => {
  await srv?.close();
});

describe('REST GET /v1/payout_intents paging', () => {
  test('60 records page as 25 + 25 + 10, newest first, no duplicate or gap', async () => {
    const { pages, ids } = await pageAll(merchant, {}, 25);
    expect(pages.map((p) => p.data.length)).toEqual([25, 25, 10]);
    expect(pages[0].has_more).toBe(true);
    expect(pages[1].has_more).toBe(true);
    expect(pages[2].has_more).toBe(false);
    expect(pages[2].next_cursor).toBeNull();
    expect(new Set(ids).size).toBe(TOTAL);
    expect(ids).toEqual(expectedOrder.map((r) => r.id));
    // Ids are time-ordered, so newest first is also the reverse of creation order.
    expect(ids).toEqual([...created].reverse().map((r) => r.id));
    // Each element is the full record, as GET /v1/payout_intents/:id returns it.
    const all = pages.flatMap((p) => p.data);
    const byId = new Map(created.map((r) => [r.id, r]));
    for (const record of all) expect(record).toEqual(byId.get(record.id));
  });

  test('the default page size is 25 and the envelope has exactly data, has_more, next_cursor', async () => {
    const res = await merchant.get('/v1/payout_intents');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(res.body.data).toHaveLength(25);
    expect(res.body.data.map((r: any) => r.id)).toEqual(expectedOrder.slice(0, 25).map((r) => r.id));
  });

  test('limit=100 returns everything in one page with has_more false and next_cursor null', async () => {
    const res = await merchant.get('/v1/payout_intents?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: any) => r.id)).toEqual(expectedOrder.map((r) => r.id));
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
  });

  test('a page that ends exactly at the last record says has_more false', async () => {
    const { pages } = await pageAll(merchant, {}, 30);
    expect(pages.map((p) => p.data.length)).toEqual([30, 30]);
    expect(pages[1].has_more).toBe(false);
    expect(pages[1].next_cursor).toBeNull();
  });

  test('records sharing one created_at are ordered by id descending and paged without loss (keyset tie-break)', async () => {
    const m = await srv.merchant();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await m.post('/v1/payout_intents', payoutBody());
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    // Same millisecond for all of them: only the id can order them.
    const instant = Date.parse('2030-01-02T03:04:05.678Z');
    await srv.app.db.ds.query('UPDATE payout_intents SET created_at = ? WHERE merchant_id = ?', [instant, m.merchantId]);
    const { pages, ids: listed } = await pageAll(m, {}, 2);
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 2, 1]);
    expect(listed).toEqual([...ids].sort().reverse());
    expect(pages[0].data[0].created_at).toBe('2030-01-02T03:04:05.678Z');
  });
});

describe('REST filters', () => {
  test('status list, country and currency combined, re-sent with every page', async () => {
    const filters = { status: 'requires_approval,cancelled', country: 'TH', currency: 'THB' };
    const expected = expectedOrder.filter((r) => ['requires_approval', 'cancelled'].includes(r.status) && r.country === 'TH' && r.currency === 'THB');
    expect(expected.length).toBeGreaterThan(10);
    expect(new Set(expected.map((r) => r.status))).toEqual(new Set(['requires_approval', 'cancelled']));
    const { pages, ids } = await pageAll(merchant, filters, 4);
    expect(ids).toEqual(expected.map((r) => r.id));
    expect(pages.length).toBe(Math.ceil(expected.length / 4));
    for (const record of pages.flatMap((p) => p.data)) {
      expect(['requires_approval', 'cancelled']).toContain(record.status);
      expect(record.country).toBe('TH');
      expect(record.currency).toBe('THB');
    }
  });

  test('a single status', async () => {
    const res = await merchant.get('/v1/payout_intents?status=processing&limit=100');
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: any) => r.id)).toEqual(expectedOrder.filter((r) => r.status === 'processing').map((r) => r.id));
    expect(res.body.data.length).toBe(12);
  });

  test('a status that no record has gives an empty last page', async () => {
    const res = await merchant.get('/v1/payout_intents?status=succeeded');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  test('currency and country alone', async () => {
    const usd = await pageAll(merchant, { currency: 'USD' }, 7);
    expect(usd.ids).toEqual(expectedOrder.filter((r) => r.currency === 'USD').map((r) => r.id));
    const sg = await pageAll(merchant, { country: 'SG' }, 11);
    expect(sg.ids).toEqual(expectedOrder.filter((r) => r.country === 'SG').map((r) => r.id));
  });

  test('merchant_reference is an exact match', async () => {
    const target = created[17];
    const exact = await merchant.get(`/v1/payout_intents${qs({ merchant_reference: target.merchant_reference })}`);
    expect(exact.status).toBe(200);
    expect(exact.body.data.map((r: any) => r.id)).toEqual([target.id]);
    const prefix = await merchant.get(`/v1/payout_intents${qs({ merchant_reference: target.merchant_reference.slice(0, -1) })}`);
    expect(prefix.status).toBe(200);
    expect(prefix.body.data).toEqual([]);
    const wildcard = await merchant.get(`/v1/payout_intents${qs({ merchant_reference: 'list-%' })}`);
    expect(wildcard.status).toBe(200);
    expect(wildcard.body.data).toEqual([]);
  });

  test('created_gte is inclusive and created_lt is exclusive', async () => {
    const lower = expectedOrder[45];
    const upper = expectedOrder[12];
    const gte = Date.parse(lower.created_at);
    const lt = Date.parse(upper.created_at);
    const expected = expectedOrder.filter((r) => Date.parse(r.created_at) >= gte && Date.parse(r.created_at) < lt);
    const { ids } = await pageAll(merchant, { created_gte: lower.created_at, created_lt: upper.created_at }, 10);
    expect(ids).toEqual(expected.map((r) => r.id));
    expect(ids).toContain(lower.id);
    expect(ids).not.toContain(upper.id);

    // Exactly one instant: gte = lt is empty; gte alone at the newest record's instant includes it.
    const same = await merchant.get(`/v1/payout_intents${qs({ created_gte: upper.created_at, created_lt: upper.created_at })}`);
    expect(same.body.data).toEqual([]);
    const newest = expectedOrder[0];
    const fromNewest = await merchant.get(`/v1/payout_intents${qs({ created_gte: newest.created_at, limit: '100' })}`);
    expect(fromNewest.body.data.map((r: any) => r.id)).toContain(newest.id);
    const beforeOldest = await merchant.get(`/v1/payout_intents${qs({ created_lt: expectedOrder[TOTAL - 1].created_at })}`);
    expect(beforeOldest.body.data.map((r: any) => r.id)).not.toContain(expectedOrder[TOTAL - 1].id);
  });

  test('date bounds accept any offset and sub-millisecond fractions keep bounds exact', async () => {
    const record = expectedOrder[30];
    const t = Date.parse(record.created_at);
    const plus7 = new Date(t + 7 * 3600_000).toISOString().replace('Z', '+07:00');
    const viaOffset = await merchant.get(`/v1/payout_intents${qs({ created_gte: plus7, created_lt: plus7, limit: '100' })}`);
    expect(viaOffset.status).toBe(200);
    expect(viaOffset.body.data).toEqual([]);
    const gteOffset = await merchant.get(`/v1/payout_intents${qs({ created_gte: plus7, limit: '100' })}`);
    const gteZ = await merchant.get(`/v1/payout_intents${qs({ created_gte: record.created_at, limit: '100' })}`);
    expect(gteOffset.body.data.map((r: any) => r.id)).toEqual(gteZ.body.data.map((r: any) => r.id));
    expect(gteZ.body.data.map((r: any) => r.id)).toContain(record.id);

    // T.000001: created_lt includes records at T; created_gte excludes them.
    const micro = record.created_at.replace('Z', '001Z');
    const lt = await merchant.get(`/v1/payout_intents${qs({ created_lt: micro, limit: '100' })}`);
    expect(lt.body.data.map((r: any) => r.id)).toContain(record.id);
    const gte = await merchant.get(`/v1/payout_intents${qs({ created_gte: micro, limit: '100' })}`);
    expect(gte.body.data.map((r: any) => r.id)).not.toContain(record.id);
  });
});

describe('REST parameter validation', () => {
  test.each(['0', '101', 'abc', '', '-1', '1.5', '1e1', ' 5'])('limit=%p is 400 validation_error with param limit', async (limit) => {
    await expect400(merchant, `/v1/payout_intents?limit=${encodeURIComponent(limit)}`, 'limit');
  });

  test('limit given twice is 400 param limit', async () => {
    await expect400(merchant, '/v1/payout_intents?limit=5&limit=6', 'limit');
  });

  test('limit 1 and 100 are accepted', async () => {
    expect((await merchant.get('/v1/payout_intents?limit=1')).body.data).toHaveLength(1);
    expect((await merchant.get('/v1/payout_intents?limit=100')).body.data).toHaveLength(TOTAL);
  });

  test('an unknown query parameter is 400 naming it', async () => {
    await expect400(merchant, '/v1/payout_intents?page=2', 'page');
    await expect400(merchant, '/v1/payout_intents?limit=5&starting_after=po_x', 'starting_after');
    await expect400(merchant, '/v1/payout_intents?Status=processing', 'Status');
  });

  test('malformed filters name their parameter', async () => {
    await expect400(merchant, '/v1/payout_intents?status=bogus', 'status');
    await expect400(merchant, '/v1/payout_intents?status=processing,bogus', 'status');
    await expect400(merchant, '/v1/payout_intents?country=th', 'country');
    await expect400(merchant, '/v1/payout_intents?country=THA', 'country');
    await expect400(merchant, '/v1/payout_intents?currency=TH', 'currency');
    await expect400(merchant, '/v1/payout_intents?currency=thb', 'currency');
    await expect400(merchant, '/v1/payout_intents?merchant_reference=', 'merchant_reference');
    await expect400(merchant, `/v1/payout_intents?merchant_reference=${'r'.repeat(257)}`, 'merchant_reference');
    await expect400(merchant, '/v1/payout_intents?created_gte=2024-01-01', 'created_gte');
    await expect400(merchant, '/v1/payout_intents?created_gte=2024-01-01T00:00:00', 'created_gte');
    await expect400(merchant, '/v1/payout_intents?created_lt=yesterday', 'created_lt');
    await expect400(merchant, `/v1/payout_intents?created_lt=${encodeURIComponent('2024-13-01T00:00:00Z')}`, 'created_lt');
  });

  test('a merchant_reference of 256 characters is accepted', async () => {
    const res = await merchant.get(`/v1/payout_intents?merchant_reference=${'r'.repeat(256)}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  test('a malformed cursor is 400 param cursor', async () => {
    await expect400(merchant, '/v1/payout_intents?cursor=not-a-cursor', 'cursor');
    await expect400(merchant, '/v1/payout_intents?cursor=%21%21%21', 'cursor');
    await expect400(merchant, '/v1/payout_intents?cursor=', 'cursor');
    await expect400(merchant, `/v1/payout_intents?cursor=${Buffer.from('{"t":1}').toString('base64url')}`, 'cursor');
    await expect400(merchant, `/v1/payout_intents?cursor=${Buffer.from('[1,2,3]').toString('base64url')}`, 'cursor');
  });

  test('environment=live is accepted and ignored: the key decides the environment', async () => {
    const live = await srv.keyFor(merchant.merchantId, 'live');
    await srv.fund(live, 'THB', '100000');
    const liveRecord = await live.post('/v1/payout_intents', payoutBody());
    expect(liveRecord.status).toBe(201);
    expect(liveRecord.body.environment).toBe('live');

    const plain = await merchant.get('/v1/payout_intents?limit=100');
    const withEnv = await merchant.get('/v1/payout_intents?limit=100&environment=live');
    expect(withEnv.status).toBe(200);
    expect(withEnv.body).toEqual(plain.body);
    expect(withEnv.body.data.every((r: any) => r.environment === 'test')).toBe(true);
    expect(withEnv.body.data.map((r: any) => r.id)).not.toContain(liveRecord.body.id);

    const liveList = await live.get('/v1/payout_intents?environment=test');
    expect(liveList.status).toBe(200);
    expect(liveList.body.data.map((r: any) => r.id)).toEqual([liveRecord.body.id]);
  });
});

describe('cursor scoping', () => {
  let cursor: string;

  beforeAll(async () => {
    const res = await merchant.get('/v1/payout_intents?limit=3');
    cursor = res.body.next_cursor;
    expect(typeof cursor).toBe('string');
  });

  test('control: the cursor, and the same cursor decoded and re-encoded, continue the list', async () => {
    const next = await merchant.get(`/v1/payout_intents?limit=3&cursor=${cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.data.map((r: any) => r.id)).toEqual(expectedOrder.slice(3, 6).map((r) => r.id));
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    expect(parts[1]).toBe('payout_intent');
    const reencoded = tamperCursor(cursor, 1, 'payout_intent');
    const again = await merchant.get(`/v1/payout_intents?limit=3&cursor=${reencoded}`);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(next.body.data);
  });

  test('a cursor of another merchant is 400 param cursor', async () => {
    const other = await srv.merchant();
    for (let i = 0; i < 2; i++) expect((await other.post('/v1/payout_intents', payoutBody())).status).toBe(201);
    const theirs = await other.get('/v1/payout_intents?limit=1');
    expect(typeof theirs.body.next_cursor).toBe('string');
    await expect400(merchant, `/v1/payout_intents?cursor=${theirs.body.next_cursor}`, 'cursor');
    // ...and ours is refused to them.
    await expect400(other, `/v1/payout_intents?cursor=${cursor}`, 'cursor');
  });

  test('a cursor of the other environment of the same merchant is 400 param cursor', async () => {
    const live = await srv.keyFor(merchant.merchantId, 'live');
    await expect400(live, `/v1/payout_intents?cursor=${cursor}`, 'cursor');
  });

  test('a cursor of another API key of the same merchant and environment works', async () => {
    const second = await srv.keyFor(merchant.merchantId, 'test');
    const res = await second.get(`/v1/payout_intents?limit=3&cursor=${cursor}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: any) => r.id)).toEqual(expectedOrder.slice(3, 6).map((r) => r.id));
  });

  test('a cursor of another resource (forged payment_intent, real topup_intent) is 400 param cursor', async () => {
    await expect400(merchant, `/v1/payout_intents?cursor=${tamperCursor(cursor, 1, 'payment_intent')}`, 'cursor');
    const topup1 = await merchant.post(
      '/v1/topup_intents',
      { amount: '500', currency: 'THB', country: 'TH', merchant_reference: ref('tu') },
      { idempotencyKey: ref('idk') },
    );
    expect(topup1.status).toBe(201);
    const topups = await merchant.get('/v1/topup_intents?limit=1');
    expect(typeof topups.body.next_cursor).toBe('string');
    await expect400(merchant, `/v1/payout_intents?cursor=${topups.body.next_cursor}`, 'cursor');
    // And a payout cursor is refused by the topup list.
    const res = await merchant.get(`/v1/topup_intents?cursor=${cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('cursor');
  });

  test('a cursor with a forged version, signature, position or position type is 400', async () => {
    await expect400(merchant, `/v1/payout_intents?cursor=${tamperCursor(cursor, 0, 1)}`, 'cursor');
    await expect400(merchant, `/v1/payout_intents?cursor=${tamperCursor(cursor, 4, 'A'.repeat(22))}`, 'cursor');
    await expect400(merchant, `/v1/payout_intents?cursor=${tamperCursor(cursor, 3, 'po_00000000000000000000000000')}`, 'cursor');
    await expect400(merchant, `/v1/payout_intents?cursor=${tamperCursor(cursor, 2, 'yesterday')}`, 'cursor');
    await expect400(merchant, `/v1/payout_intents?cursor=${tamperCursor(cursor, 4, 42)}`, 'cursor');
  });
});

const PAGE_QUERY = `query Page($first: Int, $after: String, $filter: PayoutIntentFilter) {
  payoutIntents(first: $first, after: $after, filter: $filter) {
    edges { cursor node { id status amount currency country merchantReference createdAt } }
    nodes { id }
    pageInfo { hasNextPage endCursor }
  }
}`;

async function gqlPageAll(client: Client, first: number, filter?: Record<string, unknown>) {
  const pages: any[] = [];
  let after: string | undefined;
  for (let i = 0; i < 100; i++) {
    const res = await client.gql(PAGE_QUERY, { first, after, filter });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const conn = res.body.data!.payoutIntents;
    pages.push(conn);
    if (!conn.pageInfo.hasNextPage) break;
    after = conn.pageInfo.endCursor;
  }
  return { pages, ids: pages.flatMap((p) => p.edges.map((e: any) => e.node.id)) };
}

describe('GraphQL payoutIntents connection', () => {
  test('pages 25 + 25 + 10 with first/after, in the REST order', async () => {
    const { pages, ids } = await gqlPageAll(merchant, 25);
    expect(pages.map((p) => p.edges.length)).toEqual([25, 25, 10]);
    expect(pages.map((p) => p.pageInfo.hasNextPage)).toEqual([true, true, false]);
    expect(ids).toEqual(expectedOrder.map((r) => r.id));
    for (const p of pages) {
      expect(p.nodes.map((n: any) => n.id)).toEqual(p.edges.map((e: any) => e.node.id));
      expect(p.pageInfo.endCursor).toBe(p.edges[p.edges.length - 1].cursor);
    }
    // Any edge's cursor resumes right after that edge.
    const edge = pages[0].edges[9];
    const resumed = await merchant.gql(PAGE_QUERY, { first: 2, after: edge.cursor });
    expect(resumed.body.data.payoutIntents.edges.map((e: any) => e.node.id)).toEqual(expectedOrder.slice(10, 12).map((r) => r.id));
    // Nodes carry UPPER_CASE enum values and string amounts.
    const first = pages[0].edges[0].node;
    expect(first.status).toBe(expectedOrder[0].status.toUpperCase());
    expect(first.amount).toBe(expectedOrder[0].amount);
    expect(typeof first.amount).toBe('string');
  });

  test('first defaults to 25', async () => {
    const res = await merchant.gql('{ payoutIntents { nodes { id } pageInfo { hasNextPage } } }');
    expect(res.body.data.payoutIntents.nodes).toHaveLength(25);
    expect(res.body.data.payoutIntents.pageInfo.hasNextPage).toBe(true);
  });

  test('REST cursors and GraphQL cursors are interchangeable', async () => {
    const rest = await merchant.get('/v1/payout_intents?limit=5');
    const res = await merchant.gql(PAGE_QUERY, { first: 5, after: rest.body.next_cursor });
    expect(res.body.data.payoutIntents.edges.map((e: any) => e.node.id)).toEqual(expectedOrder.slice(5, 10).map((r) => r.id));
  });

  test('filter input has the REST filters meaning, re-sent each page', async () => {
    const filter = { status: ['REQUIRES_APPROVAL', 'CANCELLED'], country: 'TH', currency: 'THB' };
    const expected = expectedOrder.filter((r) => ['requires_approval', 'cancelled'].includes(r.status) && r.country === 'TH' && r.currency === 'THB');
    const { ids } = await gqlPageAll(merchant, 4, filter);
    expect(ids).toEqual(expected.map((r) => r.id));

    const lower = expectedOrder[40];
    const upper = expectedOrder[20];
    const bounded = await gqlPageAll(merchant, 100, { createdGte: lower.created_at, createdLt: upper.created_at });
    const inRange = expectedOrder.filter(
      (r) => Date.parse(r.created_at) >= Date.parse(lower.created_at) && Date.parse(r.created_at) < Date.parse(upper.created_at),
    );
    expect(bounded.ids).toEqual(inRange.map((r) => r.id));
    expect(bounded.ids).toContain(lower.id);
    expect(bounded.ids).not.toContain(upper.id);

    const byRef = await gqlPageAll(merchant, 10, { merchantReference: created[3].merchant_reference });
    expect(byRef.ids).toEqual([created[3].id]);
  });

  test('an empty result has no edges, hasNextPage false and a null endCursor', async () => {
    const res = await merchant.gql(PAGE_QUERY, { first: 10, filter: { status: ['SUCCEEDED'] } });
    expect(res.body.data.payoutIntents).toEqual({ edges: [], nodes: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });

  test.each([0, 101, -1])('first: %p is validation_error naming first', async (first) => {
    const res = await merchant.gql(PAGE_QUERY, { first });
    expect(res.body.data).toEqual({ payoutIntents: null });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0].extensions.code).toBe('validation_error');
    expect(res.body.errors![0].extensions.param).toBe('first');
  });

  test('first of the wrong type is validation_error', async () => {
    const res = await merchant.gql('{ payoutIntents(first: "abc") { nodes { id } } }');
    expect(res.body.errors![0].extensions.code).toBe('validation_error');
  });

  test('a bad or foreign after is validation_error naming after', async () => {
    const bad = await merchant.gql(PAGE_QUERY, { first: 5, after: 'garbage' });
    expect(bad.body.errors![0].extensions.code).toBe('validation_error');
    expect(bad.body.errors![0].extensions.param).toBe('after');
    const other = await srv.merchant();
    const res = await other.gql(PAGE_QUERY, { first: 5, after: (await merchant.get('/v1/payout_intents?limit=1')).body.next_cursor });
    expect(res.body.errors![0].extensions.code).toBe('validation_error');
    expect(res.body.errors![0].extensions.param).toBe('after');
  });

  test('a bad filter value is validation_error naming the filter field', async () => {
    const res = await merchant.gql(PAGE_QUERY, { first: 5, filter: { country: 'tha' } });
    expect(res.body.errors![0].extensions.code).toBe('validation_error');
    expect(res.body.errors![0].extensions.param).toBe('filter.country');
    const badStatus = await merchant.gql(PAGE_QUERY, { first: 5, filter: { status: ['requires_approval'] } });
    expect(badStatus.body.errors![0].extensions.code).toBe('validation_error');
  });
});

describe('SQL statements per list request do not grow with the page size', () => {
  async function statementsOf(fn: () => Promise<unknown>): Promise<number> {
    const before = srv.app.db.queryCount;
    await fn();
    return srv.app.db.queryCount - before;
  }

  test('the counter counts (sanity)', async () => {
    expect(await statementsOf(() => merchant.get('/v1/payout_intents?limit=1'))).toBeGreaterThan(0);
  });

  test('REST list: limit=1 and limit=100 run the same statements (one list query; the key is kept in memory)', async () => {
    const one = await statementsOf(async () => expect((await merchant.get('/v1/payout_intents?limit=1')).body.data).toHaveLength(1));
    const hundred = await statementsOf(async () => expect((await merchant.get('/v1/payout_intents?limit=100')).body.data).toHaveLength(TOTAL));
    expect(hundred).toBe(one);
    expect(one).toBe(1);
  });

  test('REST list with filters and a cursor: still the same count', async () => {
    const first = await merchant.get('/v1/payout_intents?limit=10&status=requires_approval,processing');
    const n = await statementsOf(() => merchant.get(`/v1/payout_intents?limit=10&status=requires_approval,processing&cursor=${first.body.next_cursor}`));
    expect(n).toBe(1);
  });

  test('GraphQL payoutIntents: first 1 and first 100 run the same statements', async () => {
    const one = await statementsOf(async () => expect((await merchant.gql(PAGE_QUERY, { first: 1 })).body.data.payoutIntents.edges).toHaveLength(1));
    const hundred = await statementsOf(async () => expect((await merchant.gql(PAGE_QUERY, { first: 100 })).body.data.payoutIntents.edges).toHaveLength(TOTAL));
    expect(hundred).toBe(one);
    expect(one).toBe(1);
  });

  test('DataLoader: five aliased payoutIntent(id:) lookups cost what one does', async () => {
    const ids = expectedOrder.slice(0, 5).map((r) => r.id);
    const single = `{ a: payoutIntent(id: "${ids[0]}") { id status } }`;
    const five = `{ ${ids.map((id, i) => `p${i}: payoutIntent(id: "${id}") { id status recipient { bankCode } }`).join(' ')} }`;
    let fiveBody: any;
    const one = await statementsOf(async () => expect((await merchant.gql(single)).body.data.a.id).toBe(ids[0]));
    const many = await statementsOf(async () => {
      fiveBody = (await merchant.gql(five)).body;
    });
    expect(fiveBody.errors).toBeUndefined();
    expect(ids.map((_, i) => fiveBody.data[`p${i}`].id)).toEqual(ids);
    expect(many).toBe(one);
    expect(one).toBe(1);
  });
});
