/**
 * jest globalSetup: probes, once per run, what conditional suites need and cannot check
 * synchronously, and hands the answers to the test workers through the environment
 * (workers start after this and inherit process.env). See test/helpers/skip.ts.
 */
import { connectMysql } from './mysql';
import { redisProblem } from './redis';
import { usingMysql } from './skip';
import { buildTemplate, TEMPLATE_ENV } from './schema-template';
import { createTestDatabase, runCli } from './server';

export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_REDIS_PROBLEM === undefined) {
    const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
    const problem = await redisProblem(url);
    process.env.TEST_REDIS_PROBLEM = problem ? `Redis at ${url} is unreachable (${problem}); start redis-server or set REDIS_URL` : '';
  }
  // MariaDB or MySQL behind DATABASE_URL (skip.ts: mysqlServer()); left unset if it cannot be
  // reached, and every suite then says so itself.
  if (usingMysql() && process.env.TEST_MYSQL_SERVER === undefined) {
    const u = new URL(process.env.DATABASE_URL!);
    try {
      const c = await connectMysql(u);
      const [[{ v }]] = (await c.query('SELECT VERSION() AS v')) as [{ v: string }[], unknown];
      await c.end();
      process.env.TEST_MYSQL_SERVER = /mariadb/i.test(v) ? 'MariaDB' : 'MySQL';
    } catch {
      // unreachable: the suites' own connections report it
    }
  }
  // The migrated schema every test database starts from (unless it asks for an empty one).
  if (process.env[TEMPLATE_ENV] === undefined) {
    const database = await createTestDatabase({ empty: true });
    await buildTemplate(database, () => runCli(database, ['migrate']));
  }
}
