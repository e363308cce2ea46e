/**
 * A Galera node killed under load (`npm run test:cluster`, which exports what `scripts/galera.sh
 * kill|start` needs). Both topologies at once, each with three gateway processes and a merchant
 * of its own:
 *  - multi-writer: process i on node i for everything (the process on node 2 loses its database);
 *  - one writer: every process writes on node 1 and reads on nodes 2 and 3 (DATABASE_READ_URLS).
 * On each, 8 clients create payouts and approve them, each request with its own
 * Idempotency-Key, spread over the three processes. At 4 s node 2 gets SIGKILL and is started
 * again at once; it rejoins and syncs while the load goes on, until 2 s after it is back. A 503,
 * or a 409 with Retry-After, is sent again with the same key to the next process, as a client
 * behind a load balancer would. The processes run with the production database limits (a
 * reader that stops answering is found out by the probe within seconds). Then: no answer was a 500 (nor any 5xx but 503), every key
 * reached one outcome and replays it on every process, one payout per create key; and, the
 * processes stopped, the money is exact on every node (available + reserved + paid out =
 * topped up, reserved = the payouts still held), `ledger verify` ok through each node, the
 * same ledger entries and the same table checksums on all three.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { createApp, App } from '../../src/app';
import { FULL_ACCESS } from '../../src/domain/permissions';
import { ledgerVerifyCli, PRODUCTION_DB_LIMITS, startProcess, testConfig } from '../helpers/server';
import { Client, payoutBody, Res } from '../helpers/client';
import { cluster, clusterDatabase, conflicts, reconnect, type ClusterDatabase } from './cluster';

const GALERA_SH = path.resolve(__dirname, '../../../scripts/galera.sh');
const CLIENTS = 8;
const KILL_AT_MS = 4000;
const AFTER_REJOIN_MS = 2000;
const FUNDS = 100_000_000n;
const TOPOLOGIES = ['multi-writer', 'one writer'] as const;
type Topology = (typeof TOPOLOGIES)[number];
type Proc = Awaited<ReturnType<typeof startProcess>>;

const galera = async (...args: string[]) => (await promisify(execFile)('bash', [GALERA_SH, ...args], { timeout: 150_000 })).stderr.trim();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? 0;

/** One topology's processes, merchant, and what its clients saw. */
interface Side {
  topology: Topology;
  procs: Proc[];
  clients: Client[];
  merchantId: string;
  statuses: Map<number, number>;
  unexpected: string[];
  /** Each key's final answer, and how to send its request again. */
  keys: Map<string, { final: Res; send: (c: Client) => Promise<Res> }>;
  retried: number;
  latencies: number[];
}

/**
 * Sends until an answer that is not "retry later" (or 90 s: beyond the 60 s lease of a key whose
 * holder could not release it), each time through the next process.
 */
async function settle(side: Side, key: string, start: number, send: (c: Client) => Promise<Res>): Promise<Res | undefined> {
  const giveUp = Date.now() + 90_000;
  for (let attempt = 0; ; attempt++) {
    const t0 = Date.now();
    let r: Res;
    try {
      r = await send(side.clients[(start + attempt) % 3]);
    } catch (err) {
      side.unexpected.push(`${key}: ${(err as Error).message} (process ${((start + attempt) % 3) + 1})`);
      return undefined;
    }
    side.latencies.push(Date.now() - t0);
    side.statuses.set(r.status, (side.statuses.get(r.status) ?? 0) + 1);
    const later = r.status === 503 || (r.status === 409 && r.headers.get('retry-after') !== null);
    if (r.status >= 500 && r.status !== 503) side.unexpected.push(`${r.status} ${r.text.slice(0, 200)}`);
    if (r.status === 503 && r.headers.get('retry-after') === null) side.unexpected.push('503 without Retry-After');
    if (!later) {
      side.keys.set(key, { final: r, send });
      return r;
    }
    if (Date.now() > giveUp) {
      side.unexpected.push(`${key}: still ${r.status} after 90 s`);
      return undefined;
    }
    side.retried++;
    await sleep(200);
  }
}

/** One client: create a payout, approve it, again, until `stopped()`. */
async function client(side: Side, w: number, stopped: () => boolean): Promise<void> {
  for (let n = 0; !stopped(); n++) {
    const createKey = randomUUID();
    const body = payoutBody({ amount: String(1 + ((w * 7919 + n * 104729) % 1000)), merchant_reference: `nf-${createKey}` });
    const created = await settle(side, createKey, w + n, (c) => c.post('/v1/payout_intents', body, { idempotencyKey: createKey }));
    if (created?.status !== 201) continue;
    const approveKey = randomUUID();
    await settle(side, approveKey, w + n + 1, (c) => c.post(`/v1/payout_intents/${created.body.id}/approve`, {}, { idempotencyKey: approveKey }));
  }
}

/** A process's error log line, short: its message and the first frames of its error's stack (where it was thrown matters most). */
function errorLine(line: string): string {
  try {
    const entry = JSON.parse(line) as { msg?: string; reqId?: string; component?: string; err?: { message?: string; stack?: string } };
    const frames = (entry.err?.stack ?? '')
      .split('\n')
      .slice(1, 9)
      .map((f) => f.trim());
    return `${entry.component ?? entry.reqId ?? ''} ${entry.msg ?? ''}: ${entry.err?.message ?? ''}\n    ${frames.join('\n    ')}`;
  } catch {
    return line.slice(0, 300);
  }
}

cluster('a Galera node killed under load', () => {
  let db: ClusterDatabase;
  let admin: App;
  const sides: Side[] = [];
  const figures: string[] = [];
  const logged: string[] = [];
  let stopping = false;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    db = await clusterDatabase();
    // Migrations once, on node 1, before the processes start.
    admin = await createApp(testConfig(db.nodes[0]), pino({ level: 'silent' }));
    const url = db.nodes.map((n) => n.env.DATABASE_URL);
    const settings: Record<Topology, (i: number) => Record<string, string>> = {
      'multi-writer': (i) => ({ DATABASE_URL: url[i] }),
      'one writer': () => ({ DATABASE_URL: url[0], DATABASE_READ_URLS: `${url[1]},${url[2]}` }),
    };
    for (const topology of TOPOLOGIES) {
      // A loaded machine may take long to start six processes: 90 s, and every child is stopped at the end even if one did not start.
      const procs = await Promise.all(
        [0, 1, 2].map((i) =>
          startProcess(
            db.nodes[i],
            { REDIS_URL: '', ...PRODUCTION_DB_LIMITS, ...settings[topology](i) },
            { startTimeoutMs: 90_000, started: (c) => children.push(c) },
          ),
        ),
      );
      procs.forEach((p, i) => {
        p.child.stdout!.on('data', (chunk: Buffer) => {
          for (const line of chunk.toString().split('\n')) if (/"level":(50|60)/.test(line)) logged.push(`${topology} process ${i + 1}: ${errorLine(line)}`);
        });
        p.child.stderr!.on('data', (chunk: Buffer) => logged.push(`${topology} process ${i + 1} stderr: ${chunk.toString().slice(0, 600)}`));
        p.child.once('exit', (code, signal) => stopping || logged.push(`${topology} process ${i + 1} exited (${code ?? signal})`));
      });
      const m = await admin.auth.createMerchant(`node-failure-${topology.replace(' ', '-')}-${randomUUID().slice(0, 8)}`);
      const key = await admin.auth.issueKey(m.id, 'test');
      const clients = procs.map(
        (p) =>
          new Client(p.url, `${key.public_key}:${key.secret_key}`, {
            merchantId: m.id,
            apiKeyId: key.api_key_id,
            environment: 'test',
            principal: { type: 'api_key', id: key.api_key_id, restricted: false, grants: FULL_ACCESS },
          }),
      );
      const topup = await clients[0].post(
        '/v1/topup_intents',
        { amount: String(FUNDS), currency: 'THB', country: 'TH', merchant_reference: `fund-${randomUUID()}` },
        { idempotencyKey: randomUUID() },
      );
      expect(topup.status).toBe(201);
      expect((await clients[0].post(`/v1/test_helpers/topup_intents/${topup.body.id}/succeed`, {})).status).toBe(200);
      sides.push({ topology, procs, clients, merchantId: m.id, statuses: new Map(), unexpected: [], keys: new Map(), retried: 0, latencies: [] });
    }
  }, 200_000);

  afterAll(async () => {
    stopping = true;
    process.stdout.write(`[node-failure] ${figures.join('\n[node-failure] ')}\n`);
    if (logged.length)
      process.stdout.write(`[node-failure] ${logged.length} error lines or exits of the processes, the first:\n${logged.slice(0, 8).join('\n')}\n`);
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await admin?.close();
    await db?.drop();
  });

  test('node 2 killed with SIGKILL and restarted under load, on both topologies: no 500, every key one outcome, the money exact on every node', async () => {
    const before = await conflicts([db.admin[0], db.admin[2]]);
    let stop = false;
    const t0 = Date.now();
    const load = Promise.all(sides.flatMap((side) => Array.from({ length: CLIENTS }, (_, w) => client(side, w, () => stop))));
    await sleep(KILL_AT_MS);
    figures.push(await galera('kill', '2'));
    db.admin[1].destroy(); // its connection died with the node
    const killedAt = Date.now();
    figures.push(`${(await galera('start', '2')).split('\n').pop()}, ${Date.now() - killedAt} ms after the kill`);
    await sleep(AFTER_REJOIN_MS);
    stop = true;
    await load;
    await reconnect(db, 1);
    figures.push(`load ${Date.now() - t0} ms; certification conflicts on nodes 1 and 3: ${(await conflicts([db.admin[0], db.admin[2]])) - before}`);
    for (const s of sides) {
      const statuses = Object.fromEntries([...s.statuses].sort(([a], [b]) => a - b));
      figures.push(
        `${s.topology}: ${s.keys.size} keys, answers ${JSON.stringify(statuses)}, ${s.retried} sent again, p99 ${p99(s.latencies)} ms, slowest ${Math.max(...s.latencies)} ms`,
      );
    }

    for (const s of sides) {
      // No 500; nothing but 503 / 409 + Retry-After to send again; every key settled as created or approved.
      expect({ topology: s.topology, unexpected: s.unexpected }).toEqual({ topology: s.topology, unexpected: [] });
      const unsettled = [...s.keys].filter(([, k]) => k.final.status !== 201 && k.final.status !== 202);
      expect(unsettled.map(([key, k]) => `${key}: ${k.final.status} ${k.final.text.slice(0, 300)}`)).toEqual([]);
      expect(s.keys.size).toBeGreaterThan(10);
      // Every key replays its one outcome on every process (30 requests at a time).
      const replays = [...s.keys].flatMap(([k, { final, send }]) =>
        s.clients.map((c) => async () => {
          const again = await send(c);
          return again.status === final.status && again.body?.id === final.body?.id
            ? ''
            : `${k}: ${final.status} ${final.body?.id}, then ${again.status} ${again.body?.id}`;
        }),
      );
      const mismatches: string[] = [];
      for (let i = 0; i < replays.length; i += 30) mismatches.push(...(await Promise.all(replays.slice(i, i + 30).map((f) => f()))));
      expect(mismatches.filter(Boolean)).toEqual([]);
    }

    // The money, with the processes stopped (nothing settles meanwhile), on every node.
    stopping = true;
    await Promise.all(sides.flatMap((s) => s.procs.map((p) => p.stop())));
    for (const s of sides) {
      const [payouts] = await db.admin[0].query<any[]>('SELECT merchant_reference, status, amount FROM payout_intents WHERE merchant_id = ?', [s.merchantId]);
      const createdRefs = [...s.keys.values()].filter((k) => k.final.status === 201).map((k) => k.final.body.merchant_reference as string);
      expect(payouts.map((p) => p.merchant_reference as string).sort()).toEqual(createdRefs.sort());
      const sum = (states: string[]) => payouts.filter((p) => states.includes(p.status)).reduce((a, p) => a + BigInt(p.amount), 0n);
      const [paidOut, held] = [sum(['succeeded']), sum(['requires_approval', 'processing'])];
      for (const [i, c] of db.admin.entries()) {
        const [[balance]] = await c.query<any[]>("SELECT available, reserved FROM balances WHERE merchant_id = ? AND currency = 'THB'", [s.merchantId]);
        expect({ node: i + 1, total: BigInt(balance.available) + BigInt(balance.reserved) + paidOut, reserved: BigInt(balance.reserved) }).toEqual({
          node: i + 1,
          total: FUNDS,
          reserved: held,
        });
      }
      figures.push(`${s.topology}: ${payouts.length} payouts, paid out ${paidOut}, held ${held}`);
    }
    const entries = await Promise.all(db.admin.map(async (c) => Number((await c.query<any[]>('SELECT COUNT(*) AS n FROM ledger_entries'))[0][0].n)));
    expect(new Set(entries).size).toBe(1);
    const digests = await Promise.all(
      db.admin.map(async (c) => {
        const [rows] = await c.query<any[]>('CHECKSUM TABLE balances, ledger_entries, payout_intents, idempotency_keys');
        return rows.map((r) => `${r.Table.split('.').pop()}=${r.Checksum}`).join(' ');
      }),
    );
    expect(new Set(digests).size).toBe(1);
    for (const node of db.nodes) {
      const { code, report } = await ledgerVerifyCli(node);
      expect({ code, ok: report?.ok }).toEqual({ code: 0, ok: true });
    }
    figures.push(`${entries[0]} ledger entries on each node; ledger verify ok through the three nodes`);
  }, 200_000);
});
