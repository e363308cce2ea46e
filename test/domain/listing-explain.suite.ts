/**
 * Keyset pages cost the same at any depth: one merchant's payouts are seeded in
 * bulk (INSERT ... SELECT from MariaDB's seq_1_to_N, or a recursive CTE on MySQL 8 and SQLite; rows shaped as
 * the service writes them), the exact SQL of `GET /v1/payout_intents` is captured from the
 * query builder, and the database's plan is checked at 25,000, 50,000 and 75,000 rows deep
 * and in a table of 1,000,000 rows:
 * - MariaDB: `ANALYZE` (runs the statement) reports the rows each table access really read
 *   (`r_rows`): limit + 1 per page (per requested status) at every depth, by an index range;
 * - MySQL 8: `EXPLAIN ANALYZE` (runs it too) gives the same figure as the actual rows of each
 *   table access of its plan tree (seeded from a recursive CTE: MySQL has no seq_1_to_N);
 * - SQLite: `EXPLAIN QUERY PLAN` shows an index range on created_at (or status) and no
 *   temporary b-tree for the ORDER BY of a branch.
 * Page times over HTTP are printed (TEST_LOG_LEVEL does not hide them) for the report.
 * The 1,000,000-row case runs by default on MariaDB and MySQL 8 (~30 s with the seeding) and
 * only with LISTING_EXPLAIN_1M=1 on SQLite.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client } from '../helpers/client';
import { describeIf, usingMysql } from '../helpers/skip';
import { encodeCursor } from '../../src/domain/listing';
import { attemptCursorResource } from '../../src/modules/webhooks/webhook.wire';
import { isMariaDb } from '../../src/db/charset';

const LIMIT = 25;
const N = 100_000;
const BIG = 1_000_000;
const BASE_T = Date.parse('2026-01-01T00:00:00.000Z');
const run1M = usingMysql() || process.env.LISTING_EXPLAIN_1M === '1';

let srv: TestServer;
/** MySQL 8 or MariaDB (`engine` tells which). */
let mysql: boolean;
let engine: 'MariaDB' | 'MySQL 8' | 'SQLite';

/**
 * The numbers 1..rows as a row source named `s` with a column `n`, and the WITH clause that an
 * INSERT ... SELECT puts before its SELECT: MariaDB's sequence engine, else a recursive CTE
 * (MySQL 8 stops one at cte_max_recursion_depth, which the seeding session raises).
 */
function numbers(rows: number): { with: string; from: string } {
  if (engine === 'MariaDB') return { with: '', from: `(SELECT seq AS n FROM seq_1_to_${rows}) s` };
  return { with: `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${rows})`, from: 's' };
}

/** Runs `sql` on one MySQL connection that skips the unique and foreign-key checks (rows made unique by construction). */
async function bulkSql(sql: string, params: unknown[] = []): Promise<void> {
  const runner = srv.app.db.ds.createQueryRunner();
  await runner.query('SET SESSION unique_checks = 0, foreign_key_checks = 0');
  if (engine === 'MySQL 8') await runner.query('SET SESSION cte_max_recursion_depth = 10000000');
  try {
    await runner.query(sql, params);
  } finally {
    await runner.query('SET SESSION unique_checks = 1, foreign_key_checks = 1');
    await runner.release();
  }
}

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
  const columns =
    'id, merchant_id, environment, amount, currency, country, status, merchant_reference, recipient_type, recipient_bank_code, recipient_holder_name, recipient_account_last4, recipient_account_encrypted, failure_code, failure_message, settle_at, created_at, updated_at';
  const sealed = `v2.k1.${'QUJD'.repeat(20)}`;
  const prefix = `po_0${++seedings}`;
  if (mysql) {
    const status = `CASE WHEN n <= ${q} THEN IF(n % 2 = 0, 'failed', 'cancelled') ELSE ELT(1 + n % 3, 'requires_approval', 'processing', 'succeeded') END`;
    const seq = numbers(rows);
    await bulkSql(
      `INSERT INTO payout_intents (${columns}) ${seq.with} SELECT CONCAT('${prefix}', LPAD(n, 24, '0')), ?, 'test', 100 + n, 'THB', 'TH', ${status},
        CONCAT('seed-', n), 'bank_account', 'BBL', 'Somchai Jaidee', '7890', ?, NULL, NULL, NULL,
        ${BASE_T} + (n DIV 2) * 1000, ${BASE_T} + (n DIV 2) * 1000 FROM ${seq.from}`,
      [m, sealed],
    );
    await srv.app.db.ds.query('ANALYZE TABLE payout_intents');
  } else {
    const status = `CASE WHEN n <= ${q} THEN CASE n % 2 WHEN 0 THEN 'failed' ELSE 'cancelled' END ELSE CASE n % 3 WHEN 0 THEN 'requires_approval' WHEN 1 THEN 'processing' ELSE 'succeeded' END END`;
    await srv.app.db.ds.query(
      `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${rows})
       INSERT INTO payout_intents (${columns}) SELECT '${prefix}' || printf('%024d', n), ?, 'test', CAST(100 + n AS TEXT), 'THB', 'TH', ${status},
        'seed-' || n, 'bank_account', 'BBL', 'Somchai Jaidee', '7890', ?, NULL, NULL, NULL,
        ${BASE_T} + (n / 2) * 1000, ${BASE_T} + (n / 2) * 1000 FROM s`,
      [m, sealed],
    );
    await srv.app.db.ds.query('ANALYZE');
  }
  return { client, rows, prefix };
}

/** The keyset position right after the `depth`-th newest row. */
function cursorAt(s: Seeded, depth: number): string {
  const seq = s.rows - depth + 1;
  return encodeCursor(
    'payout_intent',
    { merchantId: s.client.merchantId, environment: 'test' },
    {
      t: BASE_T + Math.floor(seq / 2) * 1000,
      id: idOf(s, seq),
    },
  );
}

/** Runs `fn` and returns the SQL (and parameters) of the payout list query it issued. */
async function captureListSql(fn: () => Promise<void>, table = 'payout_intents'): Promise<[string, unknown[]]> {
  // Every statement sent passes the data source's logger (the service's statement counter),
  // with its SQL and values as sent, however it was built (compiledSelect, listRows).
  const seen: [string, unknown[]][] = [];
  const logger = srv.app.db.ds.logger;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the logger as `this`, and put back as it was
  const logQuery = logger.logQuery;
  logger.logQuery = function (this: typeof logger, sql, params, runner) {
    seen.push([sql, (params as unknown[] | undefined) ?? []]);
    return logQuery.call(this, sql, params, runner);
  };
  try {
    await fn();
  } finally {
    logger.logQuery = logQuery;
  }
  const from = new RegExp(`FROM [\`"]${table}[\`"]`);
  const lists = seen.filter(([sql]) => from.test(sql) && /ORDER BY/.test(sql));
  expect(lists).toHaveLength(1);
  return lists[0];
}

async function listSql(s: Seeded, depth: number, status?: string): Promise<[string, unknown[]]> {
  const qs = new URLSearchParams({ limit: String(LIMIT) });
  if (depth > 0) qs.set('cursor', cursorAt(s, depth));
  if (status) qs.set('status', status);
  return captureListSql(async () => {
    const res = await s.client.get(`/v1/payout_intents?${qs.toString()}`);
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

/**
 * The table accesses of a MySQL 8 `EXPLAIN ANALYZE` tree, as MariaDB's ANALYZE reports them:
 * `range`, `ref`, `eq_ref`, `index` or `ALL` with the index, and the rows each really read
 * (actual rows x loops). A scan of materialized rows (a derived table or a UNION's result: the
 * node right under it materializes) is not a table access and is left out, as MariaDB's
 * `<union...>` and `<derived...>` rows are.
 */
function mysqlTreePlan(tree: string): Plan {
  const types: Record<string, string> = {
    'Index range scan': 'range',
    'Index lookup': 'ref',
    'Single-row index lookup': 'eq_ref',
    'Index scan': 'index',
    'Table scan': 'ALL',
  };
  const access =
    /-> (?:Covering )?(Index range scan|Single-row index lookup|Index lookup|Index scan|Table scan) on (\S+)(?: using (\S+))?.*?\((?:actual time=[\d.]+\.\.[\d.]+ rows=([\d.]+) loops=(\d+)|never executed)\)/;
  const nodes = tree.split('\n');
  const lines: string[] = [];
  let rowsRead = 0;
  nodes.forEach((line, i) => {
    const m = access.exec(line);
    if (!m || m[2].startsWith('<') || /^\s*-> (Union all |Union )?[Mm]aterialize/.test(nodes[i + 1] ?? '')) return;
    lines.push(`${types[m[1]]} ${m[3] ?? 'NULL'}`);
    rowsRead += m[4] === undefined ? 0 : Math.round(Number(m[4]) * Number(m[5]));
  });
  return { rowsRead, lines };
}

async function plan([sql, params]: [string, unknown[]]): Promise<Plan> {
  if (engine === 'MySQL 8') {
    const [row]: Record<string, string>[] = await srv.app.db.ds.query(`EXPLAIN ANALYZE ${sql}`, params);
    const tree = Object.values(row)[0];
    const p = mysqlTreePlan(tree);
    if (process.env.LISTING_EXPLAIN_TREES === '1') console.log(`${sql}\n${tree}\n=> ${JSON.stringify(p)}`);
    return p;
  }
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
    const res = await s.client.get(`/v1/payout_intents?${qs.toString()}`);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    expect(res.status).toBe(200);
  }
  return ms.sort((a, b) => a - b)[Math.floor(times / 2)];
}

/** The SQL as it was before (OR predicate, no index hint): the control that shows what EXPLAIN catches. */
function legacy([sql, params]: [string, unknown[]]): [string, unknown[]] {
  const q = mysql ? '`' : '"';
  const c = (col: string) => `${q}r${q}.${q}${col}${q}`;
  const from = sql
    .replace(/ FORCE INDEX \([^)]*\)/g, '')
    .replace(
      `${c('created_at')} <= ? AND (${c('created_at')} < ? OR ${c('id')} < ?)`,
      `(${c('created_at')} < ? OR (${c('created_at')} = ? AND ${c('id')} < ?))`,
    );
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
    expect(p.lines.length).toBeGreaterThan(0);
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
  // Every request reads its key (API_KEY_CACHE_MS 0): the statement count is authentication + list.
  srv = await startServer({ scheduler: false, env: { API_KEY_CACHE_MS: '0' } });
  mysql = srv.app.db.kind === 'mysql';
  engine = !mysql ? 'SQLite' : (await isMariaDb(srv.app.db.ds)) ? 'MariaDB' : 'MySQL 8';
}, 120_000);

afterAll(async () => {
  console.log(`listing-explain figures (${engine}):\n${JSON.stringify(figures, null, 2)}`);
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
        rowsRead: p.rowsRead,
        plan: p.lines,
        beforeRowsRead: before?.rowsRead,
        pageMs: await pageMs(s, depth),
        sqlMs: await sqlMs(captured),
        beforeSqlMs: await sqlMs(legacy(captured), 3),
      };
      if (depth > 0) expect(p.lines.join(' ')).not.toContain('TEMP B-TREE');
    }
    figures.depth = rows;
    if (engine === 'MariaDB') {
      // The control: without the hint MariaDB walks the merchant's rows down to the cursor.
      expect((rows[75_000] as any).beforeRowsRead).toBeGreaterThan(50_000);
    }
    if (engine === 'MySQL 8') {
      // MySQL 8's range optimizer turns the old OR predicate into two index ranges by itself:
      // the hint and the rewrite are for MariaDB, and cost MySQL nothing.
      for (const depth of [25_000, 50_000, 75_000]) expect((rows[depth] as any).beforeRowsRead).toBeLessThanOrEqual(LIMIT + 2);
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

  /**
   * A GraphQL page of payoutIntents: `paging` its arguments (first/after or last/before, sortKey,
   * reverse), `cursor` the cursor variable. Returns the list statement it sent.
   */
  async function gqlListSql(paging: string, cursor: string | null): Promise<[string, unknown[]]> {
    return captureListSql(async () => {
      const res = await s.client.gql(`query${paging.includes('$c') ? '($c: String)' : ''} { payoutIntents(${paging}) { nodes { id } } }`, { c: cursor });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.payoutIntents.nodes).toHaveLength(LIMIT);
    });
  }

  /** A sorted or backward page: every table access is a range (a `ref` without a cursor) of `index`, limit + 1 rows; no sort of the table's rows. */
  function expectSortedRange(p: Plan, index: string, maxRows: number, union = false): void {
    if (mysql) {
      expect(p.lines.length).toBeGreaterThan(0);
      for (const line of p.lines) expect(['range', 'ref']).toContain(line.split(' ')[0]);
      for (const line of p.lines) expect(line.split(' ')[1]).toBe(index);
      expect(p.rowsRead).toBeLessThanOrEqual(maxRows);
    } else {
      const uses = p.lines.filter((l) => l.includes(`INDEX ${index} (merchant_id=? AND environment=?`));
      expect(uses.length).toBeGreaterThan(0);
      // (A status filter's UNION ALL sorts the branches' limit + 1 rows each: `SCAN r_0`, `TEMP B-TREE`.)
      if (!union) expect(p.lines.join(' ')).not.toContain('TEMP B-TREE');
      expect(p.lines.some((l) => /^SCAN r\b/.test(l))).toBe(false);
    }
  }

  test('sortKey AMOUNT and STATUS, either direction, forward and backward: each page a range of its sort index, first page and 50,000 deep', async () => {
    const scope = { merchantId: s.client.merchantId, environment: 'test' as const };
    const seq = s.rows - 50_000 + 1;
    // The row 50,000 deep by amount (amount = 100 + seq), and a position among the `processing` rows.
    const cursors: Record<string, string> = {
      AMOUNT: encodeCursor('payout_intent', scope, { t: 0, id: idOf(s, seq), k: String(100 + seq) }, 'amount'),
      STATUS: encodeCursor('payout_intent', scope, { t: 0, id: idOf(s, seq), k: 'processing' }, 'status'),
    };
    const rows: Record<string, unknown> = {};
    const failures: string[] = [];
    for (const sortKey of ['AMOUNT', 'STATUS']) {
      const index = `ix_payout_intents_${sortKey.toLowerCase()}_sort`;
      for (const reverse of [false, true]) {
        for (const [name, paging, cursor] of [
          ['first page', `first: ${LIMIT}`, null],
          ['last page', `last: ${LIMIT}`, null],
          ['after, deep', `first: ${LIMIT}, after: $c`, cursors[sortKey]],
          ['before, deep', `last: ${LIMIT}, before: $c`, cursors[sortKey]],
        ] as const) {
          const p = await plan(await gqlListSql(`${paging}, sortKey: ${sortKey}, reverse: ${reverse}`, cursor));
          rows[`${sortKey} reverse=${reverse} ${name}`] = mysql ? p.rowsRead : p.lines.join(' | ');
          try {
            expectSortedRange(p, index, LIMIT + 2);
          } catch (e) {
            failures.push(
              `${sortKey} reverse=${reverse} ${name}: ${p.lines.join(' | ')} rows=${p.rowsRead}\n${(e as Error).message.split('\n').slice(0, 4).join(' ')}`,
            );
          }
        }
      }
    }
    figures.sorted = rows;
    expect(failures).toEqual([]);
  }, 120_000);

  test('backward pages of the default order read the list index from the cursor up: limit + 1 rows at 25,000 and 75,000 deep', async () => {
    const rows: Record<string, unknown> = {};
    for (const depth of [25_000, 75_000]) {
      const p = await plan(await gqlListSql(`last: ${LIMIT}, before: $c`, cursorAt(s, depth)));
      rows[depth] = mysql ? p.rowsRead : p.lines.join(' | ');
      expectSortedRange(p, 'ix_payout_intents_list', LIMIT + 2);
      if (!mysql) expect(p.lines.some((l) => /created_at>\?\)$/.test(l))).toBe(true);
    }
    const status = await plan(await gqlListSql(`last: ${LIMIT}, before: $c, filter: { status: [FAILED, CANCELLED] }`, cursorAt(s, 80_000)));
    expectSortedRange(status, 'ix_payout_intents_status_list', 2 * (LIMIT + 2), true);
    rows.failedCancelled = mysql ? status.rowsRead : status.lines.join(' | ');
    figures.backward = rows;
  }, 120_000);

  test('totalCount stops at 10,000 (totalCountCapped), reading at most 10,001 index entries', async () => {
    const seen: [string, unknown[]][] = [];
    const logger = srv.app.db.ds.logger;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the logger as `this`, and put back as it was
    const logQuery = logger.logQuery;
    logger.logQuery = function (this: typeof logger, sql, params, runner) {
      seen.push([sql, (params as unknown[] | undefined) ?? []]);
      return logQuery.call(this, sql, params, runner);
    };
    let res;
    try {
      res = await s.client.gql(
        '{ all: payoutIntents(first: 1) { totalCount totalCountCapped } failed: payoutIntents(first: 1, filter: { status: [FAILED] }) { totalCount } }',
      );
    } finally {
      logger.logQuery = logQuery;
    }
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.all).toEqual({ totalCount: 10_000, totalCountCapped: true });
    expect(res.body.data.failed.totalCount).toBe(10_000);
    const counts = seen.filter(([sql]) => /^SELECT COUNT\(\*\)/.test(sql));
    expect(counts).toHaveLength(2);
    const read: unknown[] = [];
    for (const [i, captured] of counts.entries()) {
      const p = await plan(captured);
      read.push(mysql ? p.rowsRead : p.lines.join(' | '));
      const index = i === 0 ? 'ix_payout_intents_list' : 'ix_payout_intents_status_list';
      if (mysql) {
        for (const line of p.lines) expect(line).toMatch(new RegExp(`^(ref|range) ${index}$`));
        expect(p.rowsRead).toBeLessThanOrEqual(10_001);
      } else {
        // The planner picks the smallest index with the (merchant_id, environment[, status]) prefix; never a scan of the table.
        const prefix = i === 0 ? '(merchant_id=? AND environment=?' : '(merchant_id=? AND environment=? AND status=?';
        expect([p.lines, p.lines.some((l) => l.includes(prefix))]).toEqual([p.lines, true]);
        expect(p.lines.some((l) => /^SCAN r\b/.test(l))).toBe(false);
      }
    }
    figures.totalCount = read;
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

describeIf(run1M, 'the 1,000,000-row case runs on SQLite only with LISTING_EXPLAIN_1M=1 (on MariaDB always)')(
  `${BIG.toLocaleString('en')} payouts of one merchant`,
  () => {
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
  },
);

/*
 * The other lists and their filters, each table seeded once with M rows of one merchant (seq 1
 * is the oldest; two rows share each created_at, the id breaks the tie; ids grow with seq):
 * every page at 25,000, 50,000 and 75,000 rows deep (the cursor is the keyset position of the
 * row that deep in the unfiltered list) reads about the same number of rows, by an index range.
 * A filter that no index answers (country, operation, a `type` wildcard) reads the rows of the
 * list index from the cursor until the page is full: a number that depends on how common the
 * value is, not on the depth. Each page's ids are checked against a plain reference query.
 */
const M = 80_000;
const DEPTHS = [0, 25_000, 50_000, 75_000];

interface Table {
  table: string;
  prefix: string;
  /** Cursor namespace. */
  resource: string;
}

/** Dialect helpers for the seeding SQL (`n` is the row's seq). */
const sqlText = (e: string) => (mysql ? `CAST(${e} AS CHAR)` : `CAST(${e} AS TEXT)`);
const sqlCat = (...parts: string[]) => (mysql ? `CONCAT(${parts.join(', ')})` : parts.join(' || '));
const sqlId = (prefix: string) => (mysql ? `CONCAT('${prefix}', LPAD(n, 24, '0'))` : `'${prefix}' || printf('%024d', n)`);
const sqlTime = () => (mysql ? `${BASE_T} + (n DIV 2) * 1000` : `${BASE_T} + (n / 2) * 1000`);
const seqId = (prefix: string, seq: number) => `${prefix}${String(seq).padStart(24, '0')}`;

async function bulkInsert(table: string, columns: Record<string, string>, rows = M): Promise<void> {
  const names = Object.keys(columns).join(', ');
  const values = Object.values(columns).join(', ');
  if (mysql) {
    const seq = numbers(rows);
    await bulkSql(`INSERT INTO ${table} (${names}) ${seq.with} SELECT ${values} FROM ${seq.from}`);
    await srv.app.db.ds.query(`ANALYZE TABLE ${table}`);
  } else {
    await srv.app.db.ds.query(
      `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${rows}) INSERT INTO ${table} (${names}) SELECT ${values} FROM s`,
    );
  }
}

interface ListCase {
  name: string;
  path: string;
  t: Table;
  query?: Record<string, string>;
  /** The reference query's filter (beyond scope and keyset), with its values. */
  ref?: [string, unknown[]];
  /** Indexes the plan may use (any of them; MariaDB: every access uses one). */
  indexes: string[];
  /** Most rows a page may read (MariaDB), at every depth. */
  maxRows: number;
}

describe(`${M.toLocaleString('en')} rows in each of the other listed tables, one merchant`, () => {
  let c: Client;
  let endpointId: string;
  const T = {
    payments: { table: 'payment_intents', prefix: 'pi_0', resource: 'payment_intent' },
    topups: { table: 'topup_intents', prefix: 'tu_0', resource: 'topup_intent' },
    refunds: { table: 'refunds', prefix: 're_0', resource: 'refund' },
    events: { table: 'events', prefix: 'evt_0', resource: 'event' },
    audit: { table: 'audit_log', prefix: 'aud_0', resource: 'audit_entry' },
    attempts: { table: 'webhook_attempts', prefix: 'wa_0', resource: '' },
    txns: { table: 'balance_transactions', prefix: 'txn_0', resource: 'balance_transaction' },
  } satisfies Record<string, Table>;
  /** The record half of the balance transactions are movements of. */
  const movedRecord = `pi_${'0'.repeat(25)}1`;
  /** The payment intent that half of the refunds belong to; the record half of the audit entries are about; the endpoint of half of the attempts. */
  const refundedPayment = seqId(T.payments.prefix, M);
  const auditedRecord = 'po_target';

  beforeAll(async () => {
    const t0 = Date.now();
    c = await srv.merchant(undefined, 'test', { fund: false });
    const ep = await c.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' });
    expect(ep.status).toBe(201);
    endpointId = ep.body.id;
    T.attempts.resource = attemptCursorResource(endpointId);
    const sealed = `v2.k1.${'QUJD'.repeat(20)}`;
    const m = c.merchantId;
    const common = (t: Table) => ({ id: sqlId(t.prefix), merchant_id: `'${m}'`, environment: "'test'" });
    const q = M / 4;
    // Oldest quarter: failed/cancelled only (payments), expired only (topups); refunds cycle through their states.
    await bulkInsert('payment_intents', {
      ...common(T.payments),
      amount: sqlText('100 + n'),
      currency: "'THB'",
      country: "CASE WHEN n % 4 = 0 THEN 'MY' ELSE 'TH' END",
      checkout_mode: "'direct'",
      status: `CASE WHEN n <= ${q} THEN CASE WHEN n % 2 = 0 THEN 'failed' ELSE 'cancelled' END ELSE CASE n % 3 WHEN 0 THEN 'requires_action' WHEN 1 THEN 'processing' ELSE 'succeeded' END END`,
      merchant_reference: sqlCat("'seed-'", sqlText('n')),
      request_fingerprint: "'f'",
      payer_encrypted: `'${sealed}'`,
      checkout_token: sqlCat(`'tok-${m}-'`, sqlText('n')),
      expires_at: sqlTime(),
      created_at: sqlTime(),
      updated_at: sqlTime(),
      amount_refunded: "'0'",
    });
    await bulkInsert('topup_intents', {
      ...common(T.topups),
      amount: sqlText('100 + n'),
      currency: "'THB'",
      country: "'TH'",
      status: `CASE WHEN n <= ${q} THEN 'expired' ELSE CASE n % 3 WHEN 0 THEN 'requires_action' WHEN 1 THEN 'failed' ELSE 'succeeded' END END`,
      merchant_reference: sqlCat("'seed-'", sqlText('n')),
      expires_at: sqlTime(),
      created_at: sqlTime(),
      updated_at: sqlTime(),
    });
    // Even seqs: refunds of one payment intent (40,000 of them); odd: of the payment with the same seq.
    await bulkInsert('refunds', {
      ...common(T.refunds),
      payment_intent_id: `CASE WHEN n % 2 = 0 THEN '${refundedPayment}' ELSE ${sqlId(T.payments.prefix)} END`,
      amount: "'1'",
      currency: "'THB'",
      country: "'TH'",
      status: "CASE n % 3 WHEN 0 THEN 'pending' WHEN 1 THEN 'succeeded' ELSE 'failed' END",
      merchant_reference: sqlCat("'seed-'", sqlText('n')),
      provider: "'mock'",
      settle_at: 'NULL',
      created_at: sqlTime(),
      updated_at: sqlTime(),
    });
    await bulkInsert('events', {
      ...common(T.events),
      type: "CASE n % 4 WHEN 0 THEN 'payout_intent.created' WHEN 1 THEN 'payout_intent.succeeded' WHEN 2 THEN 'payment_intent.created' ELSE 'payment_intent.succeeded' END",
      resource_id: "'po_x'",
      data: `'{"object":{"object":"payout_intent","id":"po_x"}}'`,
      request_id: 'NULL',
      created_at: sqlTime(),
      seq: 'NULL',
    });
    await bulkInsert('audit_log', {
      ...common(T.audit),
      api_key_id: "'key_x'",
      action: "CASE WHEN n % 4 = 0 THEN 'POST /v1/payout_intents/:id/cancel' ELSE 'POST /v1/payout_intents' END",
      resource_type: "'payout_intent'",
      resource_id: `CASE WHEN n % 2 = 0 THEN '${auditedRecord}' ELSE ${sqlCat("'po_'", sqlText('n'))} END`,
      reason: 'NULL',
      request_id: 'NULL',
      created_at: sqlTime(),
      status_code: '200',
    });
    await bulkInsert('webhook_attempts', {
      ...common(T.attempts),
      delivery_id: "'wd_x'",
      endpoint_id: `CASE WHEN n % 2 = 0 THEN '${endpointId}' ELSE 'we_other' END`,
      event_id: "'evt_x'",
      attempt_number: '1',
      status_code: '200',
      error: 'NULL',
      duration_ms: '5',
      created_at: sqlTime(),
    });
    // Types cycle payment, payment_fee, payout, refund; a quarter is in USD; even seqs are one record's.
    await bulkInsert('balance_transactions', {
      ...common(T.txns),
      currency: "CASE WHEN n % 4 = 1 THEN 'USD' ELSE 'THB' END",
      type: "CASE n % 4 WHEN 0 THEN 'payment' WHEN 1 THEN 'payment_fee' WHEN 2 THEN 'payout' ELSE 'refund' END",
      amount: sqlText('100 + n'),
      fee: "'0'",
      net: sqlText('100 + n'),
      tax: "'0'",
      status: "'available'",
      available_on: sqlTime(),
      source_type: "'payment_intent'",
      source_id: `CASE WHEN n % 2 = 0 THEN '${movedRecord}' ELSE ${sqlId('pi_0')} END`,
      created_at: sqlTime(),
    });
    if (!mysql) await srv.app.db.ds.query('ANALYZE');
    figures.seedOtherListsMs = Date.now() - t0;
  }, 300_000);

  function cursor(t: Table, depth: number): string {
    const seq = M - depth + 1;
    return encodeCursor(t.resource, { merchantId: c.merchantId, environment: 'test' }, { t: BASE_T + Math.floor(seq / 2) * 1000, id: seqId(t.prefix, seq) });
  }

  /** The page's ids by a plain query: scope, the case's filter, the keyset, newest first. */
  async function reference(k: ListCase, depth: number): Promise<string[]> {
    const [filter, values] = k.ref ?? ['1 = 1', []];
    const seq = M - depth + 1;
    const keyset = depth > 0 ? 'AND (created_at < ? OR (created_at = ? AND id < ?))' : '';
    const at = BASE_T + Math.floor(seq / 2) * 1000;
    const rows: { id: string }[] = await srv.app.db.ds.query(
      `SELECT id FROM ${k.t.table} WHERE merchant_id = ? AND environment = 'test' AND ${filter} ${keyset} ORDER BY created_at DESC, id DESC LIMIT ${LIMIT}`,
      [c.merchantId, ...values, ...(depth > 0 ? [at, at, seqId(k.t.prefix, seq)] : [])],
    );
    return rows.map((r) => r.id);
  }

  async function pageOf(k: ListCase, depth: number): Promise<[string, unknown[]]> {
    const qs = new URLSearchParams({ limit: String(LIMIT), ...k.query });
    if (depth > 0) qs.set('cursor', cursor(k.t, depth));
    return captureListSql(async () => {
      const res = await c.get(`${k.path}?${qs.toString()}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(LIMIT);
      expect(res.body.data.map((r: { id: string }) => r.id)).toEqual(await reference(k, depth));
    }, k.t.table);
  }

  function expectIndexRange(k: ListCase, p: Plan, first: boolean): void {
    if (mysql) {
      expect(p.lines.length).toBeGreaterThan(0);
      for (const line of p.lines) {
        const [type, key] = line.split(' ');
        expect(k.indexes).toContain(key);
        expect(first ? ['ref', 'range'] : ['range']).toContain(type);
      }
      expect(p.rowsRead).toBeLessThanOrEqual(k.maxRows);
    } else {
      const uses = p.lines.filter((l) => k.indexes.some((ix) => l.includes(`INDEX ${ix} (`)));
      expect(uses.length).toBeGreaterThan(0);
      if (!first) for (const l of uses) expect(l).toMatch(/created_at<\?\)$/);
      // Every access to the table is by one of those indexes, and no sort of the table's rows.
      // (`SCAN r_0` and its sort are the merge of a UNION ALL branch's limit + 1 rows.)
      for (const l of p.lines.filter((x) => /^(SEARCH|SCAN) [a-z]\b/.test(x))) expect(k.indexes.some((ix) => l.includes(`INDEX ${ix} (`))).toBe(true);
      expect(p.lines.some((l) => /RIGHT PART OF ORDER BY|LAST TERM OF ORDER BY/.test(l))).toBe(false);
    }
  }

  const cases = (): ListCase[] => [
    { name: 'payment_intents', path: '/v1/payment_intents', t: T.payments, indexes: ['ix_payment_intents_list'], maxRows: LIMIT + 2 },
    {
      name: 'payment_intents status=failed',
      path: '/v1/payment_intents',
      t: T.payments,
      query: { status: 'failed' },
      ref: ["status = 'failed'", []],
      indexes: ['ix_payment_intents_status_list'],
      maxRows: LIMIT + 2,
    },
    {
      name: 'payment_intents status=succeeded,failed,cancelled',
      path: '/v1/payment_intents',
      t: T.payments,
      query: { status: 'succeeded,failed,cancelled' },
      ref: ["status IN ('succeeded', 'failed', 'cancelled')", []],
      indexes: ['ix_payment_intents_status_list'],
      maxRows: 3 * (LIMIT + 2),
    },
    // A quarter of the rows: about 4 x (limit + 1) rows of the list index, at any depth.
    {
      name: 'payment_intents country=MY',
      path: '/v1/payment_intents',
      t: T.payments,
      query: { country: 'MY' },
      ref: ["country = 'MY'", []],
      indexes: ['ix_payment_intents_list'],
      maxRows: 4 * (LIMIT + 2),
    },
    {
      name: 'payment_intents currency=THB status=cancelled',
      path: '/v1/payment_intents',
      t: T.payments,
      query: { currency: 'THB', status: 'cancelled' },
      ref: ["currency = 'THB' AND status = 'cancelled'", []],
      indexes: ['ix_payment_intents_status_list'],
      maxRows: LIMIT + 2,
    },
    { name: 'topup_intents', path: '/v1/topup_intents', t: T.topups, indexes: ['ix_topup_intents_list'], maxRows: LIMIT + 2 },
    {
      name: 'topup_intents status=succeeded,expired',
      path: '/v1/topup_intents',
      t: T.topups,
      query: { status: 'succeeded,expired' },
      ref: ["status IN ('succeeded', 'expired')", []],
      indexes: ['ix_topup_intents_status_list'],
      maxRows: 2 * (LIMIT + 2),
    },
    { name: 'refunds', path: '/v1/refunds', t: T.refunds, indexes: ['ix_refunds_list'], maxRows: LIMIT + 2 },
    {
      name: 'refunds status=pending,failed',
      path: '/v1/refunds',
      t: T.refunds,
      query: { status: 'pending,failed' },
      ref: ["status IN ('pending', 'failed')", []],
      indexes: ['ix_refunds_status_list'],
      maxRows: 2 * (LIMIT + 2),
    },
    {
      name: 'refunds payment_intent',
      path: '/v1/refunds',
      t: T.refunds,
      query: { payment_intent: refundedPayment },
      ref: ['payment_intent_id = ?', [refundedPayment]],
      indexes: ['ix_refunds_payment'],
      maxRows: LIMIT + 2,
    },
    {
      name: 'refunds payment_intent status=failed',
      path: '/v1/refunds',
      t: T.refunds,
      query: { payment_intent: refundedPayment, status: 'failed' },
      ref: ["payment_intent_id = ? AND status = 'failed'", [refundedPayment]],
      indexes: ['ix_refunds_payment'],
      maxRows: 3 * (LIMIT + 2),
    },
    { name: 'events', path: '/v1/events', t: T.events, indexes: ['ix_events_list'], maxRows: LIMIT + 2 },
    {
      name: 'events type=payout_intent.succeeded',
      path: '/v1/events',
      t: T.events,
      query: { type: 'payout_intent.succeeded' },
      ref: ["type = 'payout_intent.succeeded'", []],
      indexes: ['ix_events_type_list'],
      maxRows: LIMIT + 2,
    },
    {
      name: 'events type=payout_intent.created,payment_intent.created',
      path: '/v1/events',
      t: T.events,
      query: { type: 'payout_intent.created,payment_intent.created' },
      ref: ["type IN ('payout_intent.created', 'payment_intent.created')", []],
      indexes: ['ix_events_type_list'],
      maxRows: 2 * (LIMIT + 2),
    },
    // Half of the rows: about 2 x (limit + 1) rows of the list index, at any depth.
    {
      name: 'events type=payout_intent.*',
      path: '/v1/events',
      t: T.events,
      query: { type: 'payout_intent.*' },
      ref: ["type LIKE 'payout_intent.%'", []],
      indexes: ['ix_events_list'],
      maxRows: 2 * (LIMIT + 2),
    },
    { name: 'audit_log', path: '/v1/audit_log', t: T.audit, indexes: ['ix_audit_log_list'], maxRows: LIMIT + 2 },
    {
      name: 'audit_log resource_id',
      path: '/v1/audit_log',
      t: T.audit,
      query: { resource_id: auditedRecord },
      ref: ['resource_id = ?', [auditedRecord]],
      indexes: ['ix_audit_log_resource_list'],
      maxRows: LIMIT + 2,
    },
    // A quarter of the rows.
    {
      name: 'audit_log operation',
      path: '/v1/audit_log',
      t: T.audit,
      query: { operation: 'POST /v1/payout_intents/:id/cancel' },
      ref: ["action = 'POST /v1/payout_intents/:id/cancel'", []],
      indexes: ['ix_audit_log_list'],
      maxRows: 4 * (LIMIT + 2),
    },
    {
      name: 'webhook attempts',
      path: `/v1/webhook_endpoints/${endpointId}/attempts`,
      t: T.attempts,
      ref: ['endpoint_id = ?', [endpointId]],
      indexes: ['ix_webhook_attempts_endpoint'],
      maxRows: LIMIT + 2,
    },
    { name: 'balance_transactions', path: '/v1/balance_transactions', t: T.txns, indexes: ['ix_balance_transactions_list'], maxRows: LIMIT + 2 },
    {
      name: 'balance_transactions type=payment_fee',
      path: '/v1/balance_transactions',
      t: T.txns,
      query: { type: 'payment_fee' },
      ref: ["type = 'payment_fee'", []],
      indexes: ['ix_balance_transactions_type_list'],
      maxRows: LIMIT + 2,
    },
    {
      name: 'balance_transactions type=payment,payout',
      path: '/v1/balance_transactions',
      t: T.txns,
      query: { type: 'payment,payout' },
      ref: ["type IN ('payment', 'payout')", []],
      indexes: ['ix_balance_transactions_type_list'],
      maxRows: 2 * (LIMIT + 2),
    },
    {
      name: 'balance_transactions source',
      path: '/v1/balance_transactions',
      t: T.txns,
      query: { source: movedRecord },
      ref: ['source_id = ?', [movedRecord]],
      indexes: ['ix_balance_transactions_source'],
      maxRows: LIMIT + 2,
    },
    {
      name: 'balance_transactions currency=USD',
      path: '/v1/balance_transactions',
      t: T.txns,
      query: { currency: 'USD' },
      ref: ["currency = 'USD'", []],
      indexes: ['ix_balance_transactions_currency_list'],
      maxRows: LIMIT + 2,
    },
  ];

  test('every list and filter: each page at 25,000, 50,000 and 75,000 rows deep reads about the same rows by an index range, with the same answer as a plain query', async () => {
    const rows: Record<string, unknown> = {};
    const failures: string[] = [];
    for (const k of cases()) {
      const read: Record<number, unknown> = {};
      for (const depth of DEPTHS) {
        let p: Plan | undefined;
        try {
          p = await plan(await pageOf(k, depth));
          read[depth] = mysql ? p.rowsRead : p.lines.join(' | ');
          expectIndexRange(k, p, depth === 0);
        } catch (e) {
          failures.push(`${k.name} @${depth}: ${p?.lines.join(' | ')} rows=${p?.rowsRead}\n${(e as Error).message.split('\n').slice(0, 4).join(' ')}`);
        }
      }
      rows[k.name] = read;
    }
    figures.otherLists = rows;
    expect(failures).toEqual([]);
  }, 600_000);

  test('GraphQL connections send the same SQL as their REST lists', async () => {
    const after = cursor(T.events, 50_000);
    const rest = await captureListSql(async () => {
      expect((await c.get(`/v1/events?limit=${LIMIT}&type=payout_intent.succeeded,payment_intent.created&cursor=${after}`)).status).toBe(200);
    }, 'events');
    const gql = await captureListSql(async () => {
      const res = await c.gql(
        `query($after: String) { events(first: ${LIMIT}, after: $after, filter: { type: ["payout_intent.succeeded", "payment_intent.created"] }) { edges { node { id } } } }`,
        { after },
      );
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.events.edges).toHaveLength(LIMIT);
    }, 'events');
    expect(gql).toEqual(rest);
    const refundsAfter = cursor(T.refunds, 50_000);
    const restRefunds = await captureListSql(async () => {
      expect((await c.get(`/v1/refunds?limit=${LIMIT}&payment_intent=${refundedPayment}&cursor=${refundsAfter}`)).status).toBe(200);
    }, 'refunds');
    const gqlRefunds = await captureListSql(async () => {
      const res = await c.gql(
        `query($after: String, $pi: ID) { refunds(first: ${LIMIT}, after: $after, filter: { paymentIntent: $pi }) { edges { node { id } } } }`,
        { after: refundsAfter, pi: refundedPayment },
      );
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.refunds.edges).toHaveLength(LIMIT);
    }, 'refunds');
    expect(gqlRefunds).toEqual(restRefunds);
  });
});
