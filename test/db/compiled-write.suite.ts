/**
 * Compiled writes (src/db/compiled-write.ts): the INSERT each hot entity is written with is
 * the SQL and the values TypeORM's InsertQueryBuilder would send (a RETURNING or re-read of
 * default columns aside), and the create path's statements per request (writes).
 */
import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { startServer, TestServer } from '../helpers/server';
import { ref } from '../helpers/client';
import { mysqlServer } from '../helpers/skip';
import { insertStatement } from '../../src/db/compiled-write';
import { PayoutIntent } from '../../src/modules/payouts/payout.entity';
import { PaymentIntent } from '../../src/modules/payments/payment.entity';
import { AuditEntry } from '../../src/modules/audit/audit.entity';
import { LedgerEntry } from '../../src/modules/balances/balance.entity';
import { EventRecord } from '../../src/modules/events/event.entity';
import { WebhookDelivery } from '../../src/modules/webhooks/webhook.entity';

let srv: TestServer;

beforeAll(async () => {
  // Every request reads its key (API_KEY_CACHE_MS 0): the counts below are the whole path, authentication's read included.
  srv = await startServer({ scheduler: false, env: { API_KEY_CACHE_MS: '0' } });
});

afterAll(async () => {
  await srv?.close();
});

const now = new Date('2026-03-04T05:06:07.089Z');

/** The statement with its values in place (what MariaDB receives: mysql2 formats on the client). */
function inline(sql: string, values: unknown[]): string {
  let i = 0;
  return sql.replace(/\?/g, () => {
    const v = values[i++];
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- both statements' values go through this same String(), whatever they are
    return v === null ? 'NULL' : typeof v === 'number' ? String(v) : JSON.stringify(String(v));
  });
}

function sameAsBuilder(em: EntityManager, target: EntityTarget<ObjectLiteral>, rows: ObjectLiteral[]): void {
  const [sql, values] = insertStatement(em, target, rows)!;
  const [builderSql, builderValues] = em.createQueryBuilder().insert().into(target).values(rows).getQueryAndParameters();
  // MariaDB >= 10.5: the builder adds RETURNING for columns with a default (to reload them); the rows set every column.
  // SQLite: the builder writes numbers into the text, the compiled statement binds them (same values in INTEGER columns).
  expect(inline(sql, values)).toBe(inline(builderSql.replace(/ RETURNING .*$/, ''), builderValues));
  expect(values.length).toBe((sql.match(/\?/g) ?? []).length);
  if (srv.app.db.kind === 'mysql') {
    expect(sql).toBe(builderSql.replace(/ RETURNING .*$/, ''));
    expect(values).toEqual(builderValues);
  }
}

test("every hot INSERT is the query builder's SQL with its values", async () => {
  await srv.app.db.read(async (em) => {
    const base = { merchantId: 'mer_1', environment: 'test' as const, createdAt: now };
    sameAsBuilder(em, PayoutIntent, [
      Object.assign(new PayoutIntent(), {
        ...base,
        id: 'po_1',
        amount: 12345678901234567890n,
        currency: 'THB',
        country: 'TH',
        status: 'requires_approval',
        merchantReference: 'r-1',
        recipientType: 'bank_account',
        recipientBankCode: 'KBANK',
        recipientHolderName: 'Somchai',
        recipientAccountLast4: '7890',
        recipientAccountEncrypted: 'v2.k1.abc',
        provider: null,
        providerReference: null,
        failureCode: null,
        failureMessage: null,
        payoutBatch: null,
        settleAt: null,
        approvalsRequired: 2,
        approvalRule: 'members',
        createdBy: 'key_1',
        approvals: null,
        updatedAt: now,
      }),
    ]);
    sameAsBuilder(em, PaymentIntent, [
      Object.assign(new PaymentIntent(), {
        ...base,
        id: 'pi_1',
        amount: 50000n,
        currency: 'THB',
        country: 'TH',
        checkoutMode: 'direct',
        status: 'requires_action',
        merchantReference: 'r-2',
        requestFingerprint: 'f'.repeat(64),
        paymentMethod: 'promptpay',
        bank: null,
        provider: 'siampay',
        providerReference: null,
        providerRedirectUrl: null,
        paymentReference: null,
        payerEncrypted: 'v2.k1.x',
        returnUrl: null,
        metadata: { order: '1', b: 'x' },
        externalReference: null,
        deviceFingerprint: null,
        nextAction: { type: 'redirect_to_url', url: 'https://x.example/checkout/t', expires_at: now.toISOString() },
        processingReason: null,
        receipt: null,
        failureCode: null,
        failureMessage: null,
        plannedFailureCode: null,
        plannedFailureMessage: null,
        providerCall: 'start',
        amountRefunded: 0n,
        paymentLinkId: null,
        checkoutToken: 't'.repeat(43),
        expiresAt: now,
        settleAt: null,
        updatedAt: now,
      }),
    ]);
    sameAsBuilder(em, AuditEntry, [
      Object.assign(new AuditEntry(), {
        ...base,
        id: 'aud_1',
        apiKeyId: 'key_1',
        operation: 'POST /v1/payout_intents',
        resourceType: 'payout_intent',
        resourceId: 'po_1',
        reason: null,
        requestId: 'req_1',
        statusCode: 201,
        actor: { type: 'api_key', id: 'key_1', restricted: false },
        actorId: 'key_1',
      }),
    ]);
    const entry = (id: string, bucket: string, amount: bigint) =>
      Object.assign(new LedgerEntry(), {
        ...base,
        id,
        currency: 'THB',
        bucket,
        amount,
        entryType: 'payout_reserved',
        sourceType: 'payout_intent',
        sourceId: 'po_1',
      });
    sameAsBuilder(em, LedgerEntry, [entry('le_1', 'available', -5n), entry('le_2', 'reserved', 5n)]);
    sameAsBuilder(em, EventRecord, [
      Object.assign(new EventRecord(), {
        ...base,
        id: 'evt_1',
        type: 'payout_intent.created',
        resourceId: 'po_1',
        data: { object: 'payout_intent', id: 'po_1', amount: '5' },
        requestId: null,
        actor: null,
        seq: 7,
      }),
    ]);
    const delivery = (id: string) =>
      Object.assign(new WebhookDelivery(), {
        ...base,
        id,
        endpointId: 'we_1',
        eventId: 'evt_1',
        eventType: 'payout_intent.created',
        status: 'pending',
        attemptCount: 0,
        resendKey: '',
        nextAttemptAt: now,
        leaseUntil: null,
        lastStatusCode: null,
        lastError: null,
        deliveredAt: null,
        updatedAt: now,
      });
    sameAsBuilder(em, WebhookDelivery, [delivery('whd_1'), delivery('whd_2')]);
  });
});

test('a row with a column left to its default is not compiled (em.insert writes it)', async () => {
  await srv.app.db.read(async (em) => {
    const row = Object.assign(new AuditEntry(), { id: 'aud_2', merchantId: 'm', environment: 'test' });
    expect(insertStatement(em, AuditEntry, [row])).toBeUndefined();
  });
});

describe('the create path (writes)', () => {
  const payout = (reference: string) => ({
    amount: '100',
    currency: 'THB',
    country: 'TH',
    merchant_reference: reference,
    recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai Jaidee' },
  });
  const promptPay = (reference: string) => ({
    amount: '12500',
    currency: 'THB',
    country: 'TH',
    merchant_reference: reference,
    payment_method: 'promptpay',
    customer: { name: 'Somchai Jaidee' },
  });

  /** Statements the database saw while `fn` ran, and the queries (round trips) they went in (nothing else runs: no scheduler). */
  async function statements(fn: () => Promise<unknown>): Promise<[number, number]> {
    const [before, tripsBefore] = [srv.app.db.queryCount, srv.app.db.roundTripCount];
    await fn();
    return [srv.app.db.queryCount - before, srv.app.db.roundTripCount - tripsBefore];
  }

  test('a payout create is 17 statements in 7 round trips and a PromptPay payment create 16 in 10 on MariaDB, 19 in 10 and 18 in 13 on MySQL 8, 18 and 17 on SQLite (no merchant_reference read, no re-read of the payment)', async () => {
    const c = await srv.merchant();
    await c.post('/v1/payout_intents', payout(ref('warm')), { idempotencyKey: ref('k') });
    await c.post('/v1/payment_intents', promptPay(ref('warm')), { idempotencyKey: ref('k') });
    const payoutStatements = await statements(async () =>
      expect((await c.post('/v1/payout_intents', payout(ref('po')), { idempotencyKey: ref('k') })).status).toBe(201),
    );
    const paymentStatements = await statements(async () =>
      expect((await c.post('/v1/payment_intents', promptPay(ref('pi')), { idempotencyKey: ref('k') })).status).toBe(201),
    );
    if (mysqlServer() === 'MariaDB') {
      // MariaDB, the payout: auth | START, key claim (the transaction's opening) | approval policy |
      // payout | fee schedule | webhook endpoints | ledger, balance transaction, balance, its guard,
      // counter, event, audit, key done, its guard, COMMIT (src/db/tx.ts: the unit's end-of-unit work and its COMMIT in one query).
      // The payment: auth | START, key claim | method settings | payment | merchant | COMMIT |
      // START | payment | webhook endpoints | counter, event, audit, key done, its guard, COMMIT.
      expect(payoutStatements).toEqual([17, 7]);
      expect(paymentStatements).toEqual([16, 10]);
    } else if (mysqlServer() === 'MySQL') {
      // MySQL 8 (no SET STATEMENT): the key is claimed in its own transaction, and the guard is
      // a CALL of the guard procedure. The payout: auth | START | key claim | COMMIT | START |
      // approval policy | payout | fee schedule | webhook endpoints | ledger, balance transaction, balance, its guard, counter, event, audit, key done,
      // its guard, COMMIT. The payment: auth | START | key claim | COMMIT | START | method
      // settings | payment | merchant | COMMIT | START | payment | webhook endpoints | counter,
      // event, audit, key done, its guard, COMMIT.
      expect(payoutStatements).toEqual([19, 10]);
      expect(paymentStatements).toEqual([18, 13]);
    } else {
      // SQLite: the key's own transaction (BEGIN, INSERT, COMMIT), the balance's locking path (SELECT, UPDATE),
      // and for the payout the approval policy's and the fee schedule's reads and the balance transaction's insert.
      expect(payoutStatements[0]).toBe(18);
      expect(paymentStatements[0]).toBe(17);
    }
  });

  test('concurrent creates with one merchant_reference: one 201, the others 200 with the same payout, one hold', async () => {
    const c = await srv.merchant();
    const reference = ref('same');
    const first = await c.post('/v1/payout_intents', payout(reference));
    expect(first.status).toBe(201);
    const repeats = await Promise.all(Array.from({ length: 8 }, () => c.post('/v1/payout_intents', payout(reference), { idempotencyKey: ref('k') })));
    for (const r of repeats) {
      expect(r.status).toBe(200);
      expect(r.body).toEqual(first.body);
    }
    const racing = ref('race');
    const raced = await Promise.all(Array.from({ length: 8 }, () => c.post('/v1/payout_intents', payout(racing), { idempotencyKey: ref('k') })));
    expect(raced.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(raced.map((r) => r.body.id)).size).toBe(1);
    const balances = await c.get('/v1/balances');
    const thb = balances.body.data.find((b: { currency: string }) => b.currency === 'THB');
    expect(thb.reserved).toBe('200');
  });

  test('a repeated payment merchant_reference answers with its intent even when routing would now refuse it', async () => {
    const c = await srv.merchant();
    const body = promptPay(ref('again'));
    const created = await c.post('/v1/payment_intents', body);
    expect(created.status).toBe(201);
    expect((await c.post('/v1/payment_method_settings/promptpay', { enabled: false })).status).toBe(200);
    const repeat = await c.post('/v1/payment_intents', body);
    expect(repeat.status).toBe(200);
    expect(repeat.body.id).toBe(created.body.id);
    const other = await c.post('/v1/payment_intents', { ...body, amount: '12600' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
    const fresh = await c.post('/v1/payment_intents', promptPay(ref('fresh')));
    expect(fresh.status).toBe(422);
    expect(fresh.body.error.code).toBe('payment_method_unavailable');
  });

  test('phase 2 of a payment create answers what a GET reads afterwards', async () => {
    const c = await srv.merchant();
    const created = await c.post('/v1/payment_intents', promptPay(ref('get')));
    expect(created.status).toBe(201);
    const read = await c.get(`/v1/payment_intents/${created.body.id}`);
    expect(read.body).toEqual(created.body);
  });
});
