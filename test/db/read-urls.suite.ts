/**
 * DATABASE_READ_URLS: plain reads (`db.read`) go to the reader servers, round robin; every unit
 * of work (`db.tx`: idempotency keys, locked reads, writes) stays on DATABASE_URL, the writer. A
 * reader that cannot serve has its read run on the writer, and is counted. Two databases of
 * one server stand for two servers here: which one answered is `SELECT DATABASE()`.
 */
import net from 'node:net';
import { loadConfig } from '../../src/config';
import { Db } from '../../src/db/db';
import { createDataSource } from '../../src/db/data-source';
import { createTestDatabase, startServer, TestDatabase, TestServer } from '../helpers/server';
import { NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';

const dbName = (url: string) => new URL(url).pathname.slice(1);

/** A TCP relay to `url`'s server on a port of its own; `stop` makes that server unreachable through it (as a killed node is). */
async function relay(url: string): Promise<{ url: string; stop(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 3306), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const through = new URL(url);
  through.hostname = '127.0.0.1';
  through.port = String((server.address() as net.AddressInfo).port);
  return {
    url: through.toString(),
    stop: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

test('DATABASE_READ_URLS: comma-separated mysql:// URLs beside DATABASE_URL; refused alone or of another scheme', () => {
  const writer = 'mysql://root@127.0.0.1:3306/pgw';
  const config = loadConfig({ DATABASE_URL: writer, DATABASE_READ_URLS: ' mysql://root@127.0.0.1:3312/pgw, mariadb://root@127.0.0.1:3313/pgw ,' });
  expect(config.database).toEqual({ kind: 'mysql', url: writer, readUrls: ['mysql://root@127.0.0.1:3312/pgw', 'mysql://root@127.0.0.1:3313/pgw'] });
  expect(loadConfig({ DATABASE_URL: writer }).database).toEqual({ kind: 'mysql', url: writer, readUrls: [] });
  expect(() => loadConfig({ DATABASE_READ_URLS: 'mysql://root@127.0.0.1:3312/pgw' })).toThrow('DATABASE_READ_URLS needs DATABASE_URL');
  expect(() => loadConfig({ DATABASE_URL: writer, DATABASE_READ_URLS: 'postgres://x/y' })).toThrow('DATABASE_READ_URLS must be comma-separated mysql:// URLs');
});

describe('reads on the readers, units of work on the writer', () => {
  const dbs: TestDatabase[] = [];
  beforeAll(async () => {
    if (usingMysql()) for (let i = 0; i < 3; i++) dbs.push(await createTestDatabase());
  });
  afterAll(async () => {
    for (const d of dbs) await d.drop();
  });
  const url = (i: number) => dbs[i].env.DATABASE_URL;
  const source = async (u: string) => createDataSource({ kind: 'mysql', url: u, readUrls: [] }, []).initialize();
  const answeredBy = (rows: { d: string }[]) => rows[0].d;
  const SQL = 'SELECT DATABASE() AS d';

  testIf(usingMysql(), NEEDS_MYSQL)('round robin over two readers; tx on the writer; a reader that cannot serve leaves its read to the writer', async () => {
    const toReader1 = await relay(url(1));
    const [writer, r1, r2] = [await source(url(0)), await source(toReader1.url), await source(url(2))];
    const db = new Db(writer, { readers: [r1, r2] });
    try {
      const reads: string[] = [];
      for (let i = 0; i < 4; i++) reads.push(answeredBy(await db.read((em) => em.query(SQL))));
      expect(reads.sort()).toEqual([dbName(url(1)), dbName(url(1)), dbName(url(2)), dbName(url(2))].sort());
      expect(answeredBy(await db.tx((tx) => tx.query(SQL)))).toBe(dbName(url(0)));
      expect(db.readers.fallbacks).toBe(0);
      // Reader 1 becomes unreachable (connections reset, new ones refused): its read runs on the writer.
      await toReader1.stop();
      const after: string[] = [];
      for (let i = 0; i < 2; i++) after.push(answeredBy(await db.read((em) => em.query(SQL))));
      expect(after.sort()).toEqual([dbName(url(0)), dbName(url(2))].sort());
      expect(db.readers.fallbacks).toBe(1);
    } finally {
      await db.close();
      await toReader1.stop();
    }
  });

  testIf(usingMysql(), NEEDS_MYSQL)('the service started with DATABASE_READ_URLS reads there and writes on DATABASE_URL', async () => {
    let srv: TestServer | undefined;
    try {
      srv = await startServer({ database: dbs[0], scheduler: false, env: { DATABASE_READ_URLS: url(1) } });
      expect(answeredBy(await srv.app.db.read((em) => em.query(SQL)))).toBe(dbName(url(1)));
      expect(answeredBy(await srv.app.db.tx((tx) => tx.query(SQL)))).toBe(dbName(url(0)));
    } finally {
      await srv?.close();
    }
  });
});
