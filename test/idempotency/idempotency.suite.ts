/**
 * Idempotency (payments-api.md "Idempotency" + docs/contract.md "Idempotency details"),
 * exercised over real HTTP against a real database. No mocks: faults and holds are
 * injected through app.idempotency.hooks: beforeExecute runs once the key is held, and
 * beforeCommit runs inside the handler's transaction just before it commits.
 */
import { connectMysql } from '../helpers/mysql';
import { startServer, TestServer, usingMysql } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';
import { expectError } from '../helpers/errors';
import { NEEDS_MYSQL, testIf } from '../helpers/skip';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});
afterEach(() => {
  srv.app.idempotency.hooks.beforeCommit = undefined;
  srv.app.idempotency.hooks.beforeExecute = undefined;
});

const CREATE_OP = 'POST /v1/payout_intents';
let keySeq = 0;
const newKey = (prefix = 'idem') => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++keySeq}`;

async function sql<T = any>(query: string, params: unknown[] = []): Promise<T[]> {
  return srv.app.db.read(() => srv.app.db.ds.query(query, params));
}

async function listPayouts(c: Client): Promise<any[]> {
  const res = await c.get('/v1/payout_intents?limit=100');
  expect(res.status).toBe(200);
  return res.body.data;
}

async function eventTypes(resourceId: string): Promise<string[]> {
  const rows = await sql<{ type: string }>('SELECT type FROM events WHERE resource_id = ? ORDER BY created_at, id', [resourceId]);
  return rows.map((r) => r.type);
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('replay', () => {
  test('the same key and body replays the stored status and body byte for byte, with Idempotent-Replayed: true', async () => {
    const c = await srv.merchant();
    const key = newKey();
    const body = payoutBody();
    const first = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const second = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('request-id')).toMatch(/\S/);

    // The replay is the stored answer, not a fresh read: after the payout moves on, the
    // replay still shows it as it was created.
    const approved = await c.post(`/v1/payout_intents/${first.body.id}/approve`, {});
    expect(approved.status).toBe(202);
    const third = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(third.status).toBe(201);
    expect(third.text).toBe(first.text);
    expect(third.body.status).toBe('requires_approval');

    expect((await listPayouts(c)).map((p) => p.id)).toEqual([first.body.id]);
    expect(await eventTypes(first.body.id)).toEqual(['payout_intent.created', 'payout_intent.processing']);
  });

  test('a semantically identical body (other key order, leading zeros, lower case) replays', async () => {
    const c = await srv.merchant();
    const key = newKey();
    const reference = ref('canon');
    const first = await c.post('/v1/payout_intents', payoutBody({ merchant_reference: reference, amount: '2500' }), {
      idempotencyKey: key,
    });
    expect(first.status).toBe(201);
    const equivalent = {
      recipient: { holder_name: 'Somchai Jaidee', account_number: '1234567890', bank_code: 'KBANK', type: 'bank_account' },
      merchant_reference: reference,
      country: 'th',
      currency: 'thb',
      amount: '0002500',
    };
    const again = await c.post('/v1/payout_intents', equivalent, { idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  test('the same key with a different body is 409 idempotency_conflict and changes nothing', async () => {
    const c = await srv.merchant();
    const key = newKey();
    const body = payoutBody();
    const first = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(first.status).toBe(201);
    const conflict = await c.post('/v1/payout_intents', { ...body, amount: '1001' }, { idempotencyKey: key });
    expectError(conflict, 409, 'idempotency_conflict');
    expect(conflict.headers.get('idempotent-replayed')).toBeNull();
    const otherRef = await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: key });
    expectError(otherRef, 409, 'idempotency_conflict');
    expect((await listPayouts(c)).map((p) => p.id)).toEqual([first.body.id]);
    // The original is still replayable after the conflicts.
    const replay = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(replay.text).toBe(first.text);
  });
});

describe('in flight and failures', () => {
  test('a repeat while the original is still in flight is 409 idempotency_conflict with Retry-After', async () => {
    const c = await srv.merchant();
    const key = newKey();
    const body = payoutBody();
    const reached = deferred();
    const release = deferred();
    let held = false;
    // Held after the key is taken and before the handler's transaction opens: SQLite runs one
    // transaction at a time, so holding one open would stall the repeat instead of racing it.
    srv.app.idempotency.hooks.beforeExecute = async (op) => {
      if (op !== CREATE_OP || held) return;
      held = true;
      reached.resolve();
      await release.promise;
    };
    const original = c.post('/v1/payout_intents', body, { idempotencyKey: key });
    try {
      await reached.promise;
      const repeat = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
      expectError(repeat, 409, 'idempotency_conflict');
      expect(repeat.body.error.message).toMatch(/in progress/i);
      expect(repeat.headers.get('retry-after')).toBe('1');
      const changed = await c.post('/v1/payout_intents', { ...body, amount: '7' }, { idempotencyKey: key });
      expectError(changed, 409, 'idempotency_conflict');
    } finally {
      release.resolve();
    }
    const first = await original;
    expect(first.status).toBe(201);
    const after = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.text).toBe(first.text);
    expect(await listPayouts(c)).toHaveLength(1);
  });

  // MariaDB: the claim INSERT runs without waiting for locks, and a gap lock another
  // transaction holds where the new key falls looks to it like the key's own lock. A fresh key
  // must not be answered "in progress" for that (seen under load: about 1 in 5,000 creates).
  testIf(usingMysql(), NEEDS_MYSQL)("a fresh key that meets another transaction's gap lock is served, not answered 409 in progress", async () => {
    const c = await srv.merchant();
    const key = `zz-gap-${newKey()}`;
    const url = new URL((srv.app.config.database as { url: string }).url);
    const conn = await connectMysql(url, url.pathname.slice(1));
    let released = false;
    try {
      await conn.beginTransaction();
      // A locking read of an absent key just above ours: a gap lock over the range the claim inserts into.
      const [rows] = await conn.query('SELECT id FROM idempotency_keys WHERE api_key_id = ? AND idem_key = ? FOR UPDATE', [c.key!.apiKeyId, `${key}~`]);
      expect(rows).toHaveLength(0);
      const create = c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: key });
      await new Promise((r) => setTimeout(r, 300));
      await conn.commit();
      released = true;
      const res = await create;
      expect(res.status).toBe(201);
    } finally {
      if (!released) await conn.rollback().catch(() => undefined);
      await conn.end();
    }
  });

  test('a 5xx releases the key: the retry reaches a fresh handler and exactly one payout exists', async () => {
    const c = await srv.merchant();
    const key = newKey();
    const body = payoutBody();
    let thrown = 0;
    srv.app.idempotency.hooks.beforeCommit = async (op) => {
      if (op === CREATE_OP && thrown === 0) {
        thrown++;
        throw new Error('injected failure before commit');
      }
    };
    const failed = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(thrown).toBe(1);
    expectError(failed, 500, 'internal_error');
    expect(failed.text).not.toMatch(/injected/);
    expect(failed.headers.get('request-id')).toMatch(/^req_/);
    expect(failed.headers.get('idempotent-replayed')).toBeNull();
    // Nothing of the failed attempt survived: no payout, no key row.
    expect(await listPayouts(c)).toHaveLength(0);
    expect(await sql('SELECT id FROM idempotency_keys WHERE api_key_id = ? AND idem_key = ?', [c.key!.apiKeyId, key])).toHaveLength(0);

    const retry = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const payouts = await listPayouts(c);
    expect(payouts.map((p) => p.id)).toEqual([retry.body.id]);
    expect(await eventTypes(retry.body.id)).toEqual(['payout_intent.created']);

    const replay = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(retry.text);
  });

  test('a 4xx is stored and replayed as it was (cancel of an approved payout -> 422)', async () => {
    const c = await srv.merchant();
    const created = await c.post('/v1/payout_intents', payoutBody());
    const id = created.body.id;
    expect((await c.post(`/v1/payout_intents/${id}/approve`, {})).status).toBe(202);
    const key = newKey('cancel');
    const refused = await c.post(`/v1/payout_intents/${id}/cancel`, { reason: 'too late' }, { idempotencyKey: key });
    expectError(refused, 422, 'approval_required');
    expect(refused.body.error.message).toContain('processing');

    // The payout moves on; a fresh answer would now name "succeeded", the stored one still says "processing".
    expect((await c.post(`/v1/test_helpers/payout_intents/${id}/succeed`, {})).status).toBe(200);
    const replay = await c.post(`/v1/payout_intents/${id}/cancel`, { reason: 'too late' }, { idempotencyKey: key });
    expect(replay.status).toBe(422);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(refused.text);
    const fresh = await c.post(`/v1/payout_intents/${id}/cancel`, { reason: 'too late' }, { idempotencyKey: newKey('cancel') });
    expectError(fresh, 422, 'approval_required');
    expect(fresh.body.error.message).toContain('succeeded');
    expect(fresh.text).not.toBe(refused.text);
  });

  test('a validation error sent with a key is stored: the same bad body replays, a corrected body is a 409', async () => {
    const c = await srv.merchant();
    const key = newKey();
    const bad = payoutBody({ amount: '-5' });
    const first = await c.post('/v1/payout_intents', bad, { idempotencyKey: key });
    expectError(first, 400, 'validation_error', 'amount');
    const again = await c.post('/v1/payout_intents', bad, { idempotencyKey: key });
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    const corrected = await c.post('/v1/payout_intents', { ...bad, amount: '5' }, { idempotencyKey: key });
    expectError(corrected, 409, 'idempotency_conflict');
    expect(await listPayouts(c)).toHaveLength(0);
  });
});

describe('key format and scope', () => {
  test('a key of 255 printable characters is accepted; 256 is 400 validation_error on Idempotency-Key and creates nothing', async () => {
    const c = await srv.merchant();
    const k255 = `${'k'.repeat(200)}~ !"#$%&'()*+,-./0123456789:;<=>?@[\\]^_\`{|}`.padEnd(255, 'z');
    expect(k255).toHaveLength(255);
    const ok = await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: k255 });
    expect(ok.status).toBe(201);
    const replay = await c.post('/v1/payout_intents', JSON.parse(JSON.stringify(payoutBody({ merchant_reference: ok.body.merchant_reference }))), {
      idempotencyKey: k255,
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(ok.text);

    const tooLong = await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: 'x'.repeat(256) });
    expectError(tooLong, 400, 'validation_error', 'Idempotency-Key');
    expect(tooLong.headers.get('request-id')).toMatch(/^req_/);
    expect((await listPayouts(c)).map((p) => p.id)).toEqual([ok.body.id]);
  });

  test.each([
    ['a tab', 'abc\tdef'],
    ['a non-ASCII character', 'clé-\u00e9'],
    ['a C1 control character (0x80)', 'abc\u0080def'],
  ])('a key with %s is 400 validation_error on Idempotency-Key', async (_label, key) => {
    const c = await srv.merchant();
    const res = await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: key });
    expectError(res, 400, 'validation_error', 'Idempotency-Key');
    expect(await listPayouts(c)).toHaveLength(0);
  });

  test('the same key under two merchants does not collide', async () => {
    const a = await srv.merchant();
    const b = await srv.merchant();
    const key = newKey('shared');
    const body = payoutBody();
    const ra = await a.post('/v1/payout_intents', body, { idempotencyKey: key });
    const rb = await b.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(ra.body.id).not.toBe(rb.body.id);
    expect((await listPayouts(a)).map((p) => p.id)).toEqual([ra.body.id]);
    expect((await listPayouts(b)).map((p) => p.id)).toEqual([rb.body.id]);
  });

  test('the same key under two API keys of one merchant does not collide', async () => {
    const a = await srv.merchant();
    const a2 = await srv.keyFor(a.merchantId);
    const key = newKey('two-keys');
    const r1 = await a.post('/v1/payout_intents', payoutBody(), { idempotencyKey: key });
    const r2 = await a2.post('/v1/payout_intents', payoutBody({ amount: '4242' }), { idempotencyKey: key });
    expect(r1.status).toBe(201);
    expect(r2.status).toBe(201);
    expect(r2.body.id).not.toBe(r1.body.id);
    expect(r2.body.amount).toBe('4242');
  });

  test('keys are case-sensitive: keys differing only in case are different keys', async () => {
    const c = await srv.merchant();
    const base = newKey('Case-Key');
    const r1 = await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: base });
    const r2 = await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: base.toLowerCase() });
    expect([r1.status, r2.status]).toEqual([201, 201]);
    expect(r2.headers.get('idempotent-replayed')).toBeNull();
    expect(r1.body.id).not.toBe(r2.body.id);
  });

  test('keys expire 24 hours after the first request: then the same key with a different body succeeds', async () => {
    const c = await srv.merchant();
    const key = newKey('expiring');
    const first = await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: key });
    expect(first.status).toBe(201);
    const [row] = await sql<{ created_at: unknown; expires_at: unknown }>(
      'SELECT created_at, expires_at FROM idempotency_keys WHERE api_key_id = ? AND idem_key = ?',
      [c.key!.apiKeyId, key],
    );
    expect(BigInt(String(row.expires_at)) - BigInt(String(row.created_at))).toBe(24n * 60n * 60n * 1000n);

    // Still held: a different body conflicts.
    expectError(await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: key }), 409, 'idempotency_conflict');

    await srv.app.db.tx((em) =>
      em.query('UPDATE idempotency_keys SET expires_at = ? WHERE api_key_id = ? AND idem_key = ?', [Date.now() - 1000, c.key!.apiKeyId, key]),
    );
    const later = await c.post('/v1/payout_intents', payoutBody({ amount: '3333' }), { idempotencyKey: key });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
    expect(later.body.amount).toBe('3333');
    // The key now belongs to the new request.
    const replay = await c.post('/v1/payout_intents', payoutBody({ amount: '3333', merchant_reference: later.body.merchant_reference }), {
      idempotencyKey: key,
    });
    expect(replay.text).toBe(later.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('concurrency', () => {
  test('20 parallel identical requests with one key create exactly one payout; every answer is it or a 409', async () => {
    const c = await srv.merchant();
    const key = newKey('race');
    const body = payoutBody();
    const results = await Promise.all(Array.from({ length: 20 }, () => c.post('/v1/payout_intents', body, { idempotencyKey: key })));
    const payouts = await listPayouts(c);
    expect(payouts).toHaveLength(1);
    const id = payouts[0].id;
    let created = 0;
    for (const r of results) {
      if (r.status === 201) {
        expect(r.body.id).toBe(id);
        if (r.headers.get('idempotent-replayed') !== 'true') created++;
      } else {
        // In flight (sent again after Retry-After, it replays the payout).
        expectError(r, 409, 'idempotency_conflict');
        expect(r.headers.get('retry-after')).toBe('1');
      }
    }
    expect(created).toBe(1);
    expect(await eventTypes(id)).toEqual(['payout_intent.created']);
  });

  test('20 parallel creates with one merchant_reference and no key: one 201, the rest 200 with the same payout', async () => {
    const c = await srv.merchant();
    const reference = ref('race-ref');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => c.post('/v1/payout_intents', payoutBody({ merchant_reference: reference, amount: String(1000 + i) }))),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const payouts = await listPayouts(c);
    expect(payouts.map((p) => p.id)).toEqual([...ids]);
    const winner = results.find((r) => r.status === 201)!;
    for (const r of results) expect(r.body).toEqual(winner.body);
    expect(await eventTypes(winner.body.id)).toEqual(['payout_intent.created']);
  });
});

describe('merchant_reference deduplicates beyond the key', () => {
  test('the same merchant_reference with another key, or none, and even another body returns the original with 200', async () => {
    const c = await srv.merchant();
    const reference = ref('dedupe');
    const key = newKey();
    const first = await c.post('/v1/payout_intents', payoutBody({ merchant_reference: reference }), { idempotencyKey: key });
    expect(first.status).toBe(201);

    const otherKey = await c.post('/v1/payout_intents', payoutBody({ merchant_reference: reference, amount: '99999' }), {
      idempotencyKey: newKey(),
    });
    expect(otherKey.status).toBe(200);
    expect(otherKey.text).toBe(first.text);
    expect(otherKey.body.amount).toBe('1000');

    const noKey = await c.post('/v1/payout_intents', payoutBody({ merchant_reference: reference, currency: 'USD', country: 'US' }));
    expect(noKey.status).toBe(200);
    expect(noKey.body).toEqual(first.body);

    // Beyond the 24-hour key window: every key of this API key expired and purged.
    await srv.app.db.tx((em) => em.query('UPDATE idempotency_keys SET expires_at = ? WHERE api_key_id = ?', [Date.now() - 1000, c.key!.apiKeyId]));
    expect(await srv.app.idempotency.purgeExpired()).toBeGreaterThanOrEqual(2);
    const afterWindow = await c.post('/v1/payout_intents', payoutBody({ merchant_reference: reference, amount: '5' }), {
      idempotencyKey: key,
    });
    expect(afterWindow.status).toBe(200);
    expect(afterWindow.headers.get('idempotent-replayed')).toBeNull();
    expect(afterWindow.body).toEqual(first.body);

    expect((await listPayouts(c)).map((p) => p.id)).toEqual([first.body.id]);
    expect(await eventTypes(first.body.id)).toEqual(['payout_intent.created']);
  });

  test('merchant_reference is per merchant: another merchant may use the same reference', async () => {
    const a = await srv.merchant();
    const b = await srv.merchant();
    const reference = ref('shared-ref');
    const ra = await a.post('/v1/payout_intents', payoutBody({ merchant_reference: reference }));
    const rb = await b.post('/v1/payout_intents', payoutBody({ merchant_reference: reference }));
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(ra.body.id).not.toBe(rb.body.id);
  });

  test('merchant_reference matches exactly: references differing only in case are different payouts', async () => {
    const c = await srv.merchant();
    const upper = ref('ORDER').toUpperCase();
    const r1 = await c.post('/v1/payout_intents', payoutBody({ merchant_reference: upper }));
    const r2 = await c.post('/v1/payout_intents', payoutBody({ merchant_reference: upper.toLowerCase() }));
    expect([r1.status, r2.status]).toEqual([201, 201]);
    expect(r1.body.id).not.toBe(r2.body.id);
    const filtered = await c.get(`/v1/payout_intents?merchant_reference=${encodeURIComponent(upper)}`);
    expect(filtered.body.data.map((p: any) => p.id)).toEqual([r1.body.id]);
    // Trailing spaces count too (MariaDB's PAD SPACE collations would ignore them).
    const padded = await c.post('/v1/payout_intents', payoutBody({ merchant_reference: `${upper} ` }));
    if (padded.status === 400) {
      expect(padded.body.error.param).toBe('merchant_reference');
    } else {
      expect(padded.status).toBe(201);
      expect(padded.body.id).not.toBe(r1.body.id);
    }
  });
});

describe('GraphQL shares the store', () => {
  const CREATE = `mutation Create($input: CreatePayoutIntentInput!) {
    createPayoutIntent(input: $input) { id amount status merchantReference recipient { accountLast4 } }
  }`;
  const APPROVE = 'mutation Approve($id: ID!) { approvePayoutIntent(id: $id) { id status } }';

  function gqlInput(body: Record<string, any>) {
    const r = body.recipient;
    return {
      amount: body.amount,
      currency: body.currency,
      country: body.country,
      merchantReference: body.merchant_reference,
      recipient: { type: 'BANK_ACCOUNT', bankCode: r.bank_code, accountNumber: r.account_number, holderName: r.holder_name },
    };
  }

  test('REST then GraphQL createPayoutIntent with the same key and body replays the same payout', async () => {
    const c = await srv.merchant();
    const key = newKey('gql');
    const body = payoutBody();
    const rest = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(rest.status).toBe(201);
    const gql = await c.gql(CREATE, { input: gqlInput(body) }, { 'idempotency-key': key });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data!.createPayoutIntent).toEqual({
      id: rest.body.id,
      amount: '1000',
      status: 'REQUIRES_APPROVAL',
      merchantReference: body.merchant_reference,
      recipient: { accountLast4: '7890' },
    });
    expect(gql.headers.get('idempotent-replayed')).toBe('true');
    expect(await listPayouts(c)).toHaveLength(1);

    // The same key on another operation, on either surface, is a conflict.
    const approve = await c.gql(APPROVE, { id: rest.body.id }, { 'idempotency-key': key });
    expect(approve.body.errors?.[0]?.extensions?.code).toBe('idempotency_conflict');
    const cancel = await c.post(`/v1/payout_intents/${rest.body.id}/cancel`, {}, { idempotencyKey: key });
    expectError(cancel, 409, 'idempotency_conflict');
    // And the same key on GraphQL with a different body.
    const changed = await c.gql(CREATE, { input: gqlInput({ ...body, amount: '1001' }) }, { 'idempotency-key': key });
    expect(changed.body.errors?.[0]?.extensions?.code).toBe('idempotency_conflict');
    expect((await c.get(`/v1/payout_intents/${rest.body.id}`)).body.status).toBe('requires_approval');
  });

  test('GraphQL twice with the same key and body: the second answer is the same payout with Idempotent-Replayed: true', async () => {
    const c = await srv.merchant();
    const key = newKey('gql3');
    const input = gqlInput(payoutBody());
    const first = await c.gql(CREATE, { input }, { 'idempotency-key': key });
    const second = await c.gql(CREATE, { input }, { 'idempotency-key': key });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    // The same data; the replay also says so in the answer (docs/graphql.md, deduplicated creates).
    expect(second.body.data).toEqual(first.body.data);
    expect(first.body.extensions?.deduplicated).toBeUndefined();
    expect(second.body.extensions).toEqual({ deduplicated: true, deduplicatedFields: ['createPayoutIntent'], cost: expect.any(Object) });
    expect(await listPayouts(c)).toHaveLength(1);
  });

  test('GraphQL then REST with the same key and body replays the stored REST answer', async () => {
    const c = await srv.merchant();
    const key = newKey('gql2');
    const body = payoutBody();
    const gql = await c.gql(CREATE, { input: gqlInput(body) }, { 'idempotency-key': key });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.headers.get('idempotent-replayed')).toBeNull();
    const id = gql.body.data!.createPayoutIntent.id;
    const rest = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
    expect(rest.status).toBe(201);
    expect(rest.headers.get('idempotent-replayed')).toBe('true');
    expect(rest.body.id).toBe(id);
    const got = await c.get(`/v1/payout_intents/${id}`);
    expect(rest.text).toBe(got.text);
  });
});
