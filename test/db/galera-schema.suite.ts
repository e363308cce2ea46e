/**
 * What a MariaDB Galera cluster needs from the schema, checked on every MariaDB run so that a
 * new migration cannot break the Galera deployment unnoticed (the cluster suite itself,
 * test/cluster/galera.test.ts, only runs with `npm run test:cluster`): Galera replicates
 * InnoDB tables only, and a table without a primary key replicates its updates and deletes
 * unreliably (each write set must name the rows it changes).
 */
import { createTestDatabase, runCli, TestDatabase } from '../helpers/server';
import { NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';
import { connectMysql } from '../helpers/mysql';

const mysqlOnly = testIf(usingMysql(), NEEDS_MYSQL);

let database: TestDatabase | undefined;
beforeAll(async () => {
  if (usingMysql()) database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

mysqlOnly('every table of the migrated schema is InnoDB with a primary key (Galera replicates nothing else safely)', async () => {
  expect((await runCli(database!, ['migrate'])).code).toBe(0);
  const url = new URL(database!.env.DATABASE_URL);
  const c = await connectMysql(url);
  try {
    const [tables] = await c.query<any[]>(
      `SELECT t.TABLE_NAME AS name, t.ENGINE AS engine,
              (SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS k
                WHERE k.TABLE_SCHEMA = t.TABLE_SCHEMA AND k.TABLE_NAME = t.TABLE_NAME AND k.CONSTRAINT_TYPE = 'PRIMARY KEY') AS pk
         FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = ? AND t.TABLE_TYPE = 'BASE TABLE' ORDER BY t.TABLE_NAME`,
      [url.pathname.slice(1)],
    );
    expect(tables.length).toBeGreaterThan(10);
    expect(tables.filter((t) => t.engine !== 'InnoDB' || Number(t.pk) !== 1).map((t) => `${t.name} (${t.engine}, ${t.pk} primary key)`)).toEqual([]);
  } finally {
    await c.end();
  }
});
