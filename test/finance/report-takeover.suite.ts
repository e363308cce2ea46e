/**
 * A report run started by a process that is killed finishes in another: a separate gateway
 * process (same database) takes the run and writes part of its CSV; it is killed (SIGKILL)
 * mid-run; once its lease expires, this process takes the run over, starts it again from
 * nothing and finishes it once: every row exactly once, one report_run.succeeded event.
 */
import { parse } from 'csv-parse/sync';
import { startProcess, startServer, TestServer } from '../helpers/server';
import type { Client } from '../helpers/client';
import { waitForStatus } from '../helpers/fixtures';
import { eventually } from '../helpers/client';
import { isMariaDb } from '../../src/db/charset';

// Enough rows that the other process is still writing when it is killed: it is killed a few
// milliseconds after its first chunk (64 KiB, a few hundred rows) is seen, and a report streams
// 10,000-15,000 rows a second on a two-core machine (SQLite, MariaDB), so 30,000 rows leave it
// well over a second to go, and several times that margin on a machine ten times as fast.
const ROWS = 30_000;
const LEASE_MS = '1500';
let srv: TestServer;
let c: Client;

beforeAll(async () => {
  srv = await startServer({ scheduler: false, env: { REPORT_LEASE_MS: LEASE_MS, SCHEDULER_INTERVAL_MS: '20' } });
  c = await srv.merchant(undefined, 'test', { fund: false });
  const mysql = srv.app.db.kind === 'mysql';
  const base = Date.parse('2026-01-01T00:00:00Z');
  const cols = 'id, merchant_id, environment, currency, type, amount, fee, net, tax, status, available_on, source_type, source_id, created_at';
  const values = (n: string, id: string) =>
    `${id}, '${c.merchantId}', 'test', 'THB', 'topup', '100', '0', '100', '0', 'available', ${base} + ${n}, 'topup_intent', 'tu_seed', ${base} + ${n}`;
  if (mysql) {
    // One session that lets the recursive CTE count to ROWS (MariaDB and MySQL 8 name the limit differently).
    const runner = srv.app.db.ds.createQueryRunner();
    try {
      const mariaDb = await isMariaDb(runner);
      await runner.query(mariaDb ? 'SET SESSION max_recursive_iterations = 1000000' : 'SET SESSION cte_max_recursion_depth = 1000000');
      await runner.query(
        `INSERT INTO balance_transactions (${cols}) WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${ROWS}) SELECT ${values('n', "CONCAT('txn_seed', LPAD(n, 22, '0'))")} FROM s`,
      );
    } finally {
      await runner.release();
    }
  } else {
    await srv.app.db.ds.query(
      `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${ROWS}) INSERT INTO balance_transactions (${cols}) SELECT ${values('n', "'txn_seed' || printf('%022d', n)")} FROM s`,
    );
  }
}, 180_000);
afterAll(() => srv?.close());

test('killed mid-run in one process, the run finishes in another, every row once', async () => {
  const created = await c.post('/v1/report_runs', {
    report_type: 'balance_transactions.itemized',
    interval_start: '2025-12-31T00:00:00Z',
    interval_end: '2026-01-02T00:00:00Z',
  });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const chunks = async () => Number((await srv.app.db.ds.query('SELECT COUNT(*) AS n FROM report_chunks WHERE report_run_id = ?', [id]))[0].n);

  const other = await startProcess(srv.database, { REPORT_LEASE_MS: LEASE_MS, SCHEDULER_INTERVAL_MS: '20' });
  await eventually(async () => (await chunks()) > 0, 60_000, 5);
  await other.stop('SIGKILL');
  // Killed mid-run: still pending, part of its file written.
  expect((await c.get(`/v1/report_runs/${id}`)).body.status).toBe('pending');
  expect(await chunks()).toBeGreaterThan(0);

  srv.app.scheduler.start();
  const run = await waitForStatus(c, `/v1/report_runs/${id}`, (s) => s !== 'pending', 60_000);
  expect(run).toMatchObject({ status: 'succeeded', result: { rows: ROWS } });
  const file = await c.get(`/v1/report_runs/${id}/file`);
  const rows: string[][] = parse(file.text);
  expect(rows).toHaveLength(ROWS + 1);
  expect(new Set(rows.slice(1).map((r) => r[0])).size).toBe(ROWS);
  const events = (await c.get('/v1/events?type=report_run.succeeded')).body.data;
  expect(events.filter((e: any) => e.data.object.id === id)).toHaveLength(1);
}, 180_000);
