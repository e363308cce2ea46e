/**
 * The late batch (src/db/late.ts): a unit of work's last statements go in one query, with its
 * COMMIT where nothing after them can still refuse. What must hold whatever the engine and
 * the guard mode (MariaDB's IF guard, or the row count checked afterwards as on MySQL 8):
 *  - an UPDATE that must match one row and matches none refuses the unit, and nothing of it
 *    commits (not the statements sent before it in the same query, nor those after it);
 *  - a batch that passes commits everything, in as many round trips as claimed;
 *  - a statement after a COMMIT that went with the batch is refused (a bug), never run
 *    outside the transaction.
 */
import type { EntityManager } from 'typeorm';
import { startServer, TestServer } from '../helpers/server';
import { mysqlServer, usingMysql } from '../helpers/skip';
import { enableGuards, exactlyOneRow, late, openLate, runLate } from '../../src/db/late';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  await srv.app.db.ds.query('CREATE TABLE late_probe (id VARCHAR(40) PRIMARY KEY, n INT NOT NULL)');
  await srv.app.db.ds.query("INSERT INTO late_probe (id, n) VALUES ('counter', 0)");
});

afterAll(async () => {
  if (usingMysql()) enableGuards(srv.app.db.ds, mysqlServer() === 'MariaDB');
  await srv?.close();
});

class Missed extends Error {}

/** One unit of work: a plain INSERT of `id`, then an UPDATE of row `target` that must match one row, then another INSERT; committed at the end of runLate. */
function unit(id: string, target: string, after?: (em: EntityManager) => Promise<void>) {
  return srv.app.db.tx(async (em) => {
    openLate(em);
    await late(em, { statements: [{ sql: 'INSERT INTO late_probe (id, n) VALUES (?, 1)', params: [`${id}-a`] }], after: () => undefined });
    await late(em, exactlyOneRow(em, { sql: 'UPDATE late_probe SET n = n + 1 WHERE id = ?', params: [target] }, async () => {
      throw new Missed(`no row ${target}`);
    }));
    await late(em, { statements: [{ sql: 'INSERT INTO late_probe (id, n) VALUES (?, 2)', params: [`${id}-b`] }], after: () => undefined });
    await runLate(em, { commit: true });
    if (after) await after(em);
  });
}

const rows = async (prefix: string) => (await srv.app.db.ds.query('SELECT id FROM late_probe WHERE id LIKE ? ORDER BY id', [`${prefix}%`]) as { id: string }[]).map((r) => r.id);
const counter = async () => Number(((await srv.app.db.ds.query("SELECT n FROM late_probe WHERE id = 'counter'")) as { n: number }[])[0].n);

// MariaDB runs both modes (the second as MySQL 8 would); MySQL 8 has no IF outside a stored program.
const modes: [string, boolean][] = {
  MariaDB: [['MariaDB guard', true], ['row count checked afterwards (as on MySQL 8)', false]] as [string, boolean][],
  MySQL: [['row count checked afterwards (MySQL 8)', false]] as [string, boolean][],
  SQLite: [['SQLite', false]] as [string, boolean][],
}[mysqlServer() ?? 'SQLite'];

describe.each(modes)('%s', (_name, guards) => {
  beforeAll(() => {
    if (usingMysql()) enableGuards(srv.app.db.ds, guards);
  });

  test('an UPDATE that matches no row refuses the unit: nothing sent with it commits', async () => {
    const before = await counter();
    await expect(unit(`miss-${guards}`, 'absent')).rejects.toBeInstanceOf(Missed);
    expect(await rows(`miss-${guards}`)).toEqual([]);
    expect(await counter()).toBe(before);
  });

  test('a batch that passes commits every statement; on MySQL in one query (with the COMMIT under the guard)', async () => {
    const before = await counter();
    const [statements, trips] = [srv.app.db.queryCount, srv.app.db.roundTripCount];
    await unit(`pass-${guards}`, 'counter');
    const sent = [srv.app.db.queryCount - statements, srv.app.db.roundTripCount - trips];
    expect(await rows(`pass-${guards}`)).toEqual([`pass-${guards}-a`, `pass-${guards}-b`]);
    expect(await counter()).toBe(before + 1);
    if (!usingMysql()) expect(sent[0]).toBe(5); // BEGIN, INSERT, UPDATE, INSERT, COMMIT
    // START rides with the batch; the guard is a statement; the COMMIT goes with the batch (guard) or after it.
    else if (guards) expect(sent).toEqual([6, 1]);
    else expect(sent).toEqual([5, 2]);
  });

  test('a statement after a COMMIT that went with the batch is refused, never run outside the transaction', async () => {
    const stray = `stray-${guards}`;
    const attempt = unit(stray, 'counter', (em) => em.query('INSERT INTO late_probe (id, n) VALUES (?, 3)', [`${stray}-c`]));
    if (usingMysql() && guards) {
      await expect(attempt).rejects.toThrow(/after its transaction's COMMIT/);
      // The batch had committed; the stray INSERT never reached the database.
      expect(await rows(stray)).toEqual([`${stray}-a`, `${stray}-b`]);
    } else {
      await attempt;
      expect(await rows(stray)).toEqual([`${stray}-a`, `${stray}-b`, `${stray}-c`]);
    }
  });
});
