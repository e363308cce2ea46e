/**
 * What `npm run bench` starts and must stop: its database (created, and dropped at the end
 * unless it was given or BENCH_KEEP=1), the gateway, the floors and the load generator, each
 * its own process. `cleanup()` stops them all and drops the database: at the end, on failure,
 * and on SIGINT/SIGTERM once `cleanUpOnSignals()` is called.
 */
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ChildProcess, execFile, fork, spawn } from 'node:child_process';
import mysql from 'mysql2/promise';
import { DIST, log, ROOT, sleep } from './settings';

const env = process.env;
/** The data key of every process of the run (the gateway's, the floors', and this one's for the cursors it makes). */
export const DATA_KEY = env.BENCH_DATA_ENCRYPTION_KEY ?? randomBytes(32).toString('base64');

// ---------------------------------------------------------------- cleanup

const children: ChildProcess[] = [];
let dropDatabase: (() => Promise<void>) | undefined;
let cleaning: Promise<void> | undefined;

/** Stops every process started here (SIGTERM, SIGKILL after 5 s) and drops the database if it is the bench's own. Once. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    await Promise.all(
      children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => Promise.race([new Promise((r) => c.once('exit', r)), sleep(5000)])),
    );
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    if (dropDatabase) await dropDatabase().catch((err) => log(`could not drop the database: ${err}`));
  })();
  return cleaning;
}

export function cleanUpOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the processes and dropping the database`);
      void cleanup().finally(() => process.exit(130));
    });
  }
}

// ---------------------------------------------------------------- the database

export interface Db {
  url: URL;
  name: string;
}

/** DATABASE_URL's database (created if missing, kept), else a fresh `bench_<time>` on 127.0.0.1:3306 (dropped by cleanup()). */
export async function openDatabase(): Promise<Db> {
  const given = env.DATABASE_URL?.trim();
  if (given && !/^mysql:\/\//.test(given))
    throw new Error('npm run bench needs MariaDB/MySQL: DATABASE_URL=mysql://user@host:3306/db (or leave it unset for a fresh bench_<time> on 127.0.0.1:3306)');
  const url = new URL(given || 'mysql://root@127.0.0.1:3306/');
  const name = given ? url.pathname.slice(1) : `bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
  if (!name) throw new Error('DATABASE_URL names no database');
  url.pathname = `/${name}`;
  const admin = () =>
    mysql.createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    });
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
  return { url, name };
}

/** The bench's own small pool (seeding, cursors, the subscription writer, the report's counts). */
export function openPool(db: Db): mysql.Pool {
  return mysql.createPool({
    host: db.url.hostname,
    port: Number(db.url.port || 3306),
    user: decodeURIComponent(db.url.username),
    password: decodeURIComponent(db.url.password),
    database: db.name,
    connectionLimit: 4,
    supportBigNumbers: true,
    bigNumberStrings: true,
    charset: 'utf8mb4_unicode_ci',
  });
}

/** The gateway's settings: production-like, but quiet (no scheduler ticks or webhook sends in the statement counts). */
function gatewayEnv(db: Db, port = 0, metricsPort = 0, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...env,
    DATABASE_URL: db.url.toString(),
    DATA_ENCRYPTION_KEY: DATA_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: env.BENCH_LOG_LEVEL ?? 'warn',
    SEED_DEMO: '0',
    RATE_LIMIT_PER_SECOND: '0',
    SIMULATED_SETTLE_MS: '3600000',
    SCHEDULER_INTERVAL_MS: '3600000',
    WEBHOOK_DELIVERY: '0',
    REDIS_URL: env.BENCH_REDIS_URL ?? '',
    NODE_ENV: 'production',
    // Production needs the base of its links; metrics are served on their own listener.
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    ...(metricsPort ? { METRICS_PORT: String(metricsPort) } : {}),
    ...extra,
  };
}

/** The gateway's command line (migrate, keys create), its last output line parsed as JSON. */
export function cli(db: Db, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(DIST, 'src/cli/main.js'), ...args], { env: gatewayEnv(db), cwd: ROOT }, (err, stdout, stderr) => {
      if (err) reject(new Error(`cli ${args.join(' ')}: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()!));
    });
  });
}

// ---------------------------------------------------------------- the gateway

/** Warnings and errors the gateway logged, by message. */
export const gatewayWarnings = new Map<string, number>();
export const warningsSince = (before: Map<string, number>) =>
  Object.fromEntries([...gatewayWarnings].map(([k, v]) => [k, v - (before.get(k) ?? 0)]).filter(([, v]) => (v as number) > 0));

export interface Started {
  url: string;
  proc: ChildProcess;
  /** The gateway's metrics listener (METRICS_PORT). */
  metricsUrl?: string;
}

/** The gateway on `db` (`extra`: more settings, e.g. another DATABASE_URL and DATABASE_READ_URLS for the cluster bench). */
export async function startGateway(db: Db, nodeArgs: string[] = [], extra: NodeJS.ProcessEnv = {}): Promise<Started> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, [...nodeArgs, path.join(DIST, 'src/main.js')], {
    env: gatewayEnv(db, port, metricsPort, extra),
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  let exited = false;
  proc.once('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited) throw new Error(`the gateway exited before listening:\n${out}`);
    if (Date.now() > deadline) throw new Error(`the gateway did not answer /healthz in 120 s:\n${out}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, proc, metricsUrl: `http://127.0.0.1:${metricsPort}` };
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
}

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

// ---------------------------------------------------------------- the floor and the load generator

/**
 * A floor (bench/floor.ts) sending its statements as `text` queries or `prepared` statements,
 * handed the method discovery answer the gateway computed (it has no catalogue).
 */
export async function startFloor(db: Db, statements: 'text' | 'prepared', methodsAnswer: string, nodeArgs: string[] = []): Promise<Started> {
  const proc = fork(path.join(__dirname, 'floor.js'), [], {
    env: { ...gatewayEnv(db), FLOOR_STATEMENTS: statements },
    execArgv: nodeArgs,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(proc);
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m: any) => resolve(m.port));
    proc.once('exit', (code) => reject(new Error(`the floor exited (${code})`)));
  });
  const url = `http://127.0.0.1:${port}`;
  await fetch(`${url}/__set_methods_answer`, { method: 'POST', body: methodsAnswer });
  return { url, proc };
}

/** The load generator (bench/loadgen.ts) in its own process: jobs sent over IPC, answered by id. */
export class LoadGen {
  private seq = 0;
  private pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  readonly proc: ChildProcess;
  constructor() {
    this.proc = fork(path.join(__dirname, 'loadgen.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(this.proc);
    this.proc.on('message', (m: any) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error) p?.reject(new Error(m.error));
      else p?.resolve(m.result);
    });
    this.proc.once('exit', (code) => {
      for (const p of this.pending.values()) p.reject(new Error(`the load generator exited (${code})`));
    });
  }
  run<T>(job: Record<string, unknown>): Promise<T> {
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.proc.send({ id, job });
    });
  }
}
