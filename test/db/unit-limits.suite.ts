/**
 * The statement limit of a unit of work (src/db/unit.ts), kept through TypeORM's query events
 * (the beforeQuery and afterQuery of `StatementTimers`, a subscriber the DataSource's
 * `subscribers` option names) instead of a replaced `QueryRunner.query`:
 * a statement that runs longer than DB_QUERY_TIMEOUT_MS fails its unit with 503's error and
 * takes its connection out of the pool, while a server that still answers is not an outage;
 * a statement that finished in time leaves no timer behind. SQLite is embedded and
 * synchronous: no limit applies there, and its units run as before. A MySQL DataSource
 * without the subscriber is refused.
 */
import { DataSource } from 'typeorm';
import { DEFAULT_DB_SETTINGS } from '../../src/config';
import { DatabaseUnavailableError } from '../../src/db/db';
import { OutageProbe } from '../../src/db/outage';
import { StatementTimers, Units } from '../../src/db/unit';
import { startServer, TestServer } from '../helpers/server';
import { NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ scheduler: false, env: { DB_QUERY_TIMEOUT_MS: '400', DB_PROBE_AFTER_MS: '5000' } });
});

afterAll(async () => {
  await srv?.close();
});

testIf(usingMysql(), NEEDS_MYSQL)('a statement past DB_QUERY_TIMEOUT_MS fails its unit at once; the database stays available', async () => {
  const started = Date.now();
  const failed = await srv.app.db.tx((tx) => tx.query('SELECT SLEEP(3)')).catch((err: unknown) => err);
  expect(failed).toBeInstanceOf(DatabaseUnavailableError);
  expect((failed as DatabaseUnavailableError).reason).toBe('timeout: statement');
  expect(Date.now() - started).toBeLessThan(2500);
  expect(srv.app.db.available).toBe(true);
  expect(await srv.app.db.read((em) => em.query('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
});

testIf(usingMysql(), NEEDS_MYSQL)('statements each get their own limit: a unit of several short ones longer than the limit in all succeeds', async () => {
  const answers = await srv.app.db.tx(async (tx) => {
    const out: unknown[] = [];
    for (let i = 0; i < 4; i++) out.push(await tx.query('SELECT SLEEP(0.15) AS s'));
    return out;
  });
  expect(answers).toHaveLength(4);
});

test('a finished unit leaves no statement timer behind: its connection serves the next units', async () => {
  for (let i = 0; i < 3; i++) await srv.app.db.tx((tx) => tx.query('SELECT 1 AS one'));
  await new Promise((resolve) => setTimeout(resolve, 600));
  const again = await srv.app.db.tx((tx) => tx.query('SELECT 1 AS one'));
  expect(again).toEqual([{ one: 1 }]);
  expect(srv.app.db.available).toBe(true);
});

test("units refuse a MySQL DataSource whose subscribers do not time statements; the service's has the timer", () => {
  // Not initialized: no connection is opened.
  const bare = new DataSource({ type: 'mysql', url: 'mysql://root@127.0.0.1:9/none' });
  expect(() => new Units(bare, DEFAULT_DB_SETTINGS, new OutageProbe(bare, DEFAULT_DB_SETTINGS))).toThrow(/StatementTimers/);
  const timed = new DataSource({ type: 'mysql', url: 'mysql://root@127.0.0.1:9/none', subscribers: [StatementTimers] });
  expect(() => new Units(timed, DEFAULT_DB_SETTINGS, new OutageProbe(timed, DEFAULT_DB_SETTINGS))).not.toThrow();
  const ds = srv.app.db.ds;
  expect(ds.subscribers.some((s) => s instanceof StatementTimers)).toBe(ds.options.type === 'mysql');
});
