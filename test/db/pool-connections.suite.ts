/**
 * The pool's open connections (MySQL/MariaDB), kept by the mysql2 module the DataSource is
 * given as its `driver` option (src/db/mysql-session.ts `openConnections`), for Db's last
 * resort when the pool does not end: the connections opened before Db was made count too, each
 * new one is added as it opens and each one lost leaves. No cast reaches TypeORM's driver.
 */
import { openConnections } from '../../src/db/mysql-session';
import { connectMysql } from '../helpers/mysql';
import { startServer, TestServer } from '../helpers/server';
import { NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
});

afterAll(async () => {
  await srv?.close();
});

const until = async (done: () => boolean, ms = 5000) => {
  for (const end = Date.now() + ms; !done() && Date.now() < end;) await new Promise((resolve) => setTimeout(resolve, 20));
};

testIf(usingMysql(), NEEDS_MYSQL)('the open connections: those already open, each new one, and none that was lost', async () => {
  const open = new Set<object>();
  expect(openConnections(srv.app.db.ds, open)).toBe(true);
  // The service's start (migrations, checks) has used the pool already.
  expect(open.size).toBeGreaterThan(0);
  // Three reads at once hold three connections.
  const ids = await Promise.all(
    [0, 1, 2].map(() => srv.app.db.read(async (em) => (await em.query<{ id: string }[]>('SELECT CONNECTION_ID() AS id, SLEEP(0.2) AS s'))[0].id)),
  );
  expect(new Set(ids).size).toBe(3);
  expect(open.size).toBeGreaterThanOrEqual(3);
  // A connection the server ends leaves the set (killed from a connection outside the pool).
  const before = open.size;
  const admin = await connectMysql(process.env.DATABASE_URL!);
  await admin.query(`KILL ${Number(ids[0])}`);
  await admin.end();
  await until(() => open.size < before);
  expect(open.size).toBe(before - 1);
  expect(await srv.app.db.read((em) => em.query('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
});

test('a DataSource whose driver is not made by mysqlWithSession (SQLite here, or another) keeps nothing', async () => {
  const open = new Set<object>();
  expect(openConnections(srv.app.db.ds, open)).toBe(usingMysql());
  if (!usingMysql()) expect(open.size).toBe(0);
});
