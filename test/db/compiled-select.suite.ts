/**
 * The row mapper of compiled selects (src/db/compiled-select.ts): for every entity, the
 * entities it makes from real rows are the ones TypeORM's `getMany()` makes from the same
 * query (same class, same properties, same values and types: bigint money, Date times, parsed
 * JSON, NULLs), for a whole-row select and for a select of some columns, on the engine the
 * suite runs on, also from the rows of a prepared statement (MySQL/MariaDB); and a query it
 * does not cover is run by `getMany()`.
 */
import { randomUUID } from 'node:crypto';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { startServer, TestServer, usingMysql } from '../helpers/server';
import { payoutBody, ref } from '../helpers/client';
import { compiledSelect, rowMapper, runSelect } from '../../src/db/compiled-select';
import { preparedRead } from '../../src/db/prepared';
import { testIf, NEEDS_MYSQL } from '../helpers/skip';

let srv: TestServer;
let merchantId: string;

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  const c = await srv.merchant('hydration');
  merchantId = c.merchantId;
  const ok = (r: { status: number; text: string }) => {
    if (r.status >= 300) throw new Error(`fixture refused: ${r.status} ${r.text}`);
  };
  // Rows of every kind, with NULL and non-NULL optional columns: payouts (one cancelled with a
  // message), a PromptPay payment (JSON next_action), a topup, a webhook endpoint and its deliveries.
  const payout = await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: randomUUID() });
  ok(payout);
  ok(await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: randomUUID() }));
  ok(await c.post(`/v1/payout_intents/${payout.body.id}/cancel`, {}, { idempotencyKey: randomUUID() }));
  const payment = await c.post(
    '/v1/payment_intents',
    {
      amount: '50000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: ref('pi'),
      payment_method: 'promptpay',
      customer: { name: 'Test Payer', email: 'payer@example.com' },
    },
    { idempotencyKey: randomUUID() },
  );
  ok(payment);
  ok(await c.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' }));
  ok(await c.post('/v1/topup_intents', { amount: '5000', currency: 'THB', country: 'TH', merchant_reference: ref('tu') }, { idempotencyKey: randomUUID() }));
});

afterAll(async () => {
  await srv?.close();
});

async function compare(qb: SelectQueryBuilder<ObjectLiteral>): Promise<number> {
  const toEntities = rowMapper(qb);
  expect(toEntities).not.toBeNull();
  const [sql, params] = qb.getQueryAndParameters();
  const raw: ObjectLiteral[] = await srv.app.db.ds.query(sql, params);
  const planned = toEntities!(raw);
  const expected = await qb.getMany();
  expect(raw.length).toBe(expected.length);
  expect(planned).toStrictEqual(expected);
  planned.forEach((e, i) => expect(Object.getPrototypeOf(e)).toBe(Object.getPrototypeOf(expected[i])));
  // The same rows read as a prepared statement (MySQL/MariaDB's binary protocol) hydrate the same.
  const prepared = await srv.app.db.read((em) => preparedRead(em, sql, params));
  expect(toEntities!(prepared)).toStrictEqual(expected);
  return planned.length;
}

test('every entity: the mapper makes entities of whole rows exactly as TypeORM does', async () => {
  let rows = 0;
  for (const metadata of srv.app.db.ds.entityMetadatas) {
    rows += await compare(
      srv.app.db.ds
        .createQueryBuilder(metadata.target, 'r')
        .orderBy('r.' + metadata.primaryColumns[0].propertyPath)
        .limit(50),
    );
  }
  // Not vacuous: the fixtures wrote rows of many kinds.
  expect(rows).toBeGreaterThan(20);
});

test('a select of some columns: only those are set, as TypeORM does', async () => {
  for (const metadata of srv.app.db.ds.entityMetadatas) {
    const some = metadata.columns.filter((_, i) => i % 2 === 0 || metadata.primaryColumns.includes(metadata.columns[i]));
    await compare(
      srv.app.db.ds
        .createQueryBuilder(metadata.target, 'r')
        .select(some.map((c) => `r.${c.propertyPath}`))
        .orderBy('r.' + metadata.primaryColumns[0].propertyPath)
        .limit(50),
    );
  }
});

test('a row whose selected columns are all NULL is no entity, as with getMany', async () => {
  const metadata = srv.app.db.ds.getMetadata('PayoutIntent');
  const qb = srv.app.db.ds.createQueryBuilder(metadata.target, 'r').select(['r.failureCode', 'r.failureMessage']).where('r.failure_code IS NULL');
  const [sql, params] = qb.getQueryAndParameters();
  const raw: ObjectLiteral[] = await srv.app.db.ds.query(sql, params);
  expect(raw.length).toBeGreaterThan(0);
  expect(rowMapper(qb)!(raw)).toEqual([]);
  expect(await qb.getMany()).toEqual([]);
});

test('a join is left to getMany, by compiledSelect and runSelect alike', async () => {
  const ds = srv.app.db.ds;
  const payout = ds.getMetadata('PayoutIntent').target;
  const joined = (em = ds.manager) =>
    em
      .createQueryBuilder(payout, 'r')
      .innerJoin(ds.getMetadata('Merchant').target, 'm', 'm.id = r.merchant_id AND m.id = :merchantId', { merchantId })
      .orderBy('r.id');
  expect(rowMapper(joined())).toBeNull();
  const expected = await joined().getMany();
  expect(expected.length).toBeGreaterThanOrEqual(2);
  for (let i = 0; i < 2; i++) {
    // The second call finds the shape compiled (no mapper) and runs getMany again.
    expect(await compiledSelect(ds.manager, 'test.joined', { merchantId }, joined)).toStrictEqual(expected);
  }
  expect(await runSelect(ds.manager, joined())).toStrictEqual(expected);
});

test('compiledSelect: the same entities as getMany, for each shape, with the values of each call', async () => {
  const ds = srv.app.db.ds;
  const payout = ds.getMetadata('PayoutIntent').target;
  const all = await ds.createQueryBuilder(payout, 'r').orderBy('r.id').getMany();
  const ids = all.map((p) => (p as { id: string }).id);
  const byIds =
    (values: string[]) =>
    (em = ds.manager) =>
      em.createQueryBuilder(payout, 'r').where('r.id IN (:...ids)', { ids: values }).orderBy('r.id');
  for (const values of [ids.slice(0, 1), ids.slice(1, 2), ids]) {
    const rows = await compiledSelect(ds.manager, 'test.byIds', { ids: values }, byIds(values));
    expect(rows).toStrictEqual(await byIds(values)().getMany());
    expect(rows.map((p) => (p as { id: string }).id)).toEqual(values);
  }
});

testIf(usingMysql(), NEEDS_MYSQL)('on MySQL/MariaDB a compiled select in a unit of work is sent as a prepared statement', async () => {
  const ds = srv.app.db.ds;
  const payout = ds.getMetadata('PayoutIntent').target;
  const executed = await srv.app.db.read(async (em) => {
    const count = async () => Number((await em.query<{ Value: string }[]>("SHOW SESSION STATUS LIKE 'Com_stmt_execute'"))[0].Value);
    const before = await count();
    const rows = await compiledSelect(em, 'test.prepared', { merchantId }, (e) => e.createQueryBuilder(payout, 'r').where('r.merchant_id = :merchantId'));
    expect(rows.length).toBeGreaterThan(0);
    return (await count()) - before;
  });
  expect(executed).toBe(1);
});

test('a BIGINT is a number while it is a safe integer, as text and through preparedRead (prepared on MySQL/MariaDB; decision 0187)', async () => {
  const sql = 'SELECT created_at AS t FROM payout_intents WHERE merchant_id = ? LIMIT 1';
  const [text] = await srv.app.db.ds.query<{ t: unknown }[]>(sql, [merchantId]);
  const [prepared] = await srv.app.db.read((em) => preparedRead(em, sql, [merchantId]));
  expect(typeof text.t).toBe('number');
  expect(prepared.t).toBe(text.t);
  if (usingMysql()) {
    // Beyond 2^53 mysql2 gives the exact digits as a string (SQLite's driver would round).
    const big = 'SELECT CAST(9007199254740993 AS SIGNED) AS n FROM payout_intents WHERE merchant_id = ? LIMIT 1';
    const [asText] = await srv.app.db.ds.query<{ n: unknown }[]>(big, [merchantId]);
    const [asPrepared] = await srv.app.db.read((em) => preparedRead(em, big, [merchantId]));
    expect([asText.n, asPrepared.n]).toEqual(['9007199254740993', '9007199254740993']);
  }
});
