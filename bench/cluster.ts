/**
 * `npm run bench:cluster` (scripts/bench-cluster.sh starts a fresh three-node Galera cluster on
 * ports 3331-3333 and passes GALERA_URLS): the two Galera topologies side by side, each with
 * three gateway processes (production settings, bench/lifecycle.ts):
 *  - `multi-writer`: gateway i on node i for everything;
 *  - `one-writer`: every gateway writes on node 1 (DATABASE_URL) and reads on nodes 2 and 3
 *    (DATABASE_READ_URLS).
 * Two loads on each, `BENCH_CLUSTER_CLIENTS` (30) closed-loop clients spread over the three
 * gateways, each client creating a payout (fresh Idempotency-Key) then reading it back:
 *  - `one merchant`: every client on one busy merchant (its balance row and event counter are
 *    written by every create);
 *  - `ten merchants`: client i on merchant i % 10.
 * `BENCH_CLUSTER_ROUNDS` (2) rounds of `BENCH_CLUSTER_SECONDS` (10 s) per cell, the topologies
 * alternating. Per cell: requests/s and creates/s, p50/p99 of all answers and of creates, the
 * answers by status, Galera's conflict counters (wsrep_local_cert_failures, wsrep_local_bf_aborts,
 * summed over the nodes) and the gateways' own (database_conflict_retries_total,
 * database_conflicts_exhausted_total). The clients run in this process (the same for both
 * topologies). Results: bench/results/cluster.json (BENCH_CLUSTER_OUT).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import mysql from 'mysql2/promise';
import { cleanup, cleanUpOnSignals, cli, startGateway, type Db, type Started } from './lifecycle';
import { log, median, quantile, ROOT, round1, sleep } from './settings';

const env = process.env;
const URLS = (env.GALERA_URLS ?? '').split(',').filter(Boolean);
const CLIENTS = Number(env.BENCH_CLUSTER_CLIENTS ?? 30);
const SECONDS = Number(env.BENCH_CLUSTER_SECONDS ?? 10);
const ROUNDS = Number(env.BENCH_CLUSTER_ROUNDS ?? 2);
const OUT = env.BENCH_CLUSTER_OUT ?? path.join(ROOT, 'bench/results/cluster.json');
const TOPOLOGIES = ['multi-writer', 'one-writer'] as const;
const LOADS = ['one merchant', 'ten merchants'] as const;
type Topology = (typeof TOPOLOGIES)[number];
type Load = (typeof LOADS)[number];

interface Window {
  seconds: number;
  requests: number;
  creates: number;
  latencies: number[];
  createLatencies: number[];
  statuses: Record<string, number>;
  certFailures: number;
  bfAborts: number;
  retries: number;
  exhausted: number;
}

const basic = (auth: string) => `Basic ${Buffer.from(auth).toString('base64')}`;

/** wsrep conflict counters summed over the nodes. */
async function wsrep(admins: mysql.Connection[]): Promise<{ certFailures: number; bfAborts: number }> {
  const total = { certFailures: 0, bfAborts: 0 };
  for (const c of admins) {
    const [rows] = (await c.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')")) as any;
    for (const r of rows) total[r.Variable_name === 'wsrep_local_cert_failures' ? 'certFailures' : 'bfAborts'] += Number(r.Value);
  }
  return total;
}

/** The gateways' conflict counters summed (their /metrics). */
async function gatewayConflicts(gateways: Started[]): Promise<{ retries: number; exhausted: number }> {
  const total = { retries: 0, exhausted: 0 };
  for (const g of gateways) {
    const text = await (await fetch(`${g.metricsUrl}/metrics`)).text();
    total.retries += Number(/^database_conflict_retries_total (\d+)/m.exec(text)?.[1] ?? NaN);
    total.exhausted += Number(/^database_conflicts_exhausted_total (\d+)/m.exec(text)?.[1] ?? NaN);
  }
  return total;
}

async function window(gateways: Started[], auths: string[], load: Load, admins: mysql.Connection[]): Promise<Window> {
  const w: Window = {
    seconds: SECONDS,
    requests: 0,
    creates: 0,
    latencies: [],
    createLatencies: [],
    statuses: {},
    certFailures: 0,
    bfAborts: 0,
    retries: 0,
    exhausted: 0,
  };
  const [wsrepBefore, gwBefore] = [await wsrep(admins), await gatewayConflicts(gateways)];
  const end = Date.now() + SECONDS * 1000;
  const send = async (url: string, init: RequestInit): Promise<{ status: number; body: any; ms: number }> => {
    const t0 = performance.now();
    const res = await fetch(url, init);
    const body = await res.json().catch(() => undefined);
    const ms = performance.now() - t0;
    w.requests++;
    w.latencies.push(ms);
    w.statuses[res.status] = (w.statuses[res.status] ?? 0) + 1;
    return { status: res.status, body, ms };
  };
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const authorization = basic(auths[load === 'one merchant' ? 0 : i % auths.length]);
      for (let n = 0; Date.now() < end; n++) {
        const gw = gateways[(i + n) % gateways.length].url;
        const key = randomUUID();
        const body = JSON.stringify({
          amount: '1',
          currency: 'THB',
          country: 'TH',
          merchant_reference: `bc-${key}`,
          recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai Jaidee' },
        });
        const created = await send(`${gw}/v1/payout_intents`, {
          method: 'POST',
          body,
          headers: { authorization, 'content-type': 'application/json', 'idempotency-key': key },
        });
        w.createLatencies.push(created.ms);
        if (created.status !== 201) continue;
        w.creates++;
        // Read it back through the next gateway (a reader node in one-writer).
        await send(`${gateways[(i + n + 1) % gateways.length].url}/v1/payout_intents/${created.body.id}`, { headers: { authorization } });
      }
    }),
  );
  const [wsrepAfter, gwAfter] = [await wsrep(admins), await gatewayConflicts(gateways)];
  w.certFailures = wsrepAfter.certFailures - wsrepBefore.certFailures;
  w.bfAborts = wsrepAfter.bfAborts - wsrepBefore.bfAborts;
  w.retries = gwAfter.retries - gwBefore.retries;
  w.exhausted = gwAfter.exhausted - gwBefore.exhausted;
  return w;
}

async function stop(gateways: Started[]): Promise<void> {
  await Promise.all(gateways.map((g) => new Promise((r) => (g.proc.exitCode !== null ? r(null) : (g.proc.once('exit', r), g.proc.kill('SIGTERM'))))));
}

function summary(windows: Window[]) {
  const all = windows.flatMap((w) => w.latencies).sort((a, b) => a - b);
  const creates = windows.flatMap((w) => w.createLatencies).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const w of windows) for (const [s, n] of Object.entries(w.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
  const sum = (f: (w: Window) => number) => windows.reduce((a, w) => a + f(w), 0);
  return {
    rps: round1(median(windows.map((w) => w.requests / w.seconds))),
    creates_per_s: round1(median(windows.map((w) => w.creates / w.seconds))),
    p50_ms: round1(quantile(all, 0.5)),
    p99_ms: round1(quantile(all, 0.99)),
    create_p99_ms: round1(quantile(creates, 0.99)),
    max_ms: round1(all[all.length - 1] ?? 0),
    statuses,
    wsrep_local_cert_failures: sum((w) => w.certFailures),
    wsrep_local_bf_aborts: sum((w) => w.bfAborts),
    gateway_conflict_retries: sum((w) => w.retries),
    gateway_conflicts_exhausted: sum((w) => w.exhausted),
    rounds: windows.map((w) => ({
      rps: round1(w.requests / w.seconds),
      creates: w.creates,
      cert_failures: w.certFailures,
      bf_aborts: w.bfAborts,
      retries: w.retries,
    })),
  };
}

async function main(): Promise<void> {
  if (URLS.length !== 3) throw new Error('GALERA_URLS must name the three nodes: run `npm run bench:cluster` (scripts/bench-cluster.sh starts the cluster)');
  cleanUpOnSignals();
  const name = `bench_cluster_${Date.now()}`;
  const nodeUrl = (i: number) => Object.assign(new URL(URLS[i]), { pathname: `/${name}` });
  const admins = await Promise.all(URLS.map((u) => mysql.createConnection(u)));
  await admins[0].query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const db: Db = { url: nodeUrl(0), name };
  log(`database ${name} on the cluster; migrations on node 1`);
  await cli(db, ['migrate']);
  const keys = [];
  for (let i = 0; i < 10; i++) keys.push(await cli(db, ['keys', 'create', '--merchant', `cluster-m${i}`, '--env', 'test']));
  const auths: string[] = keys.map((k: any) => `${k.public_key}:${k.secret_key}`);
  const settings: Record<Topology, (i: number) => NodeJS.ProcessEnv> = {
    'multi-writer': (i) => ({ DATABASE_URL: nodeUrl(i).toString() }),
    'one-writer': () => ({ DATABASE_URL: nodeUrl(0).toString(), DATABASE_READ_URLS: `${nodeUrl(1).toString()},${nodeUrl(2).toString()}` }),
  };
  const windows = new Map<string, Window[]>();
  let funded = false;
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? TOPOLOGIES : [...TOPOLOGIES].reverse();
    for (const topology of order) {
      const gateways = await Promise.all([0, 1, 2].map((i) => startGateway(db, [], settings[topology](i))));
      if (!funded) {
        for (const auth of auths) {
          const h = { authorization: basic(auth), 'content-type': 'application/json' };
          const t = (await (
            await fetch(`${gateways[0].url}/v1/topup_intents`, {
              method: 'POST',
              headers: { ...h, 'idempotency-key': randomUUID() },
              body: JSON.stringify({ amount: '1000000000000', currency: 'THB', country: 'TH', merchant_reference: `fund-${randomUUID()}` }),
            })
          ).json()) as { id: string };
          await fetch(`${gateways[0].url}/v1/test_helpers/topup_intents/${t.id}/succeed`, { method: 'POST', headers: h, body: '{}' });
        }
        funded = true;
      }
      for (const load of LOADS) {
        await sleep(500);
        const w = await window(gateways, auths, load, admins);
        log(
          `round ${round} ${topology}, ${load}: ${round1(w.requests / w.seconds)} req/s, ${w.creates} creates, ` +
            `cert failures ${w.certFailures}, bf aborts ${w.bfAborts}, gateway retries ${w.retries} (exhausted ${w.exhausted}), statuses ${JSON.stringify(w.statuses)}`,
        );
        const k = `${topology}|${load}`;
        windows.set(k, [...(windows.get(k) ?? []), w]);
      }
      await stop(gateways);
    }
  }
  const results = TOPOLOGIES.flatMap((topology) => LOADS.map((load) => ({ topology, load, ...summary(windows.get(`${topology}|${load}`)!) })));
  const out = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memory_gib: Math.round(os.totalmem() / 2 ** 30) },
    cluster: 'three MariaDB Galera nodes on loopback (scripts/galera.sh: innodb_flush_log_at_trx_commit=2, 64 MB buffer pool)',
    settings: {
      clients: CLIENTS,
      seconds: SECONDS,
      rounds: ROUNDS,
      request: 'create a payout of 1 THB (fresh Idempotency-Key), then GET it through the next gateway',
    },
    results,
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(out, null, 2) + '\n');
  for (const r of results)
    log(
      `${r.topology.padEnd(12)} ${r.load.padEnd(13)} ${r.rps} req/s, p99 ${r.p99_ms} ms (create ${r.create_p99_ms}), cert ${r.wsrep_local_cert_failures}, bf ${r.wsrep_local_bf_aborts}, retries ${r.gateway_conflict_retries}`,
    );
  log(`written ${path.relative(ROOT, OUT)}`);
  await admins[0].query(`DROP DATABASE IF EXISTS \`${name}\``);
  await Promise.all(admins.map((c) => c.end()));
}

main()
  .catch((err) => {
    log(`failed: ${err instanceof Error ? err.stack : err}`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
