/**
 * The list SQL of src/db/list-query.ts on the engine the suite runs on: the index hints and
 * UNION ALL branches it writes into the builder's SQL (FORCE INDEX on MySQL/MariaDB, INDEXED BY
 * on SQLite only where asked), the same rows as the builder's own query without them, and a
 * refusal of a filter it cannot split. The plans themselves: test/domain/listing-explain.suite.ts.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager, ObjectLiteral } from 'typeorm';
import { startServer, TestServer } from '../helpers/server';
import { ref } from '../helpers/client';
import { applyList, listIndexesOf, listRows, prepareListRows } from '../../src/db/list-query';
import type { EditedSelect, Select } from '../../src/db/compiled-select';
import type { ListParams } from '../../src/domain/listing';
import type { Scope } from '../../src/domain/scope';

let srv: TestServer;
let scope: Scope;
let mysql: boolean;

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  mysql = srv.app.db.kind === 'mysql';
  const c = await srv.merchant('list-query');
  scope = { merchantId: c.merchantId, environment: 'test' };
  for (let i = 0; i < 7; i++) {
    const r = await c.post(
      '/v1/topup_intents',
      { amount: String(1000 + i), currency: 'THB', country: 'TH', merchant_reference: ref('tu') },
      { idempotencyKey: randomUUID() },
    );
    if (r.status !== 201) throw new Error(`fixture refused: ${r.status} ${r.text}`);
  }
  // Rows of three statuses (two succeeded, one failed, the rest requires_action) for the branches to merge.
  const [a, b, f] = (await c.get('/v1/topup_intents?limit=7')).body.data.filter((_: unknown, i: number) => i % 2 === 1);
  for (const [t, to] of [
    [a, 'succeed'],
    [b, 'succeed'],
    [f, 'fail'],
  ]) {
    const r = await c.post(`/v1/test_helpers/topup_intents/${t.id}/${to}`, {});
    if (r.status !== 200) throw new Error(`fixture refused: ${r.status} ${r.text}`);
  }
});

afterAll(async () => {
  await srv?.close();
});

const em = (): EntityManager => srv.app.db.ds.manager;
const topups = (params: ListParams) => applyList(em().createQueryBuilder(srv.app.db.ds.getMetadata('TopupIntent').target, 'r'), 'r', scope, params);
const INDEXES = listIndexesOf('topup_intents', true);
const params = (more: Partial<ListParams> = {}): ListParams => ({ limit: 3, extra: {}, ...more });

function edited(select: Select<ObjectLiteral>): EditedSelect<ObjectLiteral> {
  expect(select).toHaveProperty('sql');
  return select as EditedSelect<ObjectLiteral>;
}

const count = (text: string, part: string) => text.split(part).length - 1;

test('no status filter: the list index is forced on MySQL/MariaDB; SQLite chooses alone unless asked', () => {
  const select = prepareListRows(topups(params()), 'r', params(), INDEXES);
  if (mysql) {
    const { qb, sql } = edited(select);
    expect(count(sql, 'FORCE INDEX (`ix_topup_intents_list`)')).toBe(1);
    expect(sql.replace(' FORCE INDEX (`ix_topup_intents_list`)', '')).toBe(qb.getQuery());
  } else {
    expect(select).not.toHaveProperty('sql');
    const { sql } = edited(prepareListRows(topups(params()), 'r', params(), { ...INDEXES, sqliteToo: true }));
    expect(count(sql, 'INDEXED BY "ix_topup_intents_list"')).toBe(1);
  }
});

test('one status: an equality on the status index instead of the IN list', () => {
  const p = params({ statuses: ['succeeded'] });
  const { qb, sql } = edited(prepareListRows(topups(p), 'r', p, INDEXES));
  expect(sql).not.toContain('IN (:...statuses)');
  expect(count(sql, '= :listStatus0')).toBe(1);
  expect(count(sql, 'FORCE INDEX (`ix_topup_intents_status_list`)')).toBe(mysql ? 1 : 0);
  expect(qb.getParameters().listStatus0).toBe('succeeded');
});

test('several statuses: one branch per status, each ordered and limited, merged by UNION ALL and ordered again', () => {
  const p = params({ statuses: ['succeeded', 'requires_action', 'succeeded'] });
  const { qb, sql } = edited(prepareListRows(topups(p), 'r', p, INDEXES));
  expect(count(sql, ' UNION ALL ')).toBe(2);
  [0, 1, 2].forEach((i) => expect(count(sql, `= :listStatus${i}`)).toBe(1));
  expect(count(sql, 'FORCE INDEX (`ix_topup_intents_status_list`)')).toBe(mysql ? 3 : 0);
  expect(count(sql, 'LIMIT 4')).toBe(4);
  // The builder is left as it was: its own query is the plain IN over the table.
  expect(qb.getQuery()).toContain('IN (:...statuses)');
});

test('a merchant_reference filter, or no indexes: the builder alone', () => {
  const p = params({ merchantReference: 'x', statuses: ['succeeded', 'succeeded'] });
  const qb = topups(p);
  expect(prepareListRows(qb, 'r', p, INDEXES)).toBe(qb);
  const plain = topups(params());
  expect(prepareListRows(plain, 'r', params())).toBe(plain);
});

test.each([
  ['no filter', {}],
  ['one status', { statuses: ['succeeded'] }],
  ['two statuses', { statuses: ['succeeded', 'failed'] }],
  ['three statuses, one without rows', { statuses: ['expired', 'requires_action', 'succeeded'] }],
])("%s: listRows gives the rows of the builder's own query, page after page", async (_, more: Partial<ListParams>) => {
  const all = await topups(params({ ...more, limit: 100 })).getMany();
  expect(all.length).toBeGreaterThanOrEqual(2);
  const seen: unknown[] = [];
  let after: ListParams['after'];
  for (;;) {
    const p = params({ ...more, after });
    const got = await listRows(em(), topups(p), 'r', p, { ...INDEXES, sqliteToo: true });
    expect(got).toStrictEqual(await topups(p).getMany());
    seen.push(...got.slice(0, p.limit));
    if (got.length <= p.limit) break;
    const last = got[p.limit - 1] as { id: string; createdAt: Date };
    after = { t: last.createdAt.getTime(), id: last.id };
  }
  expect(seen).toStrictEqual(all);
});

test('a filter of the caller that is not "<column> IN (:...<param>)" is refused, not mis-split', () => {
  const p = params();
  const qb = topups(p).andWhere('r.country IN (:...countries)', { countries: ['TH'] });
  expect(() =>
    prepareListRows(qb, 'r', p, {
      list: 'ix_topup_intents_list',
      byValue: { clause: "r.country = 'TH'", column: 'country', values: ['TH'], index: 'ix_topup_intents_list' },
    }),
  ).toThrow(/is not "<column> IN/);
  expect(() =>
    prepareListRows(topups(p), 'r', p, {
      list: 'ix_topup_intents_list',
      byValue: { clause: 'r.country IN (:...countries)', column: 'country', values: ['TH'], index: 'ix_topup_intents_list' },
    }),
  ).toThrow(/not in the list query once/);
});
