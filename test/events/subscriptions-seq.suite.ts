/**
 * The ordering claim the subscription streams rest on (EventService.nextSeq): the committed
 * events of a (merchant, environment) are exactly 1..N, and seq order is commit order, also
 * with concurrent writers in different processes. A reader that polls `seq > last` as fast
 * as it can must therefore never see seq k+1 while k is still invisible: if it did, a
 * subscriber that had read k+1 would skip k for good.
 */
import { connectMysql } from '../helpers/mysql';
import { startProcess, startServer, TestServer } from '../helpers/server';
import { NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';
import { Client, payoutBody } from '../helpers/client';
import { postPromptPay } from '../helpers/fixtures';

/** Payment intents take no balance lock, so their events race on the sequence row alone. */
const createPayment = (c: Client) => postPromptPay(c, '10000');

const mysqlOnly = testIf(usingMysql(), NEEDS_MYSQL);

let srv: TestServer;
beforeAll(async () => {
  if (usingMysql()) srv = await startServer({ scheduler: false });
});
afterAll(async () => {
  if (srv) await srv.close();
});

mysqlOnly(
  "seq is gapless in commit order under concurrent writers in three processes, also for a scope's first events",
  async () => {
    const others = [await startProcess(srv.database), await startProcess(srv.database)];
    const url = new URL(srv.database.env.DATABASE_URL);
    const reader = await connectMysql(url, url.pathname.slice(1));
    try {
      const c = await srv.merchant();
      const clients = [c, ...others.map((o) => c.withBase(o.url))];
      let last = (
        await reader.query<any[]>('SELECT COALESCE(MAX(seq), 0) AS m FROM events WHERE merchant_id = ? AND environment = ?', [c.merchantId, 'test'])
      )[0][0].m;
      last = Number(last);
      const start = last;
      let writing = true;
      const gaps: string[] = [];
      let reads = 0;
      const readLoop = (async () => {
        while (writing || reads === 0) {
          const [rows] = await reader.query<any[]>('SELECT seq FROM events WHERE merchant_id = ? AND environment = ? AND seq > ? ORDER BY seq', [
            c.merchantId,
            'test',
            last,
          ]);
          reads++;
          for (const r of rows) {
            const s = Number(r.seq);
            if (s !== last + 1) gaps.push(`read ${s} after ${last}`);
            last = s;
          }
        }
      })();
      const PER = 30;
      const [created, payments] = await Promise.all([
        Promise.all(clients.flatMap((cl) => Array.from({ length: PER }, () => cl.post('/v1/payout_intents', payoutBody())))),
        Promise.all(clients.flatMap((cl) => Array.from({ length: PER }, () => createPayment(cl)))),
      ]);
      // Cancel half of them too (a second event per intent, from whichever process).
      await Promise.all(created.filter((_, i) => i % 2 === 0).map((r, i) => clients[i % clients.length].post(`/v1/payout_intents/${r.body.id}/cancel`, {})));
      writing = false;
      await readLoop;
      const [all] = await reader.query<any[]>('SELECT seq FROM events WHERE merchant_id = ? AND environment = ? AND seq > ? ORDER BY seq', [
        c.merchantId,
        'test',
        start,
      ]);
      const seqs = all.map((r: any) => Number(r.seq));
      // Status counts rather than a boolean, so a failure says what came back (e.g. 503 under load).
      const statuses = (rs: { status: number; body: any }[]) =>
        rs.reduce<Record<string, number>>((acc, r) => {
          const k = r.status === 201 ? '201' : `${r.status} ${r.body?.error?.code ?? ''}`;
          acc[k] = (acc[k] ?? 0) + 1;
          return acc;
        }, {});
      expect(statuses(created)).toEqual({ 201: created.length });
      expect(statuses(payments)).toEqual({ 201: payments.length });
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => start + 1 + i));
      expect(seqs.length).toBeGreaterThanOrEqual(PER * clients.length * 2.5);
      expect(last).toBe(seqs[seqs.length - 1]);
      console.log(`subscriptions-seq: ${seqs.length} events from 3 processes, ${reads} reads, gaps seen: ${gaps.length}`);
      expect(gaps).toEqual([]);

      // A scope's very first events, racing to create its counter row from three processes
      // (the losers wait on the duplicate key, or deadlock and are retried by Db.tx).
      const fresh = await srv.merchant(undefined, 'test', { fund: false });
      const freshClients = [fresh, ...others.map((o) => fresh.withBase(o.url))];
      const first = await Promise.all(freshClients.flatMap((cl) => Array.from({ length: 8 }, () => createPayment(cl))));
      expect(first.map((r) => r.status)).toEqual(first.map(() => 201));
      const [freshRows] = await reader.query<any[]>('SELECT seq FROM events WHERE merchant_id = ? AND environment = ? ORDER BY seq', [
        fresh.merchantId,
        'test',
      ]);
      const freshSeqs = freshRows.map((r: any) => Number(r.seq));
      expect(freshSeqs.length).toBeGreaterThanOrEqual(first.length);
      expect(freshSeqs).toEqual(Array.from({ length: freshSeqs.length }, (_, i) => i + 1));
    } finally {
      await reader.end();
      for (const o of others) await o.stop();
    }
  },
  120000,
);
