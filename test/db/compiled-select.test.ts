/**
 * The hydration plan of compiled selects (src/db/compiled-select.ts): for every entity, the
 * entities it makes from real rows are the ones TypeORM's transformer makes (same class, same
 * properties, same values and types: bigint money, Date times, parsed JSON, NULLs), for a
 * whole-row select and for a select of some columns, on the engine the suite runs on.
 */
import { randomUUID } from 'node:crypto';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { RawSqlResultsToEntityTransformer } from 'typeorm/query-builder/transformer/RawSqlResultsToEntityTransformer';
import { startServer, TestServer } from '../helpers/server';
import { payoutBody, ref } from '../helpers/client';
import { planHydration } from '../../src/db/compiled-select';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  const c = await srv.merchant('hydration');
  const ok = (r: { status: number; text: string }) => {
    if (r.status >= 300) throw new Error(`fixture refused: ${r.status} ${r.text}`);
  };
  // Rows of every kind, with NULL and non-NULL optional columns: payouts (one cancelled with a
  // message), a PromptPay payment (JSON next_action), a topup, a webhook endpoint and its deliveries.
  const payout = await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: randomUUID() });
  ok(payout);
  ok(await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: randomUUID() }));
  ok(await c.post(`/v1/payout_intents/${payout.body.id}/cancel`, {}, { idempotencyKey: randomUUID() }));
  const payment = await c.post('/v1/payment_intents', {
    amount: '50000', currency: 'THB', country: 'TH', merchant_reference: ref('pi'), payment_method: 'promptpay',
    customer: { name: 'Test Payer', email: 'payer@example.com' },
  }, { idempotencyKey: randomUUID() });
  ok(payment);
  ok(await c.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' }));
  ok(await c.post('/v1/topup_intents', { amount: '5000', currency: 'THB', country: 'TH', merchant_reference: ref('tu') }, { idempotencyKey: randomUUID() }));
});

afterAll(async () => {
  await srv?.close();
});

function transformerRows(qb: SelectQueryBuilder<ObjectLiteral>, raw: ObjectLiteral[]): ObjectLiteral[] {
  return new RawSqlResultsToEntityTransformer(qb.expressionMap, qb.connection.driver, [], undefined).transform(raw, qb.expressionMap.mainAlias!);
}

async function compare(qb: SelectQueryBuilder<ObjectLiteral>): Promise<number> {
  const plan = planHydration(qb);
  expect(plan).not.toBeNull();
  const [sql, params] = qb.getQueryAndParameters();
  const raw: ObjectLiteral[] = await srv.app.db.ds.query(sql, params);
  const planned = plan!(raw, qb.connection.driver, undefined);
  const expected = transformerRows(qb, raw);
  expect(planned).toStrictEqual(expected);
  planned.forEach((e, i) => expect(Object.getPrototypeOf(e)).toBe(Object.getPrototypeOf(expected[i])));
  return planned.length;
}

test('every entity: the plan hydrates whole rows exactly as TypeORM does', async () => {
  let rows = 0;
  for (const metadata of srv.app.db.ds.entityMetadatas) {
    rows += await compare(srv.app.db.ds.createQueryBuilder(metadata.target, 'r').orderBy('r.' + metadata.primaryColumns[0].propertyPath).limit(50));
  }
  // Not vacuous: the fixtures wrote rows of many kinds.
  expect(rows).toBeGreaterThan(20);
});

test('a select of some columns: only those are set, as TypeORM does', async () => {
  for (const metadata of srv.app.db.ds.entityMetadatas) {
    const some = metadata.columns.filter((_, i) => i % 2 === 0 || metadata.primaryColumns.includes(metadata.columns[i]));
    await compare(srv.app.db.ds.createQueryBuilder(metadata.target, 'r').select(some.map((c) => `r.${c.propertyPath}`)).limit(50));
  }
});

test('a row whose selected columns are all NULL is no entity, as with the transformer', async () => {
  const metadata = srv.app.db.ds.getMetadata('PayoutIntent');
  const qb = srv.app.db.ds.createQueryBuilder(metadata.target, 'r').select(['r.failureCode', 'r.failureMessage']).where('r.failure_code IS NULL');
  const [sql, params] = qb.getQueryAndParameters();
  const raw: ObjectLiteral[] = await srv.app.db.ds.query(sql, params);
  expect(raw.length).toBeGreaterThan(0);
  expect(planHydration(qb)!(raw, qb.connection.driver, undefined)).toEqual([]);
  expect(transformerRows(qb, raw)).toEqual([]);
});

test('a join is left to the transformer', () => {
  const qb = srv.app.db.ds.createQueryBuilder(srv.app.db.ds.getMetadata('PayoutIntent').target, 'r').leftJoinAndSelect('merchants', 'm', 'm.id = r.merchant_id');
  expect(planHydration(qb)).toBeNull();
});
