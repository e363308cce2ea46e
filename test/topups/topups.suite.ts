/**
 * Topup intents: create with a required Idempotency-Key, bank-transfer
 * instructions, validation, get/list/filters, GraphQL, succeed/fail/expire, duplicate
 * merchant_reference (also under parallel requests), test helpers for live keys, and
 * "every transition is one transaction with its event row and its ledger rows".
 */
import { randomUUID } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import { Client, ref } from '../helpers/client';
import { balanceOf, is, topupBody, waitForStatus } from '../helpers/fixtures';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function createTopup(c: Client, body: Record<string, unknown> = topupBody(), key: string = randomUUID()) {
  return c.post('/v1/topup_intents', body, { idempotencyKey: key });
}

const available = async (c: Client, currency = 'THB'): Promise<string> => (await balanceOf(c, currency)).available;

async function sql(query: string, params: unknown[] = []): Promise<any[]> {
  return srv.app.db.ds.query(query, params);
}

async function eventsOf(resourceId: string): Promise<{ type: string; data: string }[]> {
  return sql('SELECT type, data FROM events WHERE resource_id = ? ORDER BY id', [resourceId]);
}

async function ledgerOf(sourceId: string): Promise<{ bucket: string; amount: string; entry_type: string; currency: string }[]> {
  const rows = await sql('SELECT bucket, amount, entry_type, currency FROM ledger_entries WHERE source_id = ? ORDER BY id', [sourceId]);
  return rows.map((r) => ({ ...r, amount: String(r.amount) }));
}

describe('POST /v1/topup_intents', () => {
  test('requires an Idempotency-Key: 400 idempotency_key_required, nothing created', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const body = topupBody();
    const res = await c.post('/v1/topup_intents', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('idempotency_key_required');
    expect(typeof res.body.error.message).toBe('string');
    const list = await c.get(`/v1/topup_intents?merchant_reference=${encodeURIComponent(body.merchant_reference as string)}`);
    expect(list.body.data).toEqual([]);
  });

  test('201 in requires_action with bank-transfer instructions; the full record shape', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const body = topupBody({ amount: '0012500' });
    const res = await createTopup(c, body);
    expect(res.status).toBe(201);
    const t = res.body;
    expect(Object.keys(t).sort()).toEqual([
      'amount',
      'country',
      'created_at',
      'currency',
      'environment',
      'failure_code',
      'failure_message',
      'id',
      'merchant_reference',
      'next_action',
      'object',
      'status',
      'updated_at',
    ]);
    expect(t).toMatchObject({
      object: 'topup_intent',
      amount: '12500',
      currency: 'THB',
      country: 'TH',
      environment: 'test',
      status: 'requires_action',
      merchant_reference: body.merchant_reference,
      failure_code: null,
      failure_message: null,
    });
    expect(t.id).toMatch(/^tu_/);
    expect(t.created_at).toMatch(ISO_MS);
    expect(t.updated_at).toMatch(ISO_MS);
    expect(t.next_action.type).toBe('display_bank_transfer_instructions');
    expect(t.next_action.expires_at).toMatch(ISO_MS);
    expect(new Date(t.next_action.expires_at).getTime()).toBeGreaterThan(Date.now());
    const details = t.next_action.display_bank_transfer_instructions;
    expect(details).toMatchObject({ amount: '12500', currency: 'THB' });
    for (const field of ['bank', 'bank_name', 'account_number', 'account_name', 'reference']) {
      expect(typeof details[field]).toBe('string');
      expect(details[field].length).toBeGreaterThan(0);
    }
    // A created topup moves no money.
    expect(await available(c)).toBe('0');
    expect((await c.get(`/v1/topup_intents/${t.id}`)).body).toEqual(t);
  });

  test('same Idempotency-Key and body replays; a different body under it is 409 idempotency_conflict', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const key = randomUUID();
    const body = topupBody();
    const first = await createTopup(c, body, key);
    const replay = await createTopup(c, body, key);
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    const conflict = await createTopup(c, { ...body, amount: '5001' }, key);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('idempotency_conflict');
  });

  test.each([
    ['missing amount', { amount: undefined }, 'amount'],
    ['numeric amount', { amount: 100 }, 'amount'],
    ['zero amount', { amount: '000' }, 'amount'],
    ['negative amount', { amount: '-5' }, 'amount'],
    ['decimal amount', { amount: '10.5' }, 'amount'],
    ['31-digit amount', { amount: '1' + '0'.repeat(30) }, 'amount'],
    ['bad currency', { currency: 'TH1' }, 'currency'],
    ['missing currency', { currency: undefined }, 'currency'],
    ['bad country', { country: 'THA' }, 'country'],
    ['missing merchant_reference', { merchant_reference: undefined }, 'merchant_reference'],
    ['empty merchant_reference', { merchant_reference: '' }, 'merchant_reference'],
    ['too long merchant_reference', { merchant_reference: 'x'.repeat(257) }, 'merchant_reference'],
    ['unknown field', { colour: 'red' }, 'colour'],
  ])('validation: %s -> 400 validation_error with param', async (_name, overrides, param) => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const body: Record<string, unknown> = topupBody(overrides);
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    const res = await createTopup(c, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param });
    expect((await c.get('/v1/topup_intents')).body.data).toEqual([]);
  });

  test('a body that is not an object is 400 validation_error', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const res = await c.post('/v1/topup_intents', ['x'], { idempotencyKey: randomUUID() });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });

  test('the environment comes from the key, never from the body', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const res = await createTopup(c, topupBody({ environment: 'live' }));
    expect(res.status).toBe(201);
    expect(res.body.environment).toBe('test');
  });
});

describe('merchant_reference', () => {
  test('reuse gives 409 duplicate_merchant_reference, whatever the body', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const body = topupBody();
    expect((await createTopup(c, body)).status).toBe(201);
    const same = await createTopup(c, body);
    expect(same.status).toBe(409);
    expect(same.body.error.code).toBe('duplicate_merchant_reference');
    const changed = await createTopup(c, { ...body, amount: '7' });
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('duplicate_merchant_reference');
    // Even after the first one settled.
    const [first] = (await c.get(`/v1/topup_intents?merchant_reference=${String(body.merchant_reference)}`)).body.data;
    await c.post(`/v1/test_helpers/topup_intents/${first.id}/succeed`, {});
    expect((await createTopup(c, body)).body.error.code).toBe('duplicate_merchant_reference');
  });

  test('the same reference is free for another merchant and for the other environment', async () => {
    const a = await srv.merchant(undefined, 'test', { fund: false });
    const b = await srv.merchant(undefined, 'test', { fund: false });
    const aLive = await srv.keyFor(a.merchantId, 'live');
    const body = topupBody();
    expect((await createTopup(a, body)).status).toBe(201);
    expect((await createTopup(b, body)).status).toBe(201);
    expect((await createTopup(aLive, body)).status).toBe(201);
  });

  test('10 parallel creates with one reference and different Idempotency-Keys: exactly one 201', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const body = topupBody();
    const results = await Promise.all(Array.from({ length: 10 }, () => createTopup(c, body)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('duplicate_merchant_reference');
    }
    const list = await c.get(`/v1/topup_intents?merchant_reference=${String(body.merchant_reference)}`);
    expect(list.body.data).toHaveLength(1);
    expect((await eventsOf(list.body.data[0].id)).map((e) => e.type)).toEqual(['topup_intent.created']);
  });
});

describe('get and list', () => {
  test('get is scoped to merchant and environment: foreign, other-environment and unknown ids are 404', async () => {
    const a = await srv.merchant(undefined, 'test', { fund: false });
    const b = await srv.merchant(undefined, 'test', { fund: false });
    const aLive = await srv.keyFor(a.merchantId, 'live');
    const t = (await createTopup(a)).body;
    for (const [client, id] of [
      [b, t.id],
      [aLive, t.id],
      [a, 'tu_doesnotexist'],
    ] as const) {
      const res = await client.get(`/v1/topup_intents/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await b.get('/v1/topup_intents')).body.data).toEqual([]);
    expect((await aLive.get('/v1/topup_intents')).body.data).toEqual([]);
  });

  test('list: newest first, pagination by cursor, and filters', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const created: any[] = [];
    for (const [currency, country] of [
      ['THB', 'TH'],
      ['USD', 'US'],
      ['THB', 'TH'],
      ['SGD', 'SG'],
      ['THB', 'TH'],
    ]) {
      created.push((await createTopup(c, topupBody({ currency, country }))).body);
    }
    await c.post(`/v1/test_helpers/topup_intents/${created[0].id}/succeed`, {});
    await c.post(`/v1/test_helpers/topup_intents/${created[1].id}/fail`, {});

    const all = await c.get('/v1/topup_intents');
    expect(all.status).toBe(200);
    expect(all.body.data.map((t: any) => t.id)).toEqual(created.map((t) => t.id).reverse());
    expect(all.body.has_more).toBe(false);
    expect(all.body.next_cursor).toBeNull();

    const p1 = await c.get('/v1/topup_intents?limit=2');
    expect(p1.body.data).toHaveLength(2);
    expect(p1.body.has_more).toBe(true);
    const p2 = await c.get(`/v1/topup_intents?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`);
    const p3 = await c.get(`/v1/topup_intents?limit=2&cursor=${encodeURIComponent(p2.body.next_cursor)}`);
    expect([...p1.body.data, ...p2.body.data, ...p3.body.data].map((t: any) => t.id)).toEqual(created.map((t) => t.id).reverse());
    expect(p3.body.has_more).toBe(false);

    const ids = (res: any) => res.body.data.map((t: any) => t.id).sort();
    expect(ids(await c.get('/v1/topup_intents?status=succeeded'))).toEqual([created[0].id]);
    expect(ids(await c.get('/v1/topup_intents?status=succeeded,failed'))).toEqual([created[0].id, created[1].id].sort());
    expect(ids(await c.get('/v1/topup_intents?status=requires_action'))).toEqual([created[2].id, created[3].id, created[4].id].sort());
    expect(ids(await c.get('/v1/topup_intents?currency=THB'))).toEqual([created[0].id, created[2].id, created[4].id].sort());
    expect(ids(await c.get('/v1/topup_intents?country=SG'))).toEqual([created[3].id]);
    expect(ids(await c.get(`/v1/topup_intents?merchant_reference=${created[2].merchant_reference}`))).toEqual([created[2].id]);
    const bad = await c.get('/v1/topup_intents?status=paid');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
  });
});

describe('settlement', () => {
  test('succeed credits available exactly once, in one transaction with one event and one ledger row', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const t = (await createTopup(c, topupBody({ amount: '250000' }))).body;
    expect(await eventsOf(t.id)).toHaveLength(1);
    expect(await ledgerOf(t.id)).toEqual([]);

    const res = await c.post(`/v1/test_helpers/topup_intents/${t.id}/succeed`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: t.id, status: 'succeeded', next_action: null, failure_code: null, failure_message: null });
    expect(await available(c)).toBe('250000');
    expect((await eventsOf(t.id)).map((e) => e.type)).toEqual(['topup_intent.created', 'topup_intent.succeeded']);
    const evt = (await eventsOf(t.id))[1];
    expect(JSON.parse(evt.data)).toEqual(res.body);
    expect(await ledgerOf(t.id)).toEqual([{ bucket: 'available', amount: '250000', entry_type: 'topup_succeeded', currency: 'THB' }]);

    // A second settlement is refused and moves nothing.
    for (const outcome of ['succeed', 'fail']) {
      const again = await c.post(`/v1/test_helpers/topup_intents/${t.id}/${outcome}`, {});
      expect(again.status).toBe(422);
      expect(again.body.error.code).toBe('invalid_state');
    }
    expect(await available(c)).toBe('250000');
    expect(await eventsOf(t.id)).toHaveLength(2);
    expect(await ledgerOf(t.id)).toHaveLength(1);
  });

  test('fail credits nothing, records one event and no ledger row; failure_code and message default or are taken from the body', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const t1 = (await createTopup(c)).body;
    const r1 = await c.post(`/v1/test_helpers/topup_intents/${t1.id}/fail`, {});
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ status: 'failed', next_action: null });
    expect(typeof r1.body.failure_code).toBe('string');
    expect(typeof r1.body.failure_message).toBe('string');

    const t2 = (await createTopup(c)).body;
    const r2 = await c.post(`/v1/test_helpers/topup_intents/${t2.id}/fail`, {
      failure_code: 'amount_mismatch',
      failure_message: 'Wrong amount.',
    });
    expect(r2.body).toMatchObject({ status: 'failed', failure_code: 'amount_mismatch', failure_message: 'Wrong amount.' });

    const bad = await c.post(`/v1/test_helpers/topup_intents/${(await createTopup(c)).body.id}/fail`, { failure_code: 'Not A Code' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error', param: 'failure_code' });

    expect(await available(c)).toBe('0');
    expect((await c.get('/v1/balances')).body.data).toEqual([]);
    for (const t of [t1, t2]) {
      expect((await eventsOf(t.id)).map((e) => e.type)).toEqual(['topup_intent.created', 'topup_intent.failed']);
      expect(await ledgerOf(t.id)).toEqual([]);
    }
  });

  test('test helpers: unknown or foreign id is 404; a live key gets 404 not_found and nothing moves', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const other = await srv.merchant(undefined, 'test', { fund: false });
    const t = (await createTopup(c)).body;
    expect((await other.post(`/v1/test_helpers/topup_intents/${t.id}/succeed`, {})).status).toBe(404);
    expect((await c.post('/v1/test_helpers/topup_intents/tu_nope/succeed', {})).status).toBe(404);

    const live = await srv.keyFor(c.merchantId, 'live');
    const lt = await createTopup(live);
    expect(lt.status).toBe(201);
    expect(lt.body.environment).toBe('live');
    for (const outcome of ['succeed', 'fail']) {
      const res = await live.post(`/v1/test_helpers/topup_intents/${lt.body.id}/${outcome}`, {});
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await live.get(`/v1/topup_intents/${lt.body.id}`)).body.status).toBe('requires_action');
    expect((await live.get('/v1/balances')).body.data).toEqual([]);
  });

  test('a transition that fails before commit leaves no status change, no event and no ledger row', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const t = (await createTopup(c, topupBody({ amount: '999' }))).body;
    srv.app.idempotency.hooks.beforeCommit = async () => {
      throw new Error('injected crash before commit');
    };
    let res;
    try {
      res = await c.post(`/v1/test_helpers/topup_intents/${t.id}/succeed`, {});
    } finally {
      delete srv.app.idempotency.hooks.beforeCommit;
    }
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect((await c.get(`/v1/topup_intents/${t.id}`)).body.status).toBe('requires_action');
    expect((await eventsOf(t.id)).map((e) => e.type)).toEqual(['topup_intent.created']);
    expect(await ledgerOf(t.id)).toEqual([]);
    expect(await available(c)).toBe('0');
    // The retry then goes through, once.
    expect((await c.post(`/v1/test_helpers/topup_intents/${t.id}/succeed`, {})).status).toBe(200);
    expect(await available(c)).toBe('999');
    expect(await ledgerOf(t.id)).toHaveLength(1);
  });

  test('a create that fails before commit leaves no topup and no event', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const body = topupBody();
    srv.app.idempotency.hooks.beforeCommit = async () => {
      throw new Error('injected crash before commit');
    };
    let res;
    try {
      res = await createTopup(c, body);
    } finally {
      delete srv.app.idempotency.hooks.beforeCommit;
    }
    expect(res.status).toBe(500);
    expect((await c.get('/v1/topup_intents')).body.data).toEqual([]);
    expect(await sql('SELECT id FROM events WHERE merchant_id = ?', [c.merchantId])).toEqual([]);
    // The reference is not burnt by the rolled-back attempt.
    expect((await createTopup(c, body)).status).toBe(201);
  });

  test('parallel succeed and fail on one topup: exactly one wins, credited at most once', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    let expected = 0n;
    for (let i = 0; i < 8; i++) {
      const t = (await createTopup(c, topupBody({ amount: '100' }))).body;
      const results = await Promise.all([
        c.post(`/v1/test_helpers/topup_intents/${t.id}/succeed`, {}),
        c.post(`/v1/test_helpers/topup_intents/${t.id}/fail`, {}),
        c.post(`/v1/test_helpers/topup_intents/${t.id}/succeed`, {}),
      ]);
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error.code).toBe('invalid_state');
      if (ok[0].body.status === 'succeeded') expected += 100n;
      expect(await eventsOf(t.id)).toHaveLength(2);
      expect((await ledgerOf(t.id)).length).toBe(ok[0].body.status === 'succeeded' ? 1 : 0);
    }
    expect(await available(c)).toBe(expected.toString());
  });
});

describe('expiry', () => {
  test('a requires_action topup past expires_at becomes expired with one event, no ledger row, no credit', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const t = (await createTopup(c)).body;
    const settled = (await createTopup(c)).body;
    await c.post(`/v1/test_helpers/topup_intents/${settled.id}/succeed`, {});
    const past = Date.now() - 1000;
    await sql('UPDATE topup_intents SET expires_at = ? WHERE id IN (?, ?)', [past, t.id, settled.id]);
    await srv.app.topups.expireDue();
    const got = await waitForStatus(c, `/v1/topup_intents/${t.id}`, is('expired'));
    expect(got).toMatchObject({ status: 'expired', next_action: null, failure_code: 'expired' });
    expect(typeof got.failure_message).toBe('string');
    expect((await eventsOf(t.id)).map((e) => e.type)).toEqual(['topup_intent.created', 'topup_intent.expired']);
    expect(JSON.parse((await eventsOf(t.id))[1].data)).toEqual(got);
    expect(await ledgerOf(t.id)).toEqual([]);
    // A succeeded topup is not expired, and an expired one cannot be settled.
    expect((await c.get(`/v1/topup_intents/${settled.id}`)).body.status).toBe('succeeded');
    const late = await c.post(`/v1/test_helpers/topup_intents/${t.id}/succeed`, {});
    expect(late.status).toBe(422);
    expect(late.body.error.code).toBe('invalid_state');
    expect(await available(c)).toBe(settled.amount);
    // Expiring again does nothing more.
    await srv.app.topups.expireDue();
    expect(await eventsOf(t.id)).toHaveLength(2);
  });

  test('the scheduler expires due topups on its own', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const t = (await createTopup(c)).body;
    await sql('UPDATE topup_intents SET expires_at = ? WHERE id = ?', [Date.now() - 1, t.id]);
    await waitForStatus(c, `/v1/topup_intents/${t.id}`, is('expired'), 10000, 100);
    expect((await eventsOf(t.id)).map((e) => e.type)).toEqual(['topup_intent.created', 'topup_intent.expired']);
  });

  test('a topup not yet due is left alone', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const t = (await createTopup(c)).body;
    await srv.app.topups.expireDue();
    expect((await c.get(`/v1/topup_intents/${t.id}`)).body.status).toBe('requires_action');
  });
});

describe('GraphQL', () => {
  const CREATE = `mutation($input: CreateTopupIntentInput!) {
    createTopupIntent(input: $input) {
      id amount currency country environment status merchantReference failureCode failureMessage createdAt updatedAt
      nextAction { type expiresAt displayBankTransferInstructions { bank bankName accountNumber accountName reference amount currency } }
    }
  }`;

  test('createTopupIntent requires the Idempotency-Key header', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const res = await c.gql(CREATE, { input: { amount: '100', currency: 'THB', country: 'TH', merchantReference: ref('gtu') } });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('idempotency_key_required');
    expect((await c.get('/v1/topup_intents')).body.data).toEqual([]);
  });

  test('createTopupIntent, topupIntent and topupIntents agree with REST', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const reference = ref('gtu');
    const res = await c.gql(
      CREATE,
      { input: { amount: '000777', currency: 'THB', country: 'TH', merchantReference: reference } },
      { 'idempotency-key': randomUUID() },
    );
    expect(res.body.errors).toBeUndefined();
    const g = res.body.data!.createTopupIntent;
    const rest = (await c.get(`/v1/topup_intents/${g.id}`)).body;
    expect(g).toMatchObject({
      id: rest.id,
      amount: '777',
      currency: 'THB',
      country: 'TH',
      environment: 'TEST',
      status: 'REQUIRES_ACTION',
      merchantReference: reference,
      failureCode: null,
      failureMessage: null,
      createdAt: rest.created_at,
      updatedAt: rest.updated_at,
    });
    expect(g.nextAction).toEqual({
      type: 'DISPLAY_BANK_TRANSFER_INSTRUCTIONS',
      expiresAt: rest.next_action.expires_at,
      displayBankTransferInstructions: {
        bank: rest.next_action.display_bank_transfer_instructions.bank,
        bankName: rest.next_action.display_bank_transfer_instructions.bank_name,
        accountNumber: rest.next_action.display_bank_transfer_instructions.account_number,
        accountName: rest.next_action.display_bank_transfer_instructions.account_name,
        reference: rest.next_action.display_bank_transfer_instructions.reference,
        amount: '777',
        currency: 'THB',
      },
    });

    const dup = await c.gql(
      CREATE,
      { input: { amount: '1', currency: 'THB', country: 'TH', merchantReference: reference } },
      { 'idempotency-key': randomUUID() },
    );
    expect(dup.body.errors?.[0]?.extensions?.code).toBe('duplicate_merchant_reference');

    const invalid = await c.gql(
      CREATE,
      { input: { amount: '1.5', currency: 'THB', country: 'TH', merchantReference: ref('gtu') } },
      { 'idempotency-key': randomUUID() },
    );
    expect(invalid.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', param: 'input.amount' });

    const one = await c.gql('query($id: ID!) { topupIntent(id: $id) { id status amount } }', { id: g.id });
    expect(one.body.data!.topupIntent).toEqual({ id: g.id, status: 'REQUIRES_ACTION', amount: '777' });
    const other = await srv.merchant(undefined, 'test', { fund: false });
    expect((await other.gql('query($id: ID!) { topupIntent(id: $id) { id } }', { id: g.id })).body.data!.topupIntent).toBeNull();

    const second = (await createTopup(c)).body;
    await c.post(`/v1/test_helpers/topup_intents/${second.id}/succeed`, {});
    const list = await c.gql(`{
      all: topupIntents(first: 10) { nodes { id } pageInfo { hasNextPage } }
      done: topupIntents(filter: { status: [SUCCEEDED] }) { edges { cursor node { id status } } }
      ref: topupIntents(filter: { merchantReference: "${reference}" }) { nodes { id } }
    }`);
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data!.all).toEqual({ nodes: [{ id: second.id }, { id: g.id }], pageInfo: { hasNextPage: false } });
    expect(list.body.data!.done.edges.map((e: any) => e.node)).toEqual([{ id: second.id, status: 'SUCCEEDED' }]);
    expect(list.body.data!.ref.nodes).toEqual([{ id: g.id }]);
  });
});
