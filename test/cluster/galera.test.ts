/**
 * Scale-out on a MariaDB Galera cluster: three gateway processes, each on its own node of a
 * three-node cluster (`npm run cluster:up`, then GALERA_URLS=url1,url2,url3; `npm run
 * test:cluster` does both and tears the cluster down), sharing Redis when it answers.
 *
 * On Galera a `SELECT ... FOR UPDATE` locks the row on its own node only: two nodes can both
 * "hold" a balance row, and only certification at commit refuses the second writer (it gets
 * ER_LOCK_DEADLOCK and Db.tx reruns it). Each scenario below runs its contention across all
 * three nodes and checks the money and the streams afterwards; the wsrep conflict counters
 * of the nodes show that certification conflicts really happened and were retried.
 */
import { keyPrincipal } from '../../src/modules/auth/auth.service';
import { randomBytes, randomUUID } from 'node:crypto';
import type mysql from 'mysql2/promise';
import pino from 'pino';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { createApp, App } from '../../src/app';
import { ledgerVerifyCli, redisProblem, startProcess, testConfig } from '../helpers/server';
import { REDIS_URL } from '../helpers/skip';
import { Client, eventually, payoutBody, ref } from '../helpers/client';
import { postPromptPay } from '../helpers/fixtures';
import { startReceiver, Receiver } from '../helpers/receiver';
import { connectMysql } from '../helpers/mysql';
import { cluster, clusterDatabase, conflicts, URLS } from './cluster';

type Proc = Awaited<ReturnType<typeof startProcess>>;

cluster('three gateway processes on a three-node Galera cluster', () => {
  let db: Awaited<ReturnType<typeof clusterDatabase>>;
  let admin: App;
  const procs: Proc[] = [];
  let redisUrl = '';
  const figures: string[] = [];
  let merchantSeq = 0;
  /** Error lines the processes logged (printed at the end). */
  const errorLines: string[] = [];

  /** A merchant with a test key; `clients[i]` talks to process i (node i + 1). */
  async function merchant(fund?: string): Promise<Client[]> {
    const m = await admin.auth.createMerchant(`galera-${process.pid}-${++merchantSeq}-${randomBytes(3).toString('hex')}`);
    const key = await admin.auth.issueKey(m.id, 'test');
    const clients = procs.map(
      (p) =>
        new Client(p.url, `${key.public_key}:${key.secret_key}`, {
          merchantId: m.id,
          apiKeyId: key.api_key_id,
          environment: 'test',
          principal: keyPrincipal({ id: key.api_key_id, permissions: null }),
        }),
    );
    if (fund) {
      const t = await clients[1].post(
        '/v1/topup_intents',
        { amount: fund, currency: 'THB', country: 'TH', merchant_reference: ref('tu') },
        { idempotencyKey: randomUUID() },
      );
      expect(t.status).toBe(201);
      expect((await clients[2].post(`/v1/test_helpers/topup_intents/${t.body.id}/succeed`, {})).status).toBe(200);
    }
    return clients;
  }

  beforeAll(async () => {
    const t0 = Date.now();
    db = await clusterDatabase();
    // The provisioning app on node 1 applies the migrations before any process starts
    // (DDL on Galera runs in total order, but three processes migrating at once would race).
    admin = await createApp(testConfig(db.nodes[0]), pino({ level: 'silent' }));
    figures.push(`migrations: ${Date.now() - t0} ms`);
    const t1 = Date.now();
    redisUrl = (await redisProblem(REDIS_URL)) ? '' : REDIS_URL;
    const env = { REDIS_URL: redisUrl, WEBHOOK_RETRY_SCHEDULE_MS: '200,200,200', SCHEDULER_INTERVAL_MS: '20' };
    // A loaded machine may take long to start three processes: 90 s each.
    procs.push(...(await Promise.all(db.nodes.map((node) => startProcess(node, env, { startTimeoutMs: 90_000 })))));
    procs.forEach((p, i) =>
      p.child.stdout!.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) if (/"level":(50|60)/.test(line)) errorLines.push(`process ${i + 1}: ${line}`);
      }),
    );
    figures.push(`3 processes started: ${Date.now() - t1} ms; redis: ${redisUrl ? 'yes' : 'no (unreachable)'}`);
  }, 200000);

  afterAll(async () => {
    process.stdout.write(`[galera] ${figures.join('; ')}\n`);
    if (errorLines.length)
      process.stdout.write(
        `[galera] ${errorLines.length} error lines logged by the processes, the first:\n${errorLines
          .slice(0, 5)
          .map((l) => l.slice(0, 400))
          .join('\n')}\n`,
      );
    await Promise.all(procs.map((p) => p.stop()));
    await admin?.close();
    await db?.drop();
  });

  test('40 payouts of 10 against a balance of 100, spread over the three nodes: exactly 10 created', async () => {
    const clients = await merchant('100');
    for (const c of clients) expect((await c.get('/v1/balances')).body.data[0]).toMatchObject({ available: '100', reserved: '0' });
    const before = await conflicts(db.admin);
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => clients[i % 3].post('/v1/payout_intents', payoutBody({ amount: '10' }))));
    const retried = (await conflicts(db.admin)) - before;
    figures.push(`40 payouts: ${Date.now() - started} ms, ${retried} certification conflicts`);
    const created = results.filter((r) => r.status === 201);
    for (const r of results.filter((x) => x.status !== 201))
      expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 422, code: 'insufficient_balance' });
    expect(created).toHaveLength(10);
    for (const c of clients) {
      expect((await c.get('/v1/balances')).body.data[0]).toMatchObject({ available: '0', pending: '0', reserved: '100' });
      expect((await c.get('/v1/payout_intents?limit=100')).body.data).toHaveLength(10);
    }
  });

  test('a node that lags behind answers what another node committed: its reads wait (causal reads) instead of answering 404', async () => {
    const clients = await merchant('100000');
    // Hold node 2's applier for a second, as a node under load or behind a slow link would lag:
    // FLUSH TABLES WITH READ LOCK desyncs the node and pauses what it applies.
    const url = new URL(URLS[1]);
    const lock = await connectMysql(url);
    try {
      await lock.query('FLUSH TABLES WITH READ LOCK');
      const created = await clients[0].post('/v1/payout_intents', payoutBody({ amount: '100' }));
      expect(created.status).toBe(201);
      const t0 = Date.now();
      const release = new Promise((r) => setTimeout(r, 1000)).then(() => lock.query('UNLOCK TABLES'));
      const [read, approve] = await Promise.all([
        clients[1].get(`/v1/payout_intents/${created.body.id}`),
        clients[1].post(`/v1/payout_intents/${created.body.id}/approve`, {}),
      ]);
      await release;
      figures.push(`lagging node: read and approve answered after ${Date.now() - t0} ms`);
      expect({ read: read.status, approve: approve.status }).toEqual({ read: 200, approve: 202 });
      expect(read.body.id).toBe(created.body.id);
    } finally {
      await lock.query('UNLOCK TABLES').catch(() => undefined);
      await lock.end();
    }
  });

  test('one Idempotency-Key sent 30 times at once through the three processes: one payout', async () => {
    const clients = await merchant('100000');
    const key = randomUUID();
    const body = payoutBody({ amount: '500' });
    const before = await conflicts(db.admin);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => clients[i % 3].post('/v1/payout_intents', body, { idempotencyKey: key })));
    figures.push(`one key x30: ${(await conflicts(db.admin)) - before} certification conflicts`);
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => x.status !== 201))
      expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 409, code: 'idempotency_conflict' });
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const c of clients) {
      const list = await c.get(`/v1/payout_intents?merchant_reference=${encodeURIComponent(body.merchant_reference as string)}`);
      expect(list.body.data.map((p: any) => p.id)).toEqual([created[0].body.id]);
      // The key is settled on every node: a later retry anywhere replays the same answer.
      const again = await c.post('/v1/payout_intents', body, { idempotencyKey: key });
      expect(again.status).toBe(201);
      expect(again.body.id).toBe(created[0].body.id);
    }
    expect((await clients[0].get('/v1/balances')).body.data[0]).toMatchObject({ available: '99500', reserved: '500' });
  });

  test('a subscriber on node 1 sees every event committed on nodes 2 and 3 exactly once, in order', async () => {
    const clients = await merchant('1000000');
    const seeded = await clients[1].post('/v1/payout_intents', payoutBody());
    expect(seeded.status).toBe(201);
    const start = (await clients[1].get('/v1/events?limit=1')).body.data[0].id;
    const ws = createClient({
      url: procs[0].url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => undefined,
      connectionParams: { authorization: clients[0].authorization },
    });
    const seen: { id: string; type: string }[] = [];
    const errors: unknown[] = [];
    const dispose = ws.subscribe(
      { query: 'subscription($after: String) { events(after: $after) { id type } }', variables: { after: start } },
      {
        next: (msg: any) => (msg.errors ? errors.push(...msg.errors) : seen.push(msg.data.events)),
        error: (err) => errors.push(err),
        complete: () => undefined,
      },
    );
    try {
      const before = await conflicts(db.admin);
      const remote = [clients[1], clients[2]];
      // Payouts (balance row + sequence row) and payments (sequence row only), then cancel half the payouts: all on nodes 2 and 3.
      const [payouts, payments] = await Promise.all([
        Promise.all(Array.from({ length: 30 }, (_, i) => remote[i % 2].post('/v1/payout_intents', payoutBody()))),
        Promise.all(Array.from({ length: 30 }, (_, i) => postPromptPay(remote[i % 2], '10000'))),
      ]);
      expect(payouts.map((r) => r.status)).toEqual(payouts.map(() => 201));
      expect(payments.map((r) => r.status)).toEqual(payments.map(() => 201));
      const cancels = await Promise.all(
        payouts.filter((_, i) => i % 2 === 0).map((r, i) => remote[(i + 1) % 2].post(`/v1/payout_intents/${r.body.id}/cancel`, {})),
      );
      expect(cancels.map((r) => r.status)).toEqual(cancels.map(() => 202));
      figures.push(`events on nodes 2+3: ${(await conflicts(db.admin)) - before} certification conflicts`);

      const [rows] = await db.admin[0].query<any[]>(
        'SELECT id, type, seq FROM events WHERE merchant_id = ? AND environment = ? AND seq > (SELECT seq FROM events WHERE id = ?) ORDER BY seq',
        [clients[0].merchantId, 'test', start],
      );
      const expected = rows.map((r) => ({ id: r.id, type: r.type }));
      // 30 payout created + 30 payment created (+ their next status) + 15 cancelled, at least.
      expect(expected.length).toBeGreaterThanOrEqual(75);
      expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => Number(rows[0].seq) + i));
      const t0 = Date.now();
      await eventually(async () => seen.length >= expected.length, 20000);
      await new Promise((r) => setTimeout(r, 500)); // anything extra (a repeat) would arrive now
      figures.push(`subscriber: ${seen.length} events, last one ${Date.now() - 500 - t0} ms after the check`);
      expect(errors).toEqual([]);
      expect(seen).toEqual(expected);
    } finally {
      dispose();
      await ws.dispose();
    }
  });

  test('each webhook delivery is attempted by one process only', async () => {
    const receiver: Receiver = await startReceiver();
    try {
      const clients = await merchant('1000000');
      const ep = await clients[0].post('/v1/webhook_endpoints', {
        url: `${receiver.url}/galera`,
        enabled_events: ['payout_intent.created', 'payment_intent.created'],
      });
      expect(ep.status).toBe(201);
      const n = 45;
      const before = await conflicts(db.admin);
      const made = await Promise.all(
        Array.from({ length: n }, (_, i) => (i % 2 ? clients[i % 3].post('/v1/payout_intents', payoutBody()) : postPromptPay(clients[i % 3], '10000'))),
      );
      expect(made.map((r) => r.status)).toEqual(made.map(() => 201));
      const [deliveries] = await db.admin[0].query<any[]>('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?', [ep.body.id]);
      expect(Number(deliveries[0].n)).toBe(n);
      const done = async () => {
        const [rows] = await db.admin[1].query<any[]>('SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? GROUP BY status', [
          ep.body.id,
        ]);
        return rows.length === 1 && rows[0].status === 'succeeded' && Number(rows[0].n) === n;
      };
      await eventually(done, 30000);
      await new Promise((r) => setTimeout(r, 500)); // a second attempt would arrive now
      const perId = new Map<string, number>();
      for (const r of receiver.received) {
        const id = String(r.headers['webhook-id']);
        perId.set(id, (perId.get(id) ?? 0) + 1);
      }
      expect(perId.size).toBe(n);
      expect([...perId.values()].filter((v) => v !== 1)).toEqual([]);
      const [attempts] = await db.admin[2].query<any[]>('SELECT COUNT(*) AS n FROM webhook_attempts WHERE endpoint_id = ?', [ep.body.id]);
      expect(Number(attempts[0].n)).toBe(n);
      figures.push(
        `webhooks: ${receiver.received.length} requests for ${n} deliveries, ${(await conflicts(db.admin)) - before} certification conflicts (events and claims)`,
      );
    } finally {
      await receiver.close();
    }
  });

  test('the ledger verifies, and the three nodes hold the same money', async () => {
    const { code, report, stderr } = await ledgerVerifyCli(db.nodes[2]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, mismatches: [] });
    const digest = async (c: mysql.Connection) => {
      const [rows] = await c.query<any[]>('CHECKSUM TABLE balances, ledger_entries, payout_intents, events, idempotency_keys, webhook_deliveries');
      return rows.map((r) => `${r.Table.split('.').pop()}=${r.Checksum}`).join(' ');
    };
    const digests = await Promise.all(db.admin.map(digest));
    expect(new Set(digests).size).toBe(1);
    figures.push(`total certification conflicts on the cluster so far: ${await conflicts(db.admin)}`);
  });
});
