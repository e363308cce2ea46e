/**
 * The unit of work's end (src/db/tx.ts, src/db/batch.ts): the end work a unit's function returns
 * (`Db.unit`) runs after the unit's own statements, in the order given, just before its COMMIT,
 * and its statements go in one query. What must hold whatever the engine and the guard mode (MariaDB's IF guard, MySQL 8's CALL of the guard procedure, or the
 * row count checked afterwards as where neither can be used):
 *  - an UPDATE that must match one row and matches none refuses the unit, and nothing of it
 *    commits (not the statements sent before it in the same query, nor those after it);
 *  - a batch that passes commits everything, in as many round trips as claimed;
 *  - nothing can be run in a unit after its COMMIT;
 *  - afterCommit listeners run after a COMMIT, never after a rollback.
 */
import { randomBytes } from 'node:crypto';
import { startServer, TestDatabase, TestServer } from '../helpers/server';
import { connectMysql } from '../helpers/mysql';
import { mysqlServer, testIf, usingMysql, NEEDS_MYSQL8 } from '../helpers/skip';
import { exactlyOneRow, GUARD_PROCEDURE, GuardForm, guardProcedureWorks } from '../../src/db/batch';
import type { EndWork } from '../../src/db/batch';
import type { Tx } from '../../src/db/tx';

let srv: TestServer;
let formAtStart: GuardForm | false;

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  formAtStart = srv.app.db.guards;
  await srv.app.db.ds.query('CREATE TABLE late_probe (id VARCHAR(40) PRIMARY KEY, n INT NOT NULL)');
  await srv.app.db.ds.query("INSERT INTO late_probe (id, n) VALUES ('counter', 0)");
});

afterAll(async () => {
  if (srv) srv.app.db.guards = formAtStart;
  await srv?.close();
});

class Missed extends Error {}

const insert = (id: string, n: number) => ({ sql: 'INSERT INTO late_probe (id, n) VALUES (?, ?)', params: [id, n] });

/**
 * One unit of work: an INSERT of `<id>-a`, then `body`; it returns for its end an UPDATE of row
 * `target` that must match one row and an INSERT of `<id>-b`.
 */
function unit(id: string, target: string, body?: (tx: Tx) => Promise<void>): Promise<Tx> {
  return srv.app.db.unit(async (tx) => {
    await tx.query(insert(`${id}-a`, 1).sql, insert(`${id}-a`, 1).params);
    const end: EndWork[] = [
      exactlyOneRow(tx, { sql: 'UPDATE late_probe SET n = n + 1 WHERE id = ?', params: [target] }, async () => {
        throw new Missed(`no row ${target}`);
      }),
      { statements: [insert(`${id}-b`, 2)], after: () => undefined },
    ];
    if (body) await body(tx);
    return { value: tx, end };
  });
}

const rows = async (prefix: string) =>
  (await srv.app.db.ds.query<{ id: string }[]>('SELECT id FROM late_probe WHERE id LIKE ? ORDER BY id', [`${prefix}%`])).map((r) => r.id);
const counter = async () => Number((await srv.app.db.ds.query<{ n: number }[]>("SELECT n FROM late_probe WHERE id = 'counter'"))[0].n);

// Each server runs its guard and the mode without one (as where the guard cannot be used).
const modes: [string, GuardForm | false][] = {
  MariaDB: [
    ['MariaDB guard (IF)', 'if'],
    ['row count checked afterwards', false],
  ] as [string, GuardForm | false][],
  MySQL: [
    ['MySQL 8 guard (CALL of the guard procedure)', 'call'],
    ['row count checked afterwards (MySQL 8 without the procedure)', false],
  ] as [string, GuardForm | false][],
  SQLite: [['SQLite', false]] as [string, GuardForm | false][],
}[mysqlServer() ?? 'SQLite'];

describe.each(modes)('%s', (_name, guards) => {
  beforeAll(() => {
    srv.app.db.guards = guards;
  });

  test('an UPDATE that matches no row refuses the unit: nothing sent with it commits', async () => {
    const before = await counter();
    await expect(unit(`miss-${guards}`, 'absent')).rejects.toBeInstanceOf(Missed);
    expect(await rows(`miss-${guards}`)).toEqual([]);
    expect(await counter()).toBe(before);
  });

  test('a batch that passes commits every statement; on MySQL in one query', async () => {
    const before = await counter();
    const [statements, trips] = [srv.app.db.queryCount, srv.app.db.roundTripCount];
    await unit(`pass-${guards}`, 'counter');
    const sent = [srv.app.db.queryCount - statements, srv.app.db.roundTripCount - trips];
    expect(await rows(`pass-${guards}`)).toEqual([`pass-${guards}-a`, `pass-${guards}-b`]);
    expect(await counter()).toBe(before + 1);
    if (!usingMysql())
      expect(sent[0]).toBe(5); // BEGIN, INSERT, UPDATE, INSERT, COMMIT
    // START | INSERT | the batch: UPDATE, its guard (a statement), INSERT, and the COMMIT with it.
    else if (guards) expect(sent).toEqual([6, 3]);
    // Without a guard the row count is read from the answer before COMMIT: START | INSERT | UPDATE, INSERT | COMMIT.
    else expect(sent).toEqual([5, 4]);
  });

  test('the end work a unit returns runs after the statements the unit sends itself, in the order given', async () => {
    const id = `order-${guards}`;
    let seenInBody: string[] = [];
    await unit(id, 'counter', async (tx) => {
      await tx.query('INSERT INTO late_probe (id, n) VALUES (?, 3)', [`${id}-c`]);
      seenInBody = (await tx.query<{ id: string }[]>('SELECT id FROM late_probe WHERE id LIKE ? ORDER BY id', [`${id}%`])).map((r) => r.id);
    });
    expect(seenInBody).toEqual([`${id}-a`, `${id}-c`]);
    expect(await rows(id)).toEqual([`${id}-a`, `${id}-b`, `${id}-c`]);
  });

  test('nothing is run in a unit after its COMMIT', async () => {
    const tx = await unit(`stray-${guards}`, 'counter');
    await expect(tx.write([{ statements: [insert(`stray-${guards}-c`, 3)], after: () => undefined }])).rejects.toThrow(/committed/);
    await expect(tx.now({ statements: [insert(`stray-${guards}-c`, 3)], after: () => undefined })).rejects.toThrow(/committed/);
    expect(await rows(`stray-${guards}`)).toEqual([`stray-${guards}-a`, `stray-${guards}-b`]);
  });
});

describe('the unit of work', () => {
  test('afterCommit listeners run once the COMMIT succeeded, never after a rollback', async () => {
    const told: string[] = [];
    await srv.app.db.tx(async (tx) => {
      tx.afterCommit(() => told.push('committed'));
      expect(told).toEqual([]);
    });
    await expect(
      srv.app.db.tx(async (tx) => {
        tx.afterCommit(() => told.push('rolled back'));
        throw new Missed('refused');
      }),
    ).rejects.toBeInstanceOf(Missed);
    expect(told).toEqual(['committed']);
  });

  test('a unit whose body throws rolls back everything it sent, and the end work it prepared never runs', async () => {
    const id = `rollback-${randomBytes(3).toString('hex')}`;
    let ran = false;
    await expect(
      srv.app.db.unit(async (tx) => {
        await tx.query('INSERT INTO late_probe (id, n) VALUES (?, 1)', [`${id}-b`]);
        const end: EndWork[] = [
          {
            statements: [insert(`${id}-c`, 1)],
            after: () => {
              ran = true;
            },
          },
        ];
        if (end.length > 0) throw new Missed('refused');
        return { value: undefined, end };
      }),
    ).rejects.toBeInstanceOf(Missed);
    expect(ran).toBe(false);
    expect(await rows(id)).toEqual([]);
  });

  test('tx.now runs a batch at once, in the unit, in one query on MySQL', async () => {
    const id = `now-${randomBytes(3).toString('hex')}`;
    const trips = srv.app.db.roundTripCount;
    const seen = await srv.app.db.tx(async (tx) => {
      const before = srv.app.db.roundTripCount;
      await tx.now({ statements: [insert(`${id}-a`, 1), insert(`${id}-b`, 1)], after: () => undefined });
      const sent = srv.app.db.roundTripCount - before;
      return {
        sent,
        rows: (await tx.query<{ id: string }[]>('SELECT id FROM late_probe WHERE id LIKE ? ORDER BY id', [`${id}%`])).map((r) => r.id),
      };
    });
    expect(seen.rows).toEqual([`${id}-a`, `${id}-b`]);
    expect(seen.sent).toBe(usingMysql() ? 1 : 2);
    expect(srv.app.db.roundTripCount - trips).toBeGreaterThan(seen.sent);
  });
});

describe('a unit whose end another function owns', () => {
  test('tx.write sends end work now, in order, consecutive batches in one query on MySQL; the COMMIT follows on its own', async () => {
    const id = `write-${randomBytes(3).toString('hex')}`;
    const trips = srv.app.db.roundTripCount;
    const seen = await srv.app.db.tx(async (tx) => {
      const before = srv.app.db.roundTripCount;
      await tx.write([
        { statements: [insert(`${id}-a`, 1)], after: () => undefined },
        { statements: [insert(`${id}-b`, 1)], after: () => undefined },
      ]);
      const sent = srv.app.db.roundTripCount - before;
      return {
        sent,
        rows: (await tx.query<{ id: string }[]>('SELECT id FROM late_probe WHERE id LIKE ? ORDER BY id', [`${id}%`])).map((r) => r.id),
      };
    });
    expect(seen.rows).toEqual([`${id}-a`, `${id}-b`]);
    expect(seen.sent).toBe(usingMysql() ? 1 : 2);
    // START (or BEGIN) | the batches | the SELECT | COMMIT.
    expect(srv.app.db.roundTripCount - trips).toBe(seen.sent + 3);
    expect(await rows(id)).toEqual([`${id}-a`, `${id}-b`]);
  });
});

describe('which guard a server gets', () => {
  test('at start: the IF on MariaDB, the procedure on MySQL 8, none on SQLite', () => {
    expect(formAtStart).toBe({ MariaDB: 'if', MySQL: 'call', SQLite: false }[mysqlServer() ?? 'SQLite']);
  });

  testIf(mysqlServer() === 'MySQL', NEEDS_MYSQL8)(
    'MySQL 8: the migration made the procedure; without it (no CREATE ROUTINE) the start-up probe says so',
    async () => {
      const [routine] = await srv.app.db.ds.query(
        'SELECT ROUTINE_TYPE AS t, SECURITY_TYPE AS s FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME = ?',
        [GUARD_PROCEDURE],
      );
      expect(routine).toEqual({ t: 'PROCEDURE', s: 'INVOKER' });
      expect(await guardProcedureWorks(srv.app.db.ds)).toBe(true);
      await expect(srv.app.db.ds.query(`CALL ${GUARD_PROCEDURE}(0, 'late guard test')`)).rejects.toThrow('late guard test');
      await expect(srv.app.db.ds.query(`CALL ${GUARD_PROCEDURE}(2, 'late guard test')`)).rejects.toThrow('late guard test');
      const [{ sql }] = await srv.app.db.ds
        .query(`SHOW CREATE PROCEDURE ${GUARD_PROCEDURE}`)
        .then((rows: Record<string, string>[]) => rows.map((r) => ({ sql: r['Create Procedure'] })));
      await srv.app.db.ds.query(`DROP PROCEDURE ${GUARD_PROCEDURE}`);
      try {
        expect(await guardProcedureWorks(srv.app.db.ds)).toBe(false);
      } finally {
        await srv.app.db.ds.query(sql);
      }
      expect(await guardProcedureWorks(srv.app.db.ds)).toBe(true);
    },
  );

  testIf(mysqlServer() === 'MySQL', NEEDS_MYSQL8)(
    'MySQL 8, a user without CREATE ROUTINE: the migrations apply without the procedure, the start warns once, and writes check their row counts',
    async () => {
      const root = new URL(srv.database.env.DATABASE_URL);
      const suffix = randomBytes(4).toString('hex');
      const [name, user] = [`${root.pathname.slice(1) || 'test'}_nr${suffix}`, `gw_nr_${suffix}`];
      const admin = await connectMysql(root);
      await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      await admin.query(`CREATE USER '${user}'@'%'`);
      await admin.query(`GRANT ALL PRIVILEGES ON \`${name}\`.* TO '${user}'@'%'`);
      await admin.query(`REVOKE CREATE ROUTINE, ALTER ROUTINE ON \`${name}\`.* FROM '${user}'@'%'`);
      const url = new URL(root);
      url.username = user;
      url.password = '';
      url.pathname = `/${name}`;
      const database: TestDatabase = { kind: 'mysql', env: { DATABASE_URL: url.toString() }, drop: async () => undefined };
      const lines: string[] = [];
      let restricted: TestServer | undefined;
      try {
        restricted = await startServer({
          database,
          scheduler: false,
          env: { LOG_LEVEL: 'warn' },
          logDestination: {
            write: (line: string) => {
              lines.push(line);
            },
          },
        });
        expect(restricted.app.db.guards).toBe(false);
        const [routines] = (await admin.query('SELECT COUNT(*) AS n FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?', [name])) as [
          { n: number }[],
          unknown,
        ];
        expect(Number(routines[0].n)).toBe(0);
        expect(lines.filter((l) => l.includes('late guard procedure is missing'))).toHaveLength(1);
        // Writes work, and a refusal decided by the row count still rolls back: the balance is untouched.
        const c = await restricted.merchant();
        const payout = (amount: string) =>
          c.post(
            '/v1/payout_intents',
            {
              amount,
              currency: 'THB',
              country: 'TH',
              merchant_reference: `nr-${amount}`,
              recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai Jaidee' },
            },
            { idempotencyKey: randomBytes(12).toString('hex') },
          );
        expect((await payout('100')).status).toBe(201);
        const before = (await c.get('/v1/balances')).body.data;
        const refused = await payout('99999999999999999');
        expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 422, code: 'insufficient_balance' });
        expect((await c.get('/v1/balances')).body.data).toEqual(before);
      } finally {
        await restricted?.close();
        await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
        await admin.end();
      }
    },
  );
});
