/**
 * Keyset pages cost the same at any depth (issue 11): one merchant's payouts are seeded in
 * bulk (INSERT ... SELECT from MariaDB's seq_1_to_N or a SQLite recursive CTE, rows shaped as
 * the service writes them), the exact SQL of `GET /v1/payout_intents` is captured from the
 * query builder, and the database's plan is checked at 25,000, 50,000 and 75,000 rows deep
 * and in a table of 1,000,000 rows:
 * - MariaDB: `ANALYZE` (runs the statement) reports the rows each table access really read
 *   (`r_rows`): limit + 1 per page (per requested status) at every depth, by an index range;
 * - SQLite: `EXPLAIN QUERY PLAN` shows an index range on created_at (or status) and no
 *   temporary b-tree for the ORDER BY of a branch.
 * Page times over HTTP are printed (TEST_LOG_LEVEL does not hide them) for the report.
 * The 1,000,000-row case runs by default on MariaDB (~30 s with the seeding) and only with
 * LISTING_EXPLAIN_1M=1 on SQLite.
 */
import { EntityManager, QueryBuilder } from 'typeorm';
import { startServer, TestServer } from '../helpers/server';
import { Client } from '../helpers/client';
import { describeIf, usingMysql } from '../helpers/skip';
import { encodeCursor } from '../../src/domain/listing';

const LIMIT = 25;
const N = 100_000;
const BIG = 1_000_000;
const BASE_T = Date.parse('2026-01-01T00:00:00.000Z');
const run1M = usingMysql() || process.env.LISTING_EXPLAIN_1M === '1';

let srv: TestServer;
let mysql: boolean;

interface Seeded {
  client: Client;
  rows: number;
  /** Id prefix of this seeding (ids are unique across the table's merchants). */
  prefix: string;
}

let seedings = 0;
const idOf = (s: Seeded, seq: number) => `${s.prefix}${String(seq).padStart(24, '0')}`;

/**
 * `rows` payouts of one merchant: seq 1 is the oldest. Two rows share each created_at (the id
 * breaks the tie), ids grow with seq. Statuses: the oldest quarter is failed/cancelled only;
 * the rest cycle through requires_approval, processing and succeeded.
 */
async function seed(rows: number): Promise<Seeded> {
  const client = await srv.merchant(undefined, 'test', { fund: false });
  const m = client.merchantId;
  const q = rows / 4;
  const columns = 'id, merchant_id, environment, amount, currency, country, status, merchant_reference, recipient_type, recipient_bank_code, recipient_holder_name, recipient_account_last4, recipient_account_encrypted, failure_code, failure_message, settle_at, created_at, updated_at';
  const sealed = `v2.k1.${'QUJD'.repeat(20)}`;
  const prefix = `po_0${++seedings}`;
  if (mysql) {
    const status = `CASE WHEN seq <= ${q} THEN IF(seq % 2 = 0, 'failed', 'cancelled') ELSE ELT(1 + seq % 3, 'requires_approval', 'processing', 'succeeded') END`;
    // One connection: the session skips the unique and foreign-key checks of rows made unique by construction.
    const runner = srv.app.db.ds.createQueryRunner();
    await runner.query('SET SESSION unique_checks = 0, foreign_key_checks = 0');
    try {
      await runner.query(
      `INSERT INTO payout_intents (${columns}) SELECT CONCAT('${prefix}', LPAD(seq, 24, '0')), ?, 'test', 100 + seq, 'THB', 'TH', ${status},
        CONCAT('seed-', seq), 'bank_account', 'BBL', 'Somchai Jaidee', '7890', ?, NULL, NULL, NULL,
        ${BASE_T} + (seq DIV 2) * 1000, ${BASE_T} + (seq DIV 2) * 1000 FROM seq_1_to_${rows}`, [m, sealed]);
    } finally {
      await runner.query('SET SESSION unique_checks = 1, foreign_key_checks = 1');
      await runner.release();
    }
    await srv.app.db.ds.query('ANALYZE TABLE payout_intents');
  } else {
    const status = `CASE WHEN n <= ${q} THEN CASE n % 2 WHEN 0 THEN 'failed' ELSE 'cancelled' END ELSE CASE n % 3 WHEN 0 THEN 'requires_approval' WHEN 1 THEN 'processing' ELSE 'succeeded' END END`;
    await srv.app.db.ds.query(
      `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${rows})
       INSERT INTO payout_intents (${columns}) SELECT '${prefix}' || printf('%024d', n), ?, 'test', CAST(100 + n AS TEXT), 'THB', 'TH', ${status},
        'seed-' || n, 'bank_account', 'BBL', 'Somchai Jaidee', '7890', ?, NULL, NULL, NULL,
        ${BASE_T} + (n / 2) * 1000, ${BASE_T} + (n / 2) * 1000 FROM s`, [m, sealed]);
    await srv.app.db.ds.query('ANALYZE');
  }
  return { client, rows, prefix };
}

/** The keyset position right after the `depth`-th newest row. */
function cursorAt(s: Seeded, depth: number): string {
  const seq = s.rows - depth + 1;
  return encodeCursor('payout_intent', { merchantId: s.client.merchantId, environment: 'test' }, {
    t: BASE_T + Math.floor(seq / 2) * 1000,
    id: idOf(s, seq),
  });
}

/** Runs `fn` and returns the SQL (and parameters) of the payout list query it issued. */
async function captureListSql(fn: () => Promise<void>): Promise<[string, unknown[]]> {
  // Lists run through compiledSelect (SQL built once per shape, then sent by EntityManager.query
  // with the request's values); a query built and run by the query builder is seen too.
  // The one-off build with placeholder values (\u0000 sentinels) is not a query that ran.
  const seen: [string, unknown[]][] = [];
  const original = QueryBuilder.prototype.getQueryAndParameters;
  const originalQuery = EntityManager.prototype.query;
  const ran = (params: unknown[]) => !params.some((p) => typeof p === 'string' && p.startsWith('\u0000'));
  QueryBuilder.prototype.getQueryAndParameters = function (this: QueryBuilder<any>) {
    const result = original.call(this) as [string, unknown[]];
    if (ran(result[1])) seen.push(result);
    return result;
  };
  EntityManager.prototype.query = function (this: EntityManager, sql: string, params?: unknown[]) {
    seen.push([sql, params ?? []]);
    return originalQuery.call(this, sql, params as any[]);
  } as typeof originalQuery;
  try {
    await fn();
  } finally {
    QueryBuilder.prototype.getQueryAndParameters = original;
    EntityManager.prototype.query = originalQuery;
  }
  const lists = seen.filter(([sql]) => /payout_intents/.test(sql) && /ORDER BY/.test(sql));
  expect(lists).toHaveLength(1);
  return lists[0];
}

async function listSql(s: Seeded, depth: number, status?: string): Promise<[string, unknown[]]> {
  const qs = new URLSearchParams({ limit: String(LIMIT) });
  if (depth > 0) qs.set('cursor', cursorAt(s, depth));
  if (status) qs.set('status', status);
  return captureListSql(async () => {
    const res = await s.client.get(`/v1/payout_intents?${qs}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(LIMIT);
    if (depth > 0 && !status) {
      // The page starts right after the cursor's row.
      expect(res.body.data[0].id).toBe(idOf(s, s.rows - depth));
    }
  });
}

interface Plan {
  /** MariaDB: rows read from the table (sum of r_rows of its accesses). */
  rowsRead?: number;
  /** MariaDB: access types of the table; SQLite: the plan's lines. */
  lines: string[];
}

async function plan([sql, params]: [string, unknown[]]): Promise<Plan> {
  if (mysql) {
    const rows: any[] = await srv.app.db.ds.query(`ANALYZE ${sql}`, params);
    const base = rows.filter((r) => r.table !== null && !String(r.table).startsWith('<'));
    return {
      rowsRead: base.reduce((sum, r) => sum + Number(r.r_rows), 0),
      lines: base.map((r) => `${r.type} ${r.key}`),
    };
  }
  const rows: any[] = await srv.app.db.ds.query(`EXPLAIN QUERY PLAN ${sql}`, params);
  return { lines: rows.map((r) => String(r.detail)) };
}

/** Median wall time of a page over HTTP, in ms. */
async function pageMs(s: Seeded, depth: number, status?: string, times = 5): Promise<number> {
  const qs = new URLSearchParams({ limit: String(LIMIT) });
  if (depth > 0) qs.set('cursor', cursorAt(s, depth));
  if (status) qs.set('status', status);
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = process.hrtime.bigint();
    const res = await s.client.get(`/v1/payout_intents?${qs}`);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    expect(res.status).toBe(200);
  }
  return ms.sort((a, b) => a - b)[Math.floor(times / 2)];
}

/** The SQL as it was before (OR predicate, no index hint): the control that shows what EXPLAIN catches. */
function legacy([sql, params]: [string, unknown[]]): [string, unknown[]] {
  const q = mysql ? '`' : '"';
  const c = (col: string) => `${q}r${q}.${q}${col}${q}`;
  const from = sql.replace(/ FORCE INDEX \([^)]*\)/g, '')
    .replace(`${c('created_at')} <= ? AND (${c('created_at')} < ? OR ${c('id')} < ?)`, `(${c('created_at')} < ? OR (${c('created_at')} = ? AND ${c('id')} < ?))`);
  return [from, params];
}

async function sqlMs([sql, params]: [string, unknown[]], times = 5): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = process.hrtime.bigint();
    await srv.app.db.ds.query(sql, params);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return ms.sort((a, b) => a - b)[Math.floor(times / 2)];
}

/** Reads at most `maxRows` through `index`: a range from the cursor (a `ref` on the first page, which has no bound). */
function expectRange(p: Plan, index: string, maxRows: number, first = false): void {
  if (mysql) {
    for (const line of p.lines) expect(line).toBe(`${first ? 'ref' : 'range'} ${index}`);
    expect(p.rowsRead).toBeLessThanOrEqual(maxRows);
  } else {
    const uses = p.lines.filter((l) => l.includes(`INDEX ${index} (merchant_id=? AND environment=?`));
    expect(uses.length).toBeGreaterThan(0);
    if (!first) for (const l of uses) expect(l).toMatch(/created_at<\?\)$/);
    else if (index.includes('status')) for (const l of uses) expect(l).toMatch(/status=\?/);
    expect(p.lines.some((l) => /^SCAN r\b/.test(l))).toBe(false);
  }
}

const figures: Record<string, unknown> = {};

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  mysql = srv.app.db.kind === 'mysql';
}, 120_000);

afterAll(async () => {
  // eslint-disable-next-line no-console
  console.log(`listing-explain figures (${mysql ? 'MariaDB' : 'SQLite'}):\n${JSON.stringify(figures, null, 2)}`);
  await srv?.close();
});

describe(`${N.toLocaleString('en')} payouts of one merchant`, () => {
  let s: Seeded;
  beforeAll(async () => {
    const t0 = Date.now();
    s = await seed(N);
    figures.seed100kMs = Date.now() - t0;
  }, 120_000);

  test('every page at 25,000, 50,000 and 75,000 rows deep reads limit + 1 rows by an index range', async () => {
    const rows: Record<string, unknown> = {};
    for (const depth of [0, 25_000, 50_000, 75_000]) {
      const captured = await listSql(s, depth);
      const p = await plan(captured);
      expectRange(p, 'ix_payout_intents_list', LIMIT + 2, depth === 0);
      const before = mysql ? await plan(legacy(captured)) : undefined;
      rows[depth] = {
        rowsRead: p.rowsRead, plan: p.lines, beforeRowsRead: before?.rowsRead,
        pageMs: await pageMs(s, depth), sqlMs: await sqlMs(captured), beforeSqlMs: await sqlMs(legacy(captured), 3),
      };
      if (depth > 0) expect(p.lines.join(' ')).not.toContain('TEMP B-TREE');
    }
    figures.depth = rows;
    if (mysql) {
      // The control: without the hint MariaDB walks the merchant's rows down to the cursor.
      expect((rows[75_000] as any).beforeRowsRead).toBeGreaterThan(50_000);
    }
  }, 120_000);

  test('status=failed,cancelled (a quarter of the rows, the oldest) reads at most 2 x (limit + 1) rows, first page and deep', async () => {
    const rows: Record<string, unknown> = {};
    for (const depth of [0, 80_000]) {
      const captured = await listSql(s, depth, 'failed,cancelled');
      const p = await plan(captured);
      // Per branch: limit + 1, and deep pages may step over the cursor's own row.
      expectRange(p, 'ix_payout_intents_status_list', 2 * (LIMIT + 2), depth === 0);
      rows[depth] = { rowsRead: p.rowsRead, plan: p.lines, pageMs: await pageMs(s, depth, 'failed,cancelled') };
    }
    const single = await plan(await listSql(s, 0, 'processing'));
    expectRange(single, 'ix_payout_intents_status_list', LIMIT + 1, true);
    figures.failedCancelled = rows;
  }, 120_000);

  test('REST and the statement count: 2 per page (authentication + list) at any depth and for several statuses', async () => {
    const count = async (path: string) => {
      const before = srv.app.db.queryCount;
      expect((await s.client.get(path)).status).toBe(200);
      return srv.app.db.queryCount - before;
    };
    expect(await count(`/v1/payout_intents?limit=100&cursor=${cursorAt(s, 75_000)}`)).toBe(2);
    expect(await count('/v1/payout_intents?limit=1&status=failed,cancelled,processing')).toBe(2);
  });
});

describeIf(run1M, 'the 1,000,000-row case runs on SQLite only with LISTING_EXPLAIN_1M=1 (on MariaDB always)')(`${BIG.toLocaleString('en')} payouts of one merchant`, () => {
  let s: Seeded;
  beforeAll(async () => {
    const t0 = Date.now();
    s = await seed(BIG);
    figures.seed1MMs = Date.now() - t0;
  }, 300_000);

  test('pages 250,000, 500,000 and 999,000 rows deep read limit + 1 rows; status=failed,cancelled too', async () => {
    const rows: Record<string, unknown> = {};
    for (const depth of [0, 250_000, 500_000, 999_000]) {
      const captured = await listSql(s, depth);
      const p = await plan(captured);
      expectRange(p, 'ix_payout_intents_list', LIMIT + 2, depth === 0);
      rows[depth] = { rowsRead: p.rowsRead, pageMs: await pageMs(s, depth, undefined, 3) };
    }
    const status = await plan(await listSql(s, 0, 'failed,cancelled'));
    expectRange(status, 'ix_payout_intents_status_list', 2 * (LIMIT + 1), true);
    rows.failedCancelledFirstPage = { rowsRead: status.rowsRead, pageMs: await pageMs(s, 0, 'failed,cancelled', 3) };
    figures.oneMillion = rows;
  }, 300_000);
});
