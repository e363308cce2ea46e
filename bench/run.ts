/**
 * `npm run bench`: the gateway against its physical floor, side by side, on MariaDB/MySQL
 * (README "Benchmarks"; docs/decisions.md "Benchmark method").
 *
 *  1. A database: DATABASE_URL=mysql://user@host:port/db (created if missing, kept; a seed
 *     already there is reused), else a fresh `bench_<time>` on mysql://root@127.0.0.1:3306,
 *     dropped at the end, on failure and on SIGINT/SIGTERM too (BENCH_KEEP=1 keeps it).
 *  2. Merchants and keys through the provisioning CLI; balances topped up through the service
 *     (topup + test helper); one payout and one payment created by the service and copied in
 *     bulk (bench/seed.ts): BENCH_PAYOUTS (100,000) payouts on one "big" merchant, and
 *     BENCH_PAYMENTS (100,000) payments spread over BENCH_MERCHANTS (10) merchants.
 *  3. The gateway as its own process (node dist/src/main.js), the floor (bench/floor.ts) as
 *     another, and the load generator (bench/loadgen.ts, autocannon) as a third.
 *  4. Per read scenario, the floor's answer is compared byte for byte with the gateway's;
 *     a mismatch stops the run before anything is measured.
 *  5. Per scenario, BENCH_ROUNDS (3) rounds of a BENCH_SECONDS (5) window on the gateway, then
 *     one on the floor, with BENCH_CONNECTIONS (20) connections, after a warm-up window each.
 *  6. Subscription fan-out: BENCH_SUBSCRIBERS (500) graphql-ws subscribers on the gateway
 *     while a writer commits events at BENCH_EVENT_RATE (20/s) from another process.
 *  7. A table on stdout and bench/results/latest.json (BENCH_RESULT=<name>.json writes another
 *     file there, e.g. mysql8.json for a run on MySQL 8).
 *
 * BENCH_ONLY=list,deep,gql,get,create,ceiling,methods,subscribe runs a subset (groups or
 * scenario names).
 *
 * BENCH_PROFILE=1 adds a profiling pass after the measurements: a second gateway and a second
 * floor under `node --cpu-prof` run each scenario again (warm-up, then one BENCH_SECONDS x
 * BENCH_ROUNDS window each), and their CPU time within each measured window is aggregated by
 * package (bench/profile.ts) and divided by the requests served: CPU µs per request, gateway
 * beside floor (`profile` per scenario in the results, and a table); BENCH_PROFILE_KEEP=1
 * keeps the .cpuprofile files (for Chrome DevTools or a flame graph).
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ChildProcess, execFile, fork, spawn } from 'node:child_process';
import mysql from 'mysql2/promise';
import { copyRows, SeedRow } from './seed';
import * as SQL from './sql';
import {
  FRESH, GQL_CREATE_PAYMENT, GQL_CREATE_PAYOUT, GQL_EVENTS_SUBSCRIPTION, GQL_PAYOUT_GET, GQL_PAYOUT_LIST,
  gqlPaymentInput, gqlPayoutInput, paymentBody, payoutBody,
} from './queries';
import type { HttpJob, HttpResult } from './loadgen';

const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 20);
const WARMUP = Number(env.BENCH_WARMUP ?? 1);
const PAYOUTS = Number(env.BENCH_PAYOUTS ?? 100_000);
const PAYMENTS = Number(env.BENCH_PAYMENTS ?? 100_000);
const MERCHANTS = Math.max(2, Number(env.BENCH_MERCHANTS ?? 10));
const SUBSCRIBERS = Number(env.BENCH_SUBSCRIBERS ?? 500);
const EVENT_RATE = Number(env.BENCH_EVENT_RATE ?? 20);
const EVENT_SECONDS = Number(env.BENCH_EVENT_SECONDS ?? Math.max(5, SECONDS * ROUNDS));
const PROFILE = env.BENCH_PROFILE === '1';
const ONLY = (env.BENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const ROOT = path.resolve(__dirname, '..', '..');
const DIST = path.resolve(__dirname, '..');
const ENCRYPTION_KEY = randomBytes(32).toString('base64');

const log = (...args: unknown[]) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${args.join(' ')}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- lifecycle and cleanup

const children: ChildProcess[] = [];
let dropDatabase: (() => Promise<void>) | undefined;
let cleaning: Promise<void> | undefined;

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : Promise.race([new Promise((r) => c.once('exit', r)), sleep(5000)]))));
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    if (dropDatabase) await dropDatabase().catch((err) => log(`could not drop the database: ${err}`));
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the processes and dropping the database`);
    void cleanup().finally(() => process.exit(130));
  });
}

interface Db { url: URL; name: string; admin: () => Promise<mysql.Connection> }

async function openDatabase(): Promise<Db> {
  const given = env.DATABASE_URL?.trim();
  if (given && !/^mysql:\/\//.test(given)) throw new Error('npm run bench needs MariaDB/MySQL: DATABASE_URL=mysql://user@host:3306/db (or leave it unset for a fresh bench_<time> on 127.0.0.1:3306)');
  const url = new URL(given || 'mysql://root@127.0.0.1:3306/');
  const name = given ? url.pathname.slice(1) : `bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
  if (!name) throw new Error('DATABASE_URL names no database');
  url.pathname = `/${name}`;
  const admin = () => mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) });
  const c = await admin();
  await c.query(`CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await c.end();
  if (!given && env.BENCH_KEEP !== '1') {
    dropDatabase = async () => {
      const d = await admin();
      await d.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await d.end();
      log(`dropped database ${name}`);
    };
  }
  log(`database ${url.toString()}${dropDatabase ? ' (dropped at the end)' : ' (kept)'}`);
  return { url, name, admin };
}

/** The gateway's settings: production-like, but quiet (no scheduler ticks or webhook sends in the statement counts). */
function gatewayEnv(db: Db, port = 0): NodeJS.ProcessEnv {
  return {
    ...env, DATABASE_URL: db.url.toString(), DATA_ENCRYPTION_KEY: env.BENCH_DATA_ENCRYPTION_KEY ?? ENCRYPTION_KEY, PORT: String(port), HOST: '127.0.0.1',
    LOG_LEVEL: env.BENCH_LOG_LEVEL ?? 'warn', SEED_DEMO: '0', RATE_LIMIT_PER_SECOND: '0', SIMULATED_SETTLE_MS: '3600000',
    SCHEDULER_INTERVAL_MS: '3600000', WEBHOOK_DELIVERY: '0', REDIS_URL: env.BENCH_REDIS_URL ?? '', NODE_ENV: 'production',
  };
}

function cli(db: Db, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(DIST, 'src/cli/main.js'), ...args], { env: gatewayEnv(db), cwd: ROOT }, (err, stdout, stderr) => {
      if (err) reject(new Error(`cli ${args.join(' ')}: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()!));
    });
  });
}

/** Warnings and errors the gateway logged, by message. */
const gatewayWarnings = new Map<string, number>();
const warningsSince = (before: Map<string, number>) => Object.fromEntries([...gatewayWarnings].map(([k, v]) => [k, v - (before.get(k) ?? 0)]).filter(([, v]) => (v as number) > 0));

/** A port free now (the gateway logs its port only at info level: it is given one instead). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function startGateway(db: Db, nodeArgs: string[] = []): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [...nodeArgs, path.join(DIST, 'src/main.js')], { env: gatewayEnv(db, port), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(proc);
  let out = '';
  const onData = (b: Buffer) => {
    out = (out + b.toString()).slice(-4000);
    // The gateway's warnings and errors (e.g. "slow sql", "database unavailable" under
    // overload): the first of each kind is shown, all are counted (per scenario in the results).
    for (const line of b.toString().split('\n')) {
      if (!/"level":(40|50|60)/.test(line)) continue;
      const msg = /"msg":"([^"]*)"/.exec(line)?.[1] ?? 'unknown';
      if (!gatewayWarnings.has(msg)) process.stderr.write(`[gateway] ${line.slice(0, 400)}\n`);
      gatewayWarnings.set(msg, (gatewayWarnings.get(msg) ?? 0) + 1);
    }
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  let exited = false;
  proc.once('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited) throw new Error(`the gateway exited before listening:\n${out}`);
    if (Date.now() > deadline) throw new Error(`the gateway did not answer /healthz in 120 s:\n${out}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, proc };
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
}

async function startFloor(db: Db, nodeArgs: string[] = []): Promise<{ url: string; proc: ChildProcess }> {
  const proc = fork(path.join(__dirname, 'floor.js'), [], { env: { ...gatewayEnv(db) }, execArgv: nodeArgs, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(proc);
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m: any) => resolve(m.port));
    proc.once('exit', (code) => reject(new Error(`the floor exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, proc };
}

class LoadGen {
  private seq = 0;
  private pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  readonly proc: ChildProcess;
  constructor() {
    this.proc = fork(path.join(__dirname, 'loadgen.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(this.proc);
    this.proc.on('message', (m: any) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error) p?.reject(new Error(m.error)); else p?.resolve(m.result);
    });
    this.proc.once('exit', (code) => { for (const p of this.pending.values()) p.reject(new Error(`the load generator exited (${code})`)); });
  }
  run<T>(job: Record<string, unknown>): Promise<T> {
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.proc.send({ id, job });
    });
  }
}

// ---------------------------------------------------------------- measuring helpers

function peakRssMb(pid: number | undefined): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** `roundTrips`: queries sent (the floor sends one statement per query: its statements). */
interface Counters { statements: number; roundTrips?: number; requests: number }

/** The gateway's own counts: SQL statements sent (database_statements_total) and requests answered (http_requests_total, /metrics itself excluded). */
async function gatewayCounters(url: string): Promise<Counters> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^database_statements_total(?:\{[^}]*\})? (\S+)$/m.exec(text);
  if (!m) throw new Error('/metrics has no database_statements_total');
  const trips = /^database_round_trips_total(?:\{[^}]*\})? (\S+)$/m.exec(text);
  let requests = 0;
  for (const line of text.matchAll(/^http_requests_total\{([^}]*)\} (\S+)$/gm)) if (!line[1].includes('route="/metrics"')) requests += Number(line[2]);
  return { statements: Number(m[1]), roundTrips: trips ? Number(trips[1]) : undefined, requests };
}
async function floorCounters(url: string): Promise<Counters> {
  return (await (await fetch(`${url}/__stats`)).json()) as Counters;
}

/** Reads the counters once they stop moving (requests the load generator abandoned at the end of its window finish first). */
async function settledCounters(url: string, read: (u: string) => Promise<Counters>): Promise<Counters> {
  let last = await read(url);
  // Generous: at 20 connections a slow query (a deep page without an index range) keeps the
  // database busy well after the window; the next window must not start on top of it.
  const deadline = Date.now() + 60_000;
  for (;;) {
    await sleep(300);
    const now = await read(url);
    if ((now.statements === last.statements && now.requests === last.requests) || Date.now() > deadline) return now;
    last = now;
  }
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

// ---------------------------------------------------------------- main

interface Merchant { id: string; name: string; auth: string; header: string }

interface Scenario {
  name: string;
  group: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  auths: string[];
  /** Compared byte for byte (reads). */
  check: boolean;
  note?: string;
}

interface Side { rps: number; p50_ms: number; p99_ms: number; statements_per_request: number | null; round_trips_per_request: number | null; non2xx: number; errors: number; rounds: HttpResult[] }

const basic = (auth: string) => `Basic ${Buffer.from(auth).toString('base64')}`;

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadAtStart = os.loadavg().map(round2);
  const db = await openDatabase();
  log('migrating');
  await cli(db, ['migrate']);
  const pool = mysql.createPool({
    host: db.url.hostname, port: Number(db.url.port || 3306), user: decodeURIComponent(db.url.username), password: decodeURIComponent(db.url.password),
    database: db.name, connectionLimit: 4, supportBigNumbers: true, bigNumberStrings: true, charset: 'utf8mb4_unicode_ci',
  });
  try {
    // --- merchants and keys, through the provisioning CLI (a few at a time: each is a process)
    log(`provisioning ${MERCHANTS} merchants`);
    const merchants: Merchant[] = [];
    const names = Array.from({ length: MERCHANTS }, (_, i) => (i === 0 ? 'bench-big' : `bench-m${i}`));
    for (let i = 0; i < names.length; i += 4) {
      const keys = await Promise.all(names.slice(i, i + 4).map((name) => cli(db, ['keys', 'create', '--merchant', name, '--env', 'test'])));
      keys.forEach((k, j) => merchants.push({ id: k.merchant_id, name: names[i + j], auth: `${k.public_key}:${k.secret_key}`, header: basic(`${k.public_key}:${k.secret_key}`) }));
    }
    const [big, ...others] = merchants;
    const writer = others[0]; // single-merchant writes
    const subscriberMerchant = others[others.length - 1];

    log('starting the gateway');
    const gw = await startGateway(db);
    const call = async (m: Merchant, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${gw.url}${p}`, {
        method, headers: { authorization: m.header, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
      return JSON.parse(text);
    };
    const fresh = (o: unknown) => JSON.parse(JSON.stringify(o).split(FRESH).join(randomBytes(6).toString('hex')));

    // --- balances: a settled topup per merchant (the service's own path, as test/helpers/server.ts funds)
    const [countRows] = await pool.query('SELECT COUNT(*) AS n FROM payout_intents WHERE merchant_id = ?', [big.id]) as any;
    const reuse = Number(countRows[0].n) >= PAYOUTS;
    if (!reuse) {
      log('funding the merchants');
      for (const m of merchants) {
        const topup = await call(m, 'POST', '/v1/topup_intents', { amount: '1000000000000000', currency: 'THB', country: 'TH', merchant_reference: `fund-${randomBytes(6).toString('hex')}` }, { 'idempotency-key': randomBytes(12).toString('hex') });
        await call(m, 'POST', `/v1/test_helpers/topup_intents/${topup.id}/succeed`, {});
      }
      // --- the templates: one payout and one payment written by the service
      const po = await call(big, 'POST', '/v1/payout_intents', fresh(payoutBody()), { 'idempotency-key': randomBytes(12).toString('hex') });
      const pi = await call(others[0], 'POST', '/v1/payment_intents', fresh(paymentBody()), { 'idempotency-key': randomBytes(12).toString('hex') });
      const t0 = Date.now() - 86_400_000;
      log(`seeding ${PAYOUTS} payouts (merchant ${big.name})`);
      let s = Date.now();
      const payoutRows: SeedRow[] = Array.from({ length: PAYOUTS }, (_, i) => ({ merchantId: big.id, t: t0 + i * 37 }));
      await copyRows(pool, 'payout_intents', po.id, payoutRows, (n) => { if (n % 20000 === 0) log(`  ${n} payouts`); });
      log(`  payouts seeded in ${((Date.now() - s) / 1000).toFixed(1)} s`);
      log(`seeding ${PAYMENTS} payments over ${MERCHANTS} merchants`);
      s = Date.now();
      const paymentRows: SeedRow[] = Array.from({ length: PAYMENTS }, (_, i) => ({ merchantId: merchants[i % MERCHANTS].id, t: t0 + i * 37 }));
      await copyRows(pool, 'payment_intents', pi.id, paymentRows, (n) => { if (n % 20000 === 0) log(`  ${n} payments`); });
      log(`  payments seeded in ${((Date.now() - s) / 1000).toFixed(1)} s`);
      await pool.query('ANALYZE TABLE payout_intents, payment_intents');
    } else {
      log(`reusing the seed already in ${db.name}`);
    }

    const floor = await startFloor(db);
    const loadgen = new LoadGen();

    // --- the method discovery answer is computed by the gateway from its in-memory catalogue: the floor is handed it
    const methodsPath = '/v1/payment_method_options?amount=50000&currency=THB&country=TH';
    const methodsAnswer = await (await fetch(`${gw.url}${methodsPath}`, { headers: { authorization: big.header } })).text();
    await fetch(`${floor.url}/__set_methods_answer`, { method: 'POST', body: methodsAnswer });

    // --- deep cursors: the cursor the previous page's last row gives (computed, not walked)
    const [[{ total }]] = await pool.query('SELECT COUNT(*) AS total FROM payout_intents WHERE merchant_id = ? AND environment = ?', [big.id, 'test']) as any;
    const cursorAtPage = async (page: number): Promise<string | null> => {
      const offset = (page - 1) * 25 - 1;
      if (offset < 0 || offset >= Number(total)) return null;
      const [[row]] = await pool.query('SELECT created_at, id FROM payout_intents WHERE merchant_id = ? AND environment = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?', [big.id, 'test', offset]) as any;
      const tag = (await import('node:crypto')).createHash('sha256').update(`${big.id}/test`).digest('hex').slice(0, 16);
      return Buffer.from(JSON.stringify([1, 'payout_intent', tag, Number(row.created_at), row.id])).toString('base64url');
    };
    const [[someRow]] = await pool.query('SELECT id FROM payout_intents WHERE merchant_id = ? ORDER BY created_at ASC LIMIT 1 OFFSET 50000', [big.id]) as any;
    const someId: string = someRow?.id ?? (await pool.query('SELECT id FROM payout_intents WHERE merchant_id = ? LIMIT 1', [big.id]) as any)[0][0].id;

    const scenarios: Scenario[] = [];
    const gqlBody = (query: string, variables: Record<string, unknown> = {}) => JSON.stringify({ query, variables });
    scenarios.push({ name: 'REST list, first page', group: 'list', method: 'GET', path: '/v1/payout_intents?limit=25', auths: [big.header], check: true });
    scenarios.push({ name: 'GraphQL payoutIntents(first: 25)', group: 'gql', method: 'POST', path: '/graphql', body: gqlBody(GQL_PAYOUT_LIST), auths: [big.header], check: true });
    for (const page of [1000, 2000, 3000, 4000]) {
      const c = await cursorAtPage(page);
      if (!c) { log(`page ${page} does not exist with ${total} payouts: skipped`); continue; }
      scenarios.push({ name: `REST list, page ${page}`, group: 'deep', method: 'GET', path: `/v1/payout_intents?limit=25&cursor=${c}`, auths: [big.header], check: true, note: `${(page - 1) * 25} rows deep` });
      scenarios.push({ name: `GraphQL list, page ${page}`, group: 'deep', method: 'POST', path: '/graphql', body: gqlBody(GQL_PAYOUT_LIST, { after: c }), auths: [big.header], check: true, note: `${(page - 1) * 25} rows deep` });
    }
    scenarios.push({ name: 'REST get payout by id', group: 'get', method: 'GET', path: `/v1/payout_intents/${someId}`, auths: [big.header], check: true });
    scenarios.push({ name: 'GraphQL payoutIntent(id)', group: 'get', method: 'POST', path: '/graphql', body: gqlBody(GQL_PAYOUT_GET, { id: someId }), auths: [big.header], check: true });
    scenarios.push({ name: 'REST method discovery', group: 'methods', method: 'GET', path: methodsPath, auths: [big.header], check: true, note: 'floor sends the answer captured from the gateway' });
    scenarios.push({ name: 'REST create payout', group: 'create', method: 'POST', path: '/v1/payout_intents', body: JSON.stringify(payoutBody()), auths: [writer.header], check: false });
    scenarios.push({ name: 'GraphQL createPayoutIntent', group: 'create', method: 'POST', path: '/graphql', body: gqlBody(GQL_CREATE_PAYOUT, { input: gqlPayoutInput() }), auths: [writer.header], check: false });
    scenarios.push({ name: 'REST create payment (PromptPay)', group: 'create', method: 'POST', path: '/v1/payment_intents', body: JSON.stringify(paymentBody()), auths: [writer.header], check: false });
    scenarios.push({ name: 'GraphQL createPaymentIntent', group: 'create', method: 'POST', path: '/graphql', body: gqlBody(GQL_CREATE_PAYMENT, { input: gqlPaymentInput() }), auths: [writer.header], check: false });
    scenarios.push({ name: 'REST create payout, 1 merchant', group: 'ceiling', method: 'POST', path: '/v1/payout_intents', body: JSON.stringify(payoutBody('1')), auths: [writer.header], check: false });
    scenarios.push({ name: `REST create payout, ${MERCHANTS} merchants`, group: 'ceiling', method: 'POST', path: '/v1/payout_intents', body: JSON.stringify(payoutBody('1')), auths: merchants.map((m) => m.header), check: false });
    const selected = scenarios.filter((s) => ONLY.length === 0 || ONLY.includes(s.group) || ONLY.includes(s.name));

    // --- same bytes, checked before anything is measured
    const mismatches: string[] = [];
    for (const s of selected.filter((x) => x.check)) {
      const get = async (base: string) => {
        const res = await fetch(`${base}${s.path}`, { method: s.method, headers: { authorization: s.auths[0], ...(s.body ? { 'content-type': 'application/json' } : {}) }, body: s.body });
        return { status: res.status, body: await res.text() };
      };
      const [g, f] = [await get(gw.url), await get(floor.url)];
      if (g.status !== 200) mismatches.push(`${s.name}: the gateway answered ${g.status} ${g.body.slice(0, 300)}`);
      else if (g.status !== f.status || g.body !== f.body) {
        let i = 0;
        while (i < g.body.length && g.body[i] === f.body[i]) i++;
        mismatches.push(`${s.name}: bytes differ at ${i} (gateway ${g.body.length} bytes, floor ${f.body.length} bytes)\n  gateway: …${g.body.slice(Math.max(0, i - 80), i + 120)}\n  floor:   …${f.body.slice(Math.max(0, i - 80), i + 120)}`);
      }
    }
    if (mismatches.length) throw new Error(`the floor does not answer with the gateway's bytes; nothing measured:\n${mismatches.join('\n')}`);
    log(`byte check: ${selected.filter((x) => x.check).length} read scenarios identical on gateway and floor`);

    // --- measuring: per scenario, ROUNDS x (gateway window, floor window)
    const results: Record<string, unknown>[] = [];
    const window = async (base: string, s: Scenario, seconds: number, counter: (u: string) => Promise<Counters>) => {
      const before = await settledCounters(base, counter);
      const r = await loadgen.run<HttpResult>({ kind: 'http', url: base, method: s.method, path: s.path, body: s.body, auths: s.auths, connections: CONNECTIONS, seconds } satisfies HttpJob);
      const after = await settledCounters(base, counter);
      const roundTrips = (after.roundTrips ?? after.statements) - (before.roundTrips ?? before.statements);
      return { ...r, statements: after.statements - before.statements, roundTrips, served: after.requests - before.requests };
    };
    type Round = HttpResult & { statements: number; roundTrips: number; served: number };
    const perSent = (rounds: Round[], count: (r: Round) => number) => {
      const sent = rounds.reduce((a, r) => a + r.sent, 0);
      return sent < 10 ? null : round2(rounds.reduce((a, r) => a + count(r), 0) / sent);
    };
    const summarise = (rounds: Round[]): Side => ({
      rps: Math.round(rounds.reduce((a, r) => a + r.rps, 0) / rounds.length),
      p50_ms: median(rounds.map((r) => r.p50)), p99_ms: median(rounds.map((r) => r.p99)),
      // Divided by the requests sent: those in flight when a window closes are finished by the
      // server (their statements are counted) but answered to nobody. Too few make it meaningless.
      statements_per_request: perSent(rounds, (r) => r.statements),
      round_trips_per_request: perSent(rounds, (r) => r.roundTrips),
      non2xx: rounds.reduce((a, r) => a + r.non2xx, 0), errors: rounds.reduce((a, r) => a + r.errors, 0), rounds,
    });
    for (const s of selected) {
      log(`${s.name}: warm-up, then ${ROUNDS} x ${SECONDS} s on each side`);
      const warningsBefore = new Map(gatewayWarnings);
      if (WARMUP > 0) {
        await window(gw.url, s, WARMUP, gatewayCounters);
        await window(floor.url, s, WARMUP, floorCounters);
      }
      const g: Round[] = [];
      const f: Round[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        g.push(await window(gw.url, s, SECONDS, gatewayCounters));
        f.push(await window(floor.url, s, SECONDS, floorCounters));
      }
      const gs = summarise(g);
      const fs_ = summarise(f);
      const warnings = warningsSince(warningsBefore);
      results.push({ scenario: s.name, group: s.group, note: s.note, gateway: gs, floor: fs_, ratio: fs_.rps > 0 ? round2(gs.rps / fs_.rps) : null, gateway_warnings: warnings });
      const refusals = [...g, ...f].flatMap((r) => r.refusals ?? []);
      if (refusals.length) log(`  answers that were not 2xx (first of them): ${refusals.slice(0, 3).join(' | ')}`);
      if (Object.keys(warnings).length) log(`  gateway warnings: ${Object.entries(warnings).map(([k, v]) => `${k} x${v}`).join(', ')}`);
      if (gs.rps === 0 || fs_.rps === 0) log('  no request completed within a window on one side: the window is shorter than one request there (BENCH_SECONDS)');
      log(`  gateway ${gs.rps} req/s p50 ${gs.p50_ms} ms p99 ${gs.p99_ms} ms ${gs.statements_per_request} stmt/req (${gs.round_trips_per_request} round trips)${gs.non2xx ? ` NON-2XX ${gs.non2xx}` : ''}${gs.errors ? ` ERRORS ${gs.errors}` : ''} | floor ${fs_.rps} req/s p50 ${fs_.p50_ms} ms ${fs_.statements_per_request} stmt/req${fs_.non2xx ? ` NON-2XX ${fs_.non2xx}` : ''}${fs_.errors ? ` ERRORS ${fs_.errors}` : ''} | ratio ${fs_.rps > 0 ? round2(gs.rps / fs_.rps) : '-'}`);
    }

    // --- where the gateway's CPU goes, per scenario (BENCH_PROFILE=1)
    if (PROFILE) await profileScenarios(db, selected, results, loadgen, methodsAnswer, window);

    // --- subscription fan-out
    let fanout: Record<string, unknown> | undefined;
    if (ONLY.length === 0 || ONLY.includes('subscribe')) fanout = await subscriptionFanout(db, pool, gw.url, loadgen, subscriberMerchant);

    // --- report
    const rss = { gateway_mb: peakRssMb(gw.proc.pid), floor_mb: peakRssMb(floor.proc.pid), load_generator_mb: peakRssMb(loadgen.proc.pid) };
    const table = results.map((r: any) => ({
      scenario: r.scenario, 'gw req/s': r.gateway.rps, 'floor req/s': r.floor.rps, ratio: r.ratio,
      'gw p50/p99 ms': `${r.gateway.p50_ms}/${r.gateway.p99_ms}`, 'floor p50/p99 ms': `${r.floor.p50_ms}/${r.floor.p99_ms}`,
      'gw stmt/req': r.gateway.statements_per_request, 'gw round trips/req': r.gateway.round_trips_per_request, 'floor stmt/req': r.floor.statements_per_request,
      'non-2xx gw/floor': `${r.gateway.non2xx}/${r.floor.non2xx}`, 'errors gw/floor': `${r.gateway.errors}/${r.floor.errors}`,
    }));
    // eslint-disable-next-line no-console
    console.table(table);
    if (fanout) {
      // eslint-disable-next-line no-console
      console.table([fanout]);
    }
    // eslint-disable-next-line no-console
    console.log(`peak RSS (VmHWM): gateway ${rss.gateway_mb} MB, floor ${rss.floor_mb} MB, load generator ${rss.load_generator_mb} MB`);
    const [[counts]] = await pool.query('SELECT (SELECT COUNT(*) FROM payout_intents) AS payouts, (SELECT COUNT(*) FROM payment_intents) AS payments') as any;
    const report = {
      date: startedAt.toISOString(), finished: new Date().toISOString(),
      settings: { seconds: SECONDS, rounds: ROUNDS, warmup_seconds: WARMUP, connections: CONNECTIONS, merchants: MERCHANTS, only: ONLY, subscribers: SUBSCRIBERS, event_rate: EVENT_RATE, event_seconds: EVENT_SECONDS },
      database: { server: (await pool.query('SELECT VERSION() AS v') as any)[0][0].v, payouts: Number(counts.payouts), payments: Number(counts.payments), big_merchant_payouts: Number(total) },
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, loadavg_at_start: loadAtStart, loadavg_at_end: os.loadavg().map(round2), node: process.version, note: env.BENCH_NOTE ?? '' },
      peak_rss: rss,
      scenarios: results,
      subscription_fanout: fanout ?? null,
    };
    const out = path.join(ROOT, 'bench', 'results');
    fs.mkdirSync(out, { recursive: true });
    const file = path.join(out, path.basename(env.BENCH_RESULT || 'latest.json'));
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${path.relative(process.cwd(), file)}`);
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/**
 * The profiling pass: a fresh gateway and a fresh floor, each under `--cpu-prof` (sampling
 * every 500 µs); each scenario is warmed up and then run for BENCH_SECONDS x BENCH_ROUNDS on
 * each. Only the samples of the measured windows (not start-up, not warm-up) count; they are
 * aggregated by package and divided by the requests served in the window, so the gateway's
 * and the floor's CPU per request sit side by side (`profile` of the scenario's result).
 */
async function profileScenarios(
  db: Db, selected: Scenario[], results: Record<string, unknown>[], loadgen: LoadGen, methodsAnswer: string,
  window: (base: string, s: Scenario, seconds: number, counter: (u: string) => Promise<Counters>) => Promise<{ served: number }>,
): Promise<void> {
  const { readProfile, summarise } = await import('./profile');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-prof-'));
  const prof = (side: string) => ['--cpu-prof', '--cpu-prof-interval=500', `--cpu-prof-dir=${path.join(dir, side)}`];
  log(`profiling pass: a gateway and a floor under --cpu-prof (${dir})`);
  const gw = await startGateway(db, prof('gateway'));
  const floor = await startFloor(db, prof('floor'));
  await fetch(`${floor.url}/__set_methods_answer`, { method: 'POST', body: methodsAnswer });
  const windows: { name: string; side: 'gateway' | 'floor'; fromUs: number; toUs: number; served: number }[] = [];
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  const stop = async (proc: ChildProcess) => {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await Promise.race([exited, sleep(30_000)]);
  };
  try {
    for (const s of selected) {
      log(`  ${s.name}`);
      for (const [side, url, counter] of [['gateway', gw.url, gatewayCounters], ['floor', floor.url, floorCounters]] as const) {
        await window(url, s, Math.max(1, WARMUP), counter);
        const fromUs = nowUs();
        const { served } = await window(url, s, SECONDS * ROUNDS, counter);
        windows.push({ name: s.name, side, fromUs, toUs: nowUs(), served });
      }
    }
  } finally {
    await Promise.all([stop(gw.proc), stop(floor.proc)]);
  }
  const profileOf = (side: string) => {
    const files = fs.existsSync(path.join(dir, side)) ? fs.readdirSync(path.join(dir, side)).filter((f) => f.endsWith('.cpuprofile')) : [];
    return files.length ? readProfile(path.join(dir, side, files[0])) : undefined;
  };
  const profiles = { gateway: profileOf('gateway'), floor: profileOf('floor') };
  if (!profiles.gateway || !profiles.floor) { log('  a profiled process wrote no profile'); return; }
  const perRequest = (us: number, served: number) => Math.round(us / Math.max(1, served));
  const rows: Record<string, unknown>[] = [];
  for (const s of selected) {
    const side = (name: 'gateway' | 'floor') => {
      const w = windows.find((x) => x.name === s.name && x.side === name)!;
      const summary = summarise([profiles[name]!], 12, w);
      return {
        requests: w.served, cpu_us_per_request: perRequest(summary.sampled_ms * 1000, w.served),
        top: summary.top.map((t) => ({ package: t.package, percent: t.percent, us_per_request: perRequest(t.ms * 1000, w.served) })),
      };
    };
    const g = side('gateway');
    const f = side('floor');
    const result = results.find((r) => r.scenario === s.name);
    if (result) result.profile = { gateway: g, floor: f };
    rows.push({
      scenario: s.name, 'gw µs/req': g.cpu_us_per_request, 'floor µs/req': f.cpu_us_per_request,
      'gateway top (µs/req)': g.top.slice(0, 5).map((t) => `${t.package.replace('node_modules/', '')} ${t.us_per_request}`).join(', '),
    });
  }
  // eslint-disable-next-line no-console
  console.table(rows);
  if (env.BENCH_PROFILE_KEEP === '1') log(`  profiles kept in ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * BENCH_SUBSCRIBERS graphql-ws subscribers (in the load generator's process) on one merchant's
 * `events`; a writer in this process commits that merchant's events at BENCH_EVENT_RATE with
 * the gateway's own statements (next sequence number, event row: what another gateway process
 * commits), so the gateway learns of them as it learns of another process's writes. Latency:
 * commit (after COMMIT returned, in the writer) to receipt (in the subscriber), per subscriber
 * and event, both on CLOCK_MONOTONIC.
 */
async function subscriptionFanout(db: Db, pool: mysql.Pool, gwUrl: string, loadgen: LoadGen, m: Merchant): Promise<Record<string, unknown>> {
  log(`subscription fan-out: opening ${SUBSCRIBERS} graphql-ws subscribers`);
  const wsUrl = `${gwUrl.replace(/^http/, 'ws')}/graphql`;
  const { opened } = await loadgen.run<{ opened: number }>({ kind: 'subscribe', wsUrl, auth: m.auth, count: SUBSCRIBERS, query: GQL_EVENTS_SUBSCRIPTION });
  await sleep(1000); // the last subscribe messages reach the server's streams
  const [[template]] = await pool.query('SELECT data, type, resource_id FROM events WHERE merchant_id = ? ORDER BY created_at DESC LIMIT 1', [m.id]) as any;
  const data = template?.data ?? '{}';
  const { ulid } = await import('ulid');
  const conn = await pool.getConnection();
  const commits = new Map<string, bigint>();
  const write = async () => {
    const now = Date.now();
    const id = `evt_${ulid(now).toLowerCase()}`;
    await conn.query('START TRANSACTION');
    const [next] = await conn.query(SQL.NEXT_SEQ, [m.id, 'test']) as any;
    await conn.query(SQL.INSERT_EVENT, [id, m.id, 'test', template?.type ?? 'payout_intent.created', template?.resource_id ?? 'po_0', data, null, now, SQL.seqOf(next)]);
    await conn.query('COMMIT');
    commits.set(id, process.hrtime.bigint());
  };
  try {
    await write(); // warm-up event, not counted
    await sleep(1000);
    commits.clear();
    // Not settledCounters: with subscribers open the pollers (events, revocations) never let
    // the counter stand still, and it would wait out its 60 s deadline before and after.
    const statementsBefore = (await gatewayCounters(gwUrl)).statements;
    const total = Math.round(EVENT_RATE * EVENT_SECONDS);
    const start = Date.now();
    log(`  writing ${total} events at ${EVENT_RATE}/s`);
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / EVENT_RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      await write();
    }
    await sleep(2000); // the last deliveries
    const statements = (await gatewayCounters(gwUrl)).statements - statementsBefore;
    const ids = [...commits.keys()];
    const { times, failures } = await loadgen.run<{ times: (string | null)[][]; failures: number }>({ kind: 'receipts', ids });
    const latencies: number[] = [];
    let missing = 0;
    ids.forEach((id, i) => {
      const c = commits.get(id)!;
      for (const t of times[i]) {
        if (t === null) missing++;
        else latencies.push(Number(BigInt(t) - c) / 1e6);
      }
    });
    latencies.sort((a, b) => a - b);
    const row = {
      scenario: `events subscription, ${opened} subscribers`, events: ids.length, event_rate_per_s: EVENT_RATE, deliveries: latencies.length, missing, subscriber_errors: failures,
      commit_to_delivery_p50_ms: round1(quantile(latencies, 0.5)), p99_ms: round1(quantile(latencies, 0.99)), max_ms: round1(latencies[latencies.length - 1] ?? NaN),
      gateway_statements_per_event: round2(statements / Math.max(1, ids.length)),
      note: `writer commits from another process (delivery by the gateway's cross-process path: EVENTS_POLL_MS ${env.EVENTS_POLL_MS ?? 'default 100'}${env.BENCH_REDIS_URL ? ', Redis' : ', no Redis'}); statements include the revocation watcher's poll`,
    };
    log(`  p50 ${row.commit_to_delivery_p50_ms} ms p99 ${row.p99_ms} ms, ${row.gateway_statements_per_event} statements per event, ${missing} missing`);
    return row;
  } finally {
    conn.release();
    await loadgen.run({ kind: 'unsubscribe' }).catch(() => undefined);
  }
}

main().then(
  async () => {
    await cleanup();
    process.exit(0);
  },
  async (err) => {
    // eslint-disable-next-line no-console
    console.error(err);
    await cleanup();
    process.exit(1);
  },
);
